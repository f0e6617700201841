"""Graph2Text: a seq2seq model (T5) or a causal LM that writes a community's triples as sentences.

It implements :class:`~kgcore.text.CommunityTextualizer`: ``g2t(nodes, triples) -> str``, and
:meth:`Graph2Text.generate` writes many communities in batches. The input is linearised as in
the T5 WebNLG literature (``<H> s <R> p <T> o``); a model trained here from scratch reads it
delexicalised (``ENT0``...) and the names are put back after generation. A decoder-only model
(``architecture="causal"`` in ``g2t_config.json``, e.g. SmolLM2 with a LoRA adapter) reads the
same string in a prompt (:mod:`kgcore.text.graph2text.causal`). It runs on CUDA in
bfloat16 when a GPU is present, on the CPU in float32 otherwise, and loads a local folder, the
small model that ships with the package (``"graph2text-webnlg-small"``, found in the order of
:mod:`kglocal.locations`), or a Hugging Face Hub repo id (with ``HF_HUB_OFFLINE=1`` from the
Hub cache).

Example
-------
>>> from kgcore.types import Triple
>>> g2t = Graph2Text.from_pretrained("graph2text-webnlg-small")   # doctest: +SKIP
>>> g2t(["Aarhus Airport", "Aarhus"], [Triple("Aarhus Airport", "cityServed", "Aarhus")])
... # doctest: +SKIP
'Aarhus Airport serves the city of Aarhus.'
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgcore.concurrency import apply_torch_threads
from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kgcore.progress import quiet_model_loading
from kgcore.text.graph2text.causal import generate_causal, is_model_folder, load_causal
from kgcore.text.graph2text.delex import delexicalize, relexicalize
from kgcore.text.graph2text.linearize import linearize, plain_triples
from kgcore.text.graph2text.settings import G2TSettings, check_writing_options
from kgcore.types import Triple
from kglocal.locations import G2T_HUB_IDS, graph2text_model_dir, shipped_graph2text_name

#: Texts a model keeps by group of triples (newest last): FastToG shows a community at a
#: choice and again in its chain, and neighbouring questions share communities.
TEXT_CACHE_SIZE = 4096
GroupKey = tuple[tuple[str, str, str], ...]


def group_key(group: Sequence[Sequence[str]]) -> GroupKey:
    """A group of triples as a cache key: its ``(head, relation, tail)`` strings, in order."""
    return tuple((str(t[0]), str(t[1]), str(t[2])) for t in group)


def pick_device(device: str | None = None) -> tuple[str, Any]:
    """``(device, dtype)``: CUDA with bfloat16 when available (or float16), else CPU float32."""
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda"):
        dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return device, dtype
    return device, torch.float32


def resolve_model_folder(name_or_path: str | Path) -> Path:
    """A local folder as is; a shipped model's name (``"graph2text-webnlg-small"``,
    ``"graph2text-webnlg-smollm2"``, or the checkout's ``"models/NAME"`` from another
    directory) looked up in the documented model order
    (:func:`kglocal.locations.graph2text_model_dir`); otherwise a Hub repo id, fetched (or
    read offline) from the cache.

    ``huggingface_hub.snapshot_download`` honours ``HF_HUB_OFFLINE=1``: it then only reads the
    local Hub cache. A shipped model's Hub id (:data:`kglocal.locations.G2T_HUB_IDS`,
    ``kg-retrievers/NAME``) that neither the Hub nor its cache gives resolves to the shipped
    folder; any other id is then a :class:`ConfigurationError`.
    """
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        if not is_model_folder(path):
            raise ConfigurationError(
                f"{path} is not a model folder (no config.json or adapter_config.json)"
            )
        return path
    text = str(name_or_path)
    shipped = shipped_graph2text_name(text)
    if shipped is not None:  # named explicitly: $KG_G2T_MODEL does not replace it
        return graph2text_model_dir(use_env=False, name=shipped)
    if text.count("/") != 1 or text.startswith((".", "/")):
        raise ConfigurationError(f"no Graph2Text model folder {text!r} and not a Hub repo id")
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
    except ImportError as err:  # pragma: no cover - a transformers dependency
        raise MissingDependencyError("huggingface_hub", "g2t") from err
    try:
        return Path(snapshot_download(repo_id=text))
    except (LocalEntryNotFoundError, HfHubHTTPError, OSError, ValueError) as err:
        problem = f"cannot load Graph2Text model {text!r} from the Hub or its cache: {err}"
        if text not in G2T_HUB_IDS:
            raise ConfigurationError(problem) from err
        try:  # the project's own model: the copy that ships with it
            return graph2text_model_dir(use_env=False, name=G2T_HUB_IDS[text])
        except ConfigurationError as missing:
            raise ConfigurationError(f"{problem}; and {missing}") from err


class Graph2Text:
    """Batched graph-to-text generation with a seq2seq or causal model.

    Parameters
    ----------
    model, tokenizer
        A ``transformers`` seq2seq or causal model and its tokenizer (see
        :meth:`from_pretrained`; the settings' ``architecture`` says which).
    settings : G2TSettings, optional
        Delexicalisation, prefix and token caps (read from ``g2t_config.json``).
    num_beams : int
        1 is greedy search; more is beam search.
    max_triples : int
        Triples read per community (the rest are dropped, in order).
    max_new_tokens : int, optional
        Output tokens per text; the training cap by default.
    batch_size : int
        Communities per forward pass.
    no_repeat_ngram_size : int
        Forbid repeating any n-gram (stops small models looping); 0 disables. Not used by a
        causal model, whose prompt holds the names it must repeat (it stops at a new line).
    triples_per_sentence : int, optional
        Sentence planning: a community is split into groups of triples that share their head,
        at most this many each, in order; each group is written on its own and the texts are
        joined. ``None`` writes the whole community at once. Small models keep the roles of
        one or two facts right far more often than those of six (``benchmarks/g2t.py``).
    candidates : int
        Texts kept per group from beam search (at most ``num_beams``); the first that passes
        the hallucination guard (:func:`~kgcore.text.graph2text.guard.check_text`) is used,
        else the most likely one.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        settings: G2TSettings | None = None,
        *,
        num_beams: int = 1,
        max_triples: int = 16,
        max_new_tokens: int | None = None,
        batch_size: int = 32,
        no_repeat_ngram_size: int = 3,
        triples_per_sentence: int | None = None,
        candidates: int = 1,
    ) -> None:
        check_writing_options(num_beams, triples_per_sentence, candidates)
        if max_triples < 1 or batch_size < 1:
            raise ConfigurationError("max_triples and batch_size must be at least 1")
        self.model = model
        self.tokenizer = tokenizer
        self.settings = settings or G2TSettings()
        self.num_beams = num_beams
        self.max_triples = max_triples
        self.max_new_tokens = max_new_tokens or self.settings.max_target_tokens
        self.batch_size = batch_size
        self.no_repeat_ngram_size = no_repeat_ngram_size
        self.triples_per_sentence = triples_per_sentence
        self.candidates = candidates
        self._written: OrderedDict[GroupKey, str] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_pretrained(
        cls, name_or_path: str | Path, *, device: str | None = None, **options: Any
    ) -> Graph2Text:
        """Load a model folder or Hub repo id; ``options`` go to the constructor, over the
        folder's writing defaults (``g2t_config.json``: beams, sentence plan, candidates)."""
        try:
            from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
        except ImportError as err:  # pragma: no cover - installed with the [g2t] extra
            raise MissingDependencyError("transformers", "g2t") from err
        folder = resolve_model_folder(name_or_path)
        device, dtype = pick_device(device)
        settings = G2TSettings.load(folder)
        options = {**settings.generation_options(), **options}
        apply_torch_threads()  # the thread policy (kgcore.concurrency)
        if settings.architecture == "causal":
            with quiet_model_loading():
                model, tokenizer = load_causal(folder, settings, device, dtype)
            return cls(model, tokenizer, settings, **options)
        try:
            with quiet_model_loading():
                tokenizer = AutoTokenizer.from_pretrained(folder)
                model = AutoModelForSeq2SeqLM.from_pretrained(folder, dtype=dtype)
        except (OSError, ValueError) as err:
            raise ConfigurationError(f"cannot load Graph2Text model from {folder}: {err}") from err
        model.to(device).eval()
        return cls(model, tokenizer, settings, **options)

    # -- inputs ---------------------------------------------------------------------------
    def source(self, triples: Sequence[Sequence[str]]) -> tuple[str, dict[str, str]]:
        """The model input for a community and the placeholder mapping (empty if lexical)."""
        shown = plain_triples(list(triples)[: self.max_triples])
        if self.settings.delexicalize:
            delex = delexicalize(shown)
            return self.settings.prefix + linearize(delex.triples), delex.mapping
        return self.settings.prefix + linearize(shown), {}

    # -- generation -----------------------------------------------------------------------
    def plan(self, triples: Sequence[Sequence[str]]) -> list[list[Sequence[str]]]:
        """The groups of a community written one at a time (see ``triples_per_sentence``)."""
        shown = list(triples)[: self.max_triples]
        size = self.triples_per_sentence
        if size is None or not shown:
            return [shown]
        by_head: dict[str, list[Sequence[str]]] = {}
        for triple in shown:
            by_head.setdefault(str(triple[0]), []).append(triple)
        return [
            group[i : i + size] for group in by_head.values() for i in range(0, len(group), size)
        ]

    def generate(self, communities: Sequence[Sequence[Sequence[str]]]) -> list[str]:
        """One text per community (a list of ``(head, relation, tail)``), in order."""
        plans = [self.plan(triples) for triples in communities]
        written = iter(self._write([group for plan in plans for group in plan]))
        return [" ".join(next(written) for _ in plan).strip() for plan in plans]

    def _write(self, groups: Sequence[Sequence[Sequence[str]]]) -> list[str]:
        """One text per group: the first of its candidates that passes the guard. A group
        written before (the same triples in the same order) gets its text again; the others
        are written once each, in batches."""
        keys = [group_key(group) for group in groups]
        with self._lock:
            known = {key: self._written[key] for key in keys if key in self._written}
        new = list(dict.fromkeys(key for key in keys if key not in known))
        for start in range(0, len(new), self.batch_size):
            batch = new[start : start + self.batch_size]
            known.update(zip(batch, self._write_batch(batch), strict=True))
        with self._lock:
            for key in keys:
                self._written[key] = known[key]
                self._written.move_to_end(key)
            while len(self._written) > TEXT_CACHE_SIZE:
                self._written.popitem(last=False)
        return [known[key] for key in keys]

    def _write_batch(self, batch: Sequence[Sequence[Sequence[str]]]) -> list[str]:
        """One text per group of one batch: the first candidate that passes the guard."""
        from kgcore.text.graph2text.guard import check_text

        candidates = self._candidates(batch)
        texts: list[str] = []
        for index, group in enumerate(batch):
            options = candidates[index * self.candidates : (index + 1) * self.candidates]
            passing = (t for t in options if check_text(t, group).ok)
            texts.append(next(passing, options[0]) if len(options) > 1 else options[0])
        return texts

    def _candidates(self, batch: Sequence[Sequence[Sequence[str]]]) -> list[str]:
        """``candidates`` texts per group of one batch, most likely first."""
        import torch

        prepared = [self.source(triples) for triples in batch]
        sources = [source for source, _ in prepared]
        if self.settings.architecture == "causal":
            decoded = generate_causal(
                self.model,
                self.tokenizer,
                sources,
                num_beams=self.num_beams,
                max_new_tokens=self.max_new_tokens,
                max_source_tokens=self.settings.max_source_tokens,
                num_return_sequences=self.candidates,
            )
        else:
            device = next(self.model.parameters()).device
            encoded = self.tokenizer(
                sources,
                return_tensors="pt",
                padding=True,
                truncation=True,
                max_length=self.settings.max_source_tokens,
            ).to(device)
            with torch.inference_mode():
                output = self.model.generate(
                    input_ids=encoded["input_ids"],
                    attention_mask=encoded["attention_mask"],
                    num_beams=self.num_beams,
                    num_return_sequences=self.candidates,
                    do_sample=False,
                    max_new_tokens=self.max_new_tokens,
                    no_repeat_ngram_size=self.no_repeat_ngram_size,
                )
            decoded = [
                t.strip() for t in self.tokenizer.batch_decode(output, skip_special_tokens=True)
            ]
        mappings = [mapping for _, mapping in prepared for _ in range(self.candidates)]
        return [relexicalize(t, m) if m else t for t, m in zip(decoded, mappings, strict=True)]

    def __call__(self, nodes: Sequence[str], triples: Sequence[Triple]) -> str:
        if not triples:
            return ", ".join(nodes) + "."
        return self.generate([triples])[0]
