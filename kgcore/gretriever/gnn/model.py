"""G-Retriever's generator: a GNN graph prompt in front of a frozen LLM, on PyG's ``GRetriever``.

The model is PyG's ``torch_geometric.llm.models.GRetriever`` around PyG's ``LLM``: the GNN
encodes the subgraph, mean pooling and an MLP projector turn it into ``graph_tokens`` soft
tokens in the LLM's embedding space, placed before the textualised graph and the question.
Three modes:

- ``inference``: no GNN; the frozen LLM reads the textualised graph and the question;
- ``prompt``: GNN + projector trained, LLM frozen (prompt tuning);
- ``lora``: as ``prompt``, plus LoRA adapters on the LLM's ``q_proj``/``v_proj`` (peft).

What this module adds around PyG 2.8.1: the LLM is loaded from a local folder with
``num_params`` given (PyG's ``LLM`` otherwise asks the Hub for it) in float32 on CPU (its
default is bfloat16); without LoRA, PyG's ``GRetriever`` leaves the LLM trainable, so it is
frozen here; the graph text is cut to ``max_text_tokens`` tokens (PyG's chat-template prompt
does not cut it); generation is greedy.

Example
-------
>>> model = GraphPromptModel(GraphPromptConfig(mode="prompt"))   # doctest: +SKIP
>>> model.predict([example])                                      # doctest: +SKIP
['support']
"""

from __future__ import annotations

import contextlib
import json
import sys
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import torch

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kgcore.gretriever.gnn.encoders import GNNConfig, build_gnn
from kgcore.gretriever.gnn.local_llm import KNOWN_NUM_PARAMS, resolve_llm_path

Mode = Literal["inference", "prompt", "lora"]
MODES: tuple[str, ...] = ("inference", "prompt", "lora")
DEFAULT_SYSTEM_PROMPT = (
    "You read a knowledge graph given as node and edge tables and answer the user's question "
    "about it in one word."
)
#: Format tag written into checkpoints.
CHECKPOINT_FORMAT = "kg-retrievers/gretriever-gnn/1"
#: The paper's LLM (He et al., 2024) and its size in billions.
PAPER_LLM = "meta-llama/Llama-2-7b-chat-hf"
PAPER_LLM_PARAMS = 7.0
#: LoRA rank and alpha: the paper's, and the values PyG's ``GRetriever`` fixes (on q_proj, v_proj).
LORA_R, LORA_ALPHA = 8, 16


@dataclass(frozen=True)
class GraphPromptConfig:
    """How the graph-prompted LLM is built.

    Attributes
    ----------
    mode : {"inference", "prompt", "lora"}
        What is trained (see the module docstring).
    llm : str
        ``"smollm2"`` (offline default), a local Hugging Face folder or a Hub id.
    num_params : float, optional
        The LLM's size in billions (PyG sizes GPU memory with it); known for ``smollm2``.
    gnn : GNNConfig
        Graph encoder (the paper's 4-layer GAT, 4 heads, hidden 1024 by default).
    input_dim : int
        Width of the node/edge sentence embeddings (384 for all-MiniLM-L6-v2).
    graph_tokens : int
        Soft tokens the projector emits per graph (the paper: 1).
    max_text_tokens : int
        Cap on the textualised graph's tokens (the paper: 512).
    max_new_tokens : int
        Cap on the generated answer.
    system_prompt : str
        The chat's system turn.
    graph_norm : bool
        Standardise the pooled graph vector across graphs (batch norm; running statistics at
        evaluation) before the projector. Off in the paper. Without it, the GNN's pooled
        vectors of similar graphs share a large common part, the projector's sigmoid keeps
        it, and the graph token hardly varies between graphs: a frozen 135M LLM then learns
        only the label prior in a CPU-sized run (docs/research/code_measurements.md).
    seed : int
        Seeds the GNN's and projector's initial weights.
    """

    mode: str = "prompt"
    llm: str = "smollm2"
    num_params: float | None = None
    gnn: GNNConfig = field(default_factory=GNNConfig)
    input_dim: int = 384
    graph_tokens: int = 1
    max_text_tokens: int = 512
    max_new_tokens: int = 8
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    graph_norm: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigurationError(f"unknown mode {self.mode!r}; expected one of {MODES}")
        if not isinstance(self.graph_norm, bool):
            raise ConfigurationError(f"graph_norm must be true or false, got {self.graph_norm!r}")
        for name in ("input_dim", "graph_tokens", "max_text_tokens", "max_new_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{name} must be a positive integer, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly fields (stored in checkpoints)."""
        return asdict(self)

    @classmethod
    def paper(cls, **overrides: Any) -> GraphPromptConfig:
        """The paper's G-Retriever: LoRA (r=8, alpha=16), a 4-layer Graph Transformer
        (4 heads, hidden 1024), Llama-2-7B chat, one graph token, 512 text tokens.

        Needs a GPU (and access to the gated Llama-2 weights, or another 7B chat model given
        as ``llm=`` with ``num_params=``); train it with :meth:`TrainConfig.paper
        <kgmodels.gnn.training.TrainConfig.paper>` (lr 1e-5, 10 epochs).

        Example
        -------
        >>> config = GraphPromptConfig.paper()
        >>> config.mode, config.gnn.kind, config.gnn.num_layers, config.llm
        ('lora', 'graph-transformer', 4, 'meta-llama/Llama-2-7b-chat-hf')
        """
        values: dict[str, Any] = {
            "mode": "lora",
            "llm": PAPER_LLM,
            "num_params": PAPER_LLM_PARAMS,
            "gnn": GNNConfig.preset("paper", kind="graph-transformer"),
            "graph_tokens": 1,
            "max_text_tokens": 512,
            "max_new_tokens": 32,
        }
        return cls(**{**values, **overrides})

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> GraphPromptConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error."""
        values = dict(values)
        gnn = values.pop("gnn", None)
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigurationError(f"unknown GraphPromptConfig fields: {', '.join(unknown)}")
        return cls(gnn=GNNConfig(**gnn) if isinstance(gnn, dict) else GNNConfig(), **values)


@dataclass(frozen=True)
class GraphPrompt:
    """One input: the question, the textualised graph, and its ``Data`` (``None``: no graph)."""

    question: str
    text: str
    data: Any = None


class GraphBatchNorm(torch.nn.BatchNorm1d):
    """Batch norm over the graphs of a batch; a lone graph in training uses the running stats.

    Example
    -------
    >>> norm = GraphBatchNorm(4)
    >>> norm(torch.randn(3, 4)).shape, norm(torch.randn(1, 4)).shape
    (torch.Size([3, 4]), torch.Size([1, 4]))
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` standardised per feature (over the batch in training, else running stats)."""
        if self.training and x.shape[0] < 2:
            return torch.nn.functional.batch_norm(
                x, self.running_mean, self.running_var, self.weight, self.bias, False, 0.0, self.eps
            )
        return super().forward(x)


def _load_pyg_llm(config: GraphPromptConfig) -> Any:
    try:
        from torch_geometric.llm.models import LLM
    except ImportError as err:  # pragma: no cover - depends on the install
        raise MissingDependencyError("torch-geometric", "gnn") from err
    path = resolve_llm_path(config.llm)
    num_params = config.num_params or KNOWN_NUM_PARAMS.get(config.llm)
    if num_params is None:
        raise ConfigurationError(
            f"give num_params (billions) for LLM {config.llm!r}: PyG would ask the Hub for it"
        )
    cuda = torch.cuda.is_available()
    dtype = torch.bfloat16 if cuda else torch.float32
    # PyG's LLM prints its set-up to stdout and warns about CPU use: keep stdout for results.
    with warnings.catch_warnings(), contextlib.redirect_stdout(sys.stderr):
        warnings.simplefilter("ignore")
        return LLM(path, num_params=num_params, dtype=dtype, sys_prompt=config.system_prompt)


class GraphPromptModel(torch.nn.Module):
    """PyG's ``GRetriever`` with a frozen LLM, a mode, and checkpoints of the trained parts.

    Parameters
    ----------
    config : GraphPromptConfig
        What to build.
    llm : torch_geometric.llm.models.LLM, optional
        An already loaded PyG ``LLM`` to reuse (it must be fresh: LoRA modifies it in place).

    Example
    -------
    >>> model = GraphPromptModel(GraphPromptConfig(mode="prompt",       # doctest: +SKIP
    ...                          gnn=GNNConfig.preset("tiny")))
    >>> sorted(model.trainable_state())[:1]                              # doctest: +SKIP
    ['gnn.convs.0.att_dst']
    """

    def __init__(self, config: GraphPromptConfig, llm: Any = None) -> None:
        super().__init__()
        from torch_geometric.llm.models import GRetriever

        self.config = config
        llm = llm if llm is not None else _load_pyg_llm(config)
        for parameter in llm.parameters():
            parameter.requires_grad_(False)
        torch.manual_seed(config.seed)
        gnn = None
        if config.mode != "inference":
            gnn = build_gnn(config.gnn, config.input_dim)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.inner = GRetriever(
                llm,
                gnn,
                use_lora=config.mode == "lora",
                mlp_out_tokens=config.graph_tokens,
            )
        if gnn is not None and config.graph_norm:
            self.inner.projector = torch.nn.Sequential(
                GraphBatchNorm(config.gnn.hidden_channels), *self.inner.projector
            ).to(llm.device)
        # Greedy decoding, whatever the model's own generation config says.
        generation = llm.llm.generation_config
        generation.do_sample = False
        generation.temperature = generation.top_p = generation.top_k = None
        self.tokenizer = llm.tokenizer
        self.device = llm.device

    # -- parameters -----------------------------------------------------------------------
    def _trained_tensors(self) -> dict[str, torch.Tensor]:
        """The trained parameters, and the GNN's and projector's buffers (batch-norm stats)."""
        tensors = {n: p for n, p in self.inner.named_parameters() if p.requires_grad}
        tensors.update(
            (n, b) for n, b in self.inner.named_buffers() if n.startswith(("gnn.", "projector."))
        )
        return tensors

    def trainable_state(self) -> dict[str, torch.Tensor]:
        """A copy of the trained parameters by name (GNN, projector, LoRA adapters), on CPU.

        The GNN's and projector's buffers (the running statistics of ``graph_norm``) are
        included: evaluation reads them.
        """
        return {
            name: tensor.detach().to("cpu", copy=True).contiguous()
            for name, tensor in self._trained_tensors().items()
        }

    def num_trainable(self) -> int:
        """Number of trained parameters."""
        return sum(p.numel() for p in self.inner.parameters() if p.requires_grad)

    def llm_state(self) -> dict[str, torch.Tensor]:
        """The frozen LLM's own weights (without adapters), for checks that it is unchanged."""
        return {
            name: parameter.detach().clone()
            for name, parameter in self.inner.llm.llm.named_parameters()
            if "lora_" not in name
        }

    # -- inputs ---------------------------------------------------------------------------
    def cut_text(self, text: str) -> str:
        """``text`` cut to at most ``max_text_tokens`` tokens of the LLM's tokenizer."""
        ids = self.tokenizer(text, add_special_tokens=False).input_ids
        if len(ids) <= self.config.max_text_tokens:
            return text
        return str(self.tokenizer.decode(ids[: self.config.max_text_tokens]))

    def _graph_inputs(self, prompts: Sequence[GraphPrompt]) -> dict[str, Any]:
        from torch_geometric.data import Batch, Data

        questions = [p.question for p in prompts]
        texts = [self.cut_text(p.text) for p in prompts]
        if self.config.mode == "inference":
            empty = torch.zeros(0, dtype=torch.long)
            return {
                "question": questions,
                "x": torch.zeros(0, self.config.input_dim),
                "edge_index": torch.zeros(2, 0, dtype=torch.long),
                "batch": empty,
                "edge_attr": None,
                "additional_text_context": texts,
            }
        datas = []
        for prompt in prompts:
            data = prompt.data
            if data is None:
                data = Data(
                    x=torch.zeros(0, self.config.input_dim),
                    edge_index=torch.zeros(2, 0, dtype=torch.long),
                    edge_attr=torch.zeros(0, self.config.input_dim),
                    num_nodes=0,
                )
            elif data.x.shape[1] != self.config.input_dim:
                raise ConfigurationError(
                    f"node features are {data.x.shape[1]}-wide, the model reads "
                    f"{self.config.input_dim}: embed with the model it was trained with"
                )
            datas.append(data)
        batch = Batch.from_data_list(datas)
        return {
            "question": questions,
            "x": batch.x,
            "edge_index": batch.edge_index,
            "batch": batch.batch,
            "edge_attr": batch.edge_attr,
            "additional_text_context": texts,
        }

    # -- forward --------------------------------------------------------------------------
    def loss(self, prompts: Sequence[GraphPrompt], answers: Sequence[str]) -> torch.Tensor:
        """Mean cross-entropy of the answer tokens (teacher forcing)."""
        if len(prompts) != len(answers) or not prompts:
            raise ConfigurationError("loss needs one answer per prompt, and at least one prompt")
        inputs = self._graph_inputs(prompts)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss: torch.Tensor = self.inner(label=list(answers), **inputs)
        return loss

    @torch.no_grad()
    def generate(self, prompts: Sequence[GraphPrompt], graph_token: bool = True) -> list[str]:
        """Greedy replies of at most ``max_new_tokens`` tokens.

        With ``graph_token=False`` the GNN and projector are not run: the LLM (with its LoRA
        adapters, if any) reads the same text prompt (cut graph text and question) without
        the soft graph token, as inference-only G-Retriever does.
        """
        if not prompts:
            return []
        was_training = self.training
        self.eval()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if graph_token or self.config.mode == "inference":
                    inputs = self._graph_inputs(prompts)
                    replies = self.inner.inference(
                        max_out_tokens=self.config.max_new_tokens, **inputs
                    )
                else:
                    replies = self._generate_text_only(prompts)
        finally:
            self.train(was_training)
        return [str(r) for r in replies]

    def _generate_text_only(self, prompts: Sequence[GraphPrompt]) -> list[str]:
        """PyG's ``GRetriever.inference`` without the graph: no GNN, no soft token."""
        llm = self.inner.llm
        embeds, mask, _ = llm._get_embeds(
            [p.question for p in prompts], [self.cut_text(p.text) for p in prompts], None
        )
        with llm.autocast_context:
            outputs = self.inner.llm_generator.generate(
                inputs_embeds=embeds,
                max_new_tokens=self.config.max_new_tokens,
                attention_mask=mask,
                bos_token_id=llm.tokenizer.bos_token_id,
                pad_token_id=llm.tokenizer.eos_token_id,
                use_cache=True,
            )
        return [str(r) for r in llm.tokenizer.batch_decode(outputs, skip_special_tokens=True)]

    # -- checkpoints ----------------------------------------------------------------------
    def save(self, path: str | Path, extra: dict[str, Any] | None = None) -> Path:
        """Write the trained parameters and the config to a ``.safetensors`` file."""
        from safetensors.torch import save_file

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        metadata = {
            "format": CHECKPOINT_FORMAT,
            "config": json.dumps(self.config.to_dict()),
            "extra": json.dumps(extra or {}),
        }
        tmp = path.with_name(path.name + ".tmp")
        save_file(self.trainable_state(), str(tmp), metadata=metadata)
        tmp.replace(path)
        return path

    def load_trained(self, path: str | Path) -> None:
        """Load trained parameters written by :meth:`save` (names and shapes must match)."""
        from safetensors.torch import load_file

        state = load_file(str(path))
        own = self._trained_tensors()
        expected = set(own)
        if set(state) != expected:
            missing, unexpected = sorted(expected - set(state)), sorted(set(state) - expected)
            raise ConfigurationError(
                f"checkpoint {path} does not fit this model: missing {missing[:3]}, "
                f"unexpected {unexpected[:3]}"
            )
        with torch.no_grad():
            for name, tensor in state.items():
                if own[name].shape != tensor.shape:
                    raise ConfigurationError(
                        f"checkpoint {path}: {name} has shape {tuple(tensor.shape)}, "
                        f"the model {tuple(own[name].shape)}"
                    )
                own[name].copy_(tensor.to(own[name].device, own[name].dtype))


def read_checkpoint_config(path: str | Path) -> tuple[GraphPromptConfig, dict[str, Any]]:
    """The config and extra metadata stored in a checkpoint."""
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise ConfigurationError(f"checkpoint not found: {path}")
    try:
        with safe_open(str(path), framework="pt") as handle:
            metadata = handle.metadata() or {}
    except Exception as err:
        raise ConfigurationError(f"{path} is not a safetensors checkpoint: {err}") from err
    if metadata.get("format") != CHECKPOINT_FORMAT:
        raise ConfigurationError(f"{path} is not a gretriever-gnn checkpoint")
    config = GraphPromptConfig.from_dict(json.loads(metadata["config"]))
    return config, json.loads(metadata.get("extra", "{}"))


def load_model(path: str | Path, llm: str | None = None) -> GraphPromptModel:
    """A model rebuilt from a checkpoint's config, with its trained parameters loaded.

    ``llm`` replaces the LLM named in the checkpoint (e.g. the same model at another path).
    """
    config, _ = read_checkpoint_config(path)
    if llm is not None:
        config = GraphPromptConfig.from_dict({**config.to_dict(), "llm": llm})
    model = GraphPromptModel(config)
    if config.mode != "inference":
        model.load_trained(path)
    return model
