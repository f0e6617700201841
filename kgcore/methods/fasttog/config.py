"""FastToG settings, with the paper's defaults.

The Local Community Search settings are an :class:`~kgcore.community.lcs.LCSConfig`, nested
as :attr:`FastToGConfig.lcs`; its fields can still be given and read flat
(``FastToGConfig(max_community_size=2).max_community_size``).

Example
-------
>>> FastToGConfig().width, FastToGConfig().max_depth, FastToGConfig().max_community_size
(3, 5, 4)
>>> FastToGConfig.node_level().lcs.max_community_size
1
>>> FastToGConfig(radius=1).with_overrides(width=2).lcs.radius
1
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from kgcore.community.detection import ALGORITHMS
from kgcore.community.lcs import LCSConfig
from kgcore.exceptions import InvalidSettingError
from kgcore.methods.fasttog.prompts import (
    PRUNE_PROMPT,
    REASON_DEMOS,
    REASON_PROMPT,
    REASON_SYSTEM,
    TEMPLATE_FIELDS,
    ReasonDemo,
)
from kgcore.methods.kernel import check_template
from kgcore.validation import FASTTOG_LIMITS, check_settings

FALLBACKS = ("cot", "cot-sc", "io", "none")
#: How the first W communities are chosen (``FastToGConfig.first_choice``); ``"auto"`` is
#: ``"similarity"`` when the engine has an embedder, else ``"llm"``.
FIRST_CHOICES = ("auto", "llm", "similarity")
#: The Local Community Search settings, given and read flat on a :class:`FastToGConfig`.
LCS_FIELDS = tuple(f.name for f in dataclasses.fields(LCSConfig))


@dataclass(frozen=True, init=False)
class FastToGConfig:
    """Every FastToG knob.

    Paper defaults: ``width`` W=3, ``max_depth`` D_max=5, ``max_community_size`` M=4, Louvain,
    temperature 0.4 for pruning and 0.1 for reasoning. The sampling radius, decay and caps, the
    coarse top-k and the token caps are this project's defaults (the paper leaves them open).

    Parameters
    ----------
    width, max_depth :
        W and D_max.
    lcs : LCSConfig, optional
        The community search settings (``max_community_size``, ``algorithm``, ``radius``, ...);
        each may also be given as a keyword of its own, which overrides ``lcs``'s.
    prune_temperature, reason_temperature, prune_max_tokens, reason_max_tokens :
        Sampling of the pruning and reasoning replies.
    fallback : {"cot", "cot-sc", "io", "none"}
        How FastToG answers when the graph gave no answer.
    seed : int
        Seeds every sampling step.
    max_option_triples : int
        Triples shown per candidate community.
    start_leaves : bool
        The start community also holds the topic's one-node neighbours among the first
        candidates (a year, a genre, a language): their linking triples are shown with the
        topic; only with ``start_leaf_chains`` are they also offered to start a chain (a
        deviation from the paper, see the README).
    start_leaf_chains : bool
        With ``start_leaves``, whether those one-node candidates are also offered to start a
        chain. Off by default: their facts are already in the start community, and the first
        choice offers only the candidates of two or more nodes (all of them when there is
        none), so W or fewer of those are taken without an LLM call (a deviation from the
        paper, see the README). Without ``start_leaves``, and in the node-level variant
        (every candidate is one node), every candidate is offered.
    chain_leaves : bool
        The same for every community that joins a chain: the Local Community Search step from
        it runs as it joins (the step its chain grows from later), and the linking triples of
        that step's one-node candidates are shown with it, at the depth it joins; they stay
        candidates (a deviation from the paper, see the README). It does nothing in the
        node-level variant (``max_community_size=1``), where every candidate is one node.
    first_choice : {"auto", "llm", "similarity"}
        How the first W communities, which start the chains, are chosen among the offered
        candidates: ``"llm"``, the paper's fine pruning (a multiple-choice LLM call), or
        ``"similarity"``, the W whose text is closest to the question by sentence embeddings
        (cosine; no LLM call), as ToG's paper prunes with SentenceBERT to save calls (a
        deviation from FastToG's paper, see the README). ``"auto"`` (the default) is
        ``"similarity"`` when the engine is given an embedder (``FastToG(...,
        embedder=...)``, ``FastToGRetriever(..., embeddings=...)``; ``kgqa`` gives the offline
        all-MiniLM-L6-v2) and the paper's ``"llm"`` otherwise.
    chain_choice : {"auto", "llm", "similarity"}
        How a chain's next community is chosen at each later depth: ``"llm"``, the paper's
        single choice (an LLM call per chain and depth, ``{none}`` stops the chain), or
        ``"similarity"``, the candidate closest to the question (no LLM call); ``"auto"`` as
        for ``first_choice``.
    grounded_answers : bool
        Keep only the answer names that the facts shown contain; a reply naming none of them
        counts as ``Unknown`` and the chains grow (a deviation from the paper, see the README).
    prune_prompt, reason_prompt : str
        ``str.format`` templates (:data:`~kgcore.methods.fasttog.prompts.PRUNE_PROMPT`,
        :data:`~kgcore.methods.fasttog.prompts.REASON_PROMPT`); a template must keep its fields.
    reason_system : str
        The reasoning system message, which holds the instruction
        (:data:`~kgcore.methods.fasttog.prompts.REASON_SYSTEM`); give it with your own
        ``reason_prompt`` if that template carries its own instruction.
    reason_demos : tuple of ReasonDemo
        Demonstrations shown before each reasoning prompt as earlier exchanges
        (:data:`~kgcore.methods.fasttog.prompts.REASON_DEMOS`: family, place and organisation
        facts with abstract names, in no one domain); give your own for your domain (their
        placeholder names in ``ReasonDemo.names`` are never taken for answers), ``()`` for
        none, or the ``metaqa`` preset's movie examples (:meth:`preset`).
    """

    width: int = 3
    max_depth: int = 5
    lcs: LCSConfig = field(default_factory=LCSConfig)
    prune_temperature: float = 0.4
    reason_temperature: float = 0.1
    fallback: str = "cot"
    seed: int = 0
    max_option_triples: int = 8
    first_choice: str = "auto"
    chain_choice: str = "auto"
    grounded_answers: bool = True
    start_leaves: bool = True
    start_leaf_chains: bool = False
    chain_leaves: bool = True
    prune_max_tokens: int = 64
    reason_max_tokens: int = 256
    prune_prompt: str = field(default=PRUNE_PROMPT, repr=False)
    reason_prompt: str = field(default=REASON_PROMPT, repr=False)
    reason_system: str = field(default=REASON_SYSTEM, repr=False)
    reason_demos: tuple[ReasonDemo, ...] = field(default=REASON_DEMOS, repr=False)

    def __init__(
        self,
        width: int = 3,
        max_depth: int = 5,
        lcs: LCSConfig | None = None,
        prune_temperature: float = 0.4,
        reason_temperature: float = 0.1,
        fallback: str = "cot",
        seed: int = 0,
        max_option_triples: int = 8,
        first_choice: str = "auto",
        chain_choice: str = "auto",
        grounded_answers: bool = True,
        start_leaves: bool = True,
        start_leaf_chains: bool = False,
        chain_leaves: bool = True,
        prune_max_tokens: int = 64,
        reason_max_tokens: int = 256,
        prune_prompt: str = PRUNE_PROMPT,
        reason_prompt: str = REASON_PROMPT,
        reason_system: str = REASON_SYSTEM,
        reason_demos: tuple[ReasonDemo, ...] = REASON_DEMOS,
        **lcs_settings: Any,
    ) -> None:
        unknown = sorted(set(lcs_settings) - set(LCS_FIELDS))
        if unknown:
            raise TypeError(
                f"FastToGConfig got unexpected settings {', '.join(unknown)}; "
                f"its settings are {', '.join(self.setting_names())}"
            )
        base = lcs if lcs is not None else LCSConfig()
        if not isinstance(base, LCSConfig):
            raise InvalidSettingError(f"lcs must be an LCSConfig, got {type(base).__name__}")
        values = {
            "width": width,
            "max_depth": max_depth,
            "lcs": dataclasses.replace(base, **lcs_settings) if lcs_settings else base,
            "prune_temperature": prune_temperature,
            "reason_temperature": reason_temperature,
            "fallback": fallback,
            "seed": seed,
            "max_option_triples": max_option_triples,
            "first_choice": first_choice,
            "chain_choice": chain_choice,
            "grounded_answers": grounded_answers,
            "start_leaves": start_leaves,
            "start_leaf_chains": start_leaf_chains,
            "chain_leaves": chain_leaves,
            "prune_max_tokens": prune_max_tokens,
            "reason_max_tokens": reason_max_tokens,
            "prune_prompt": prune_prompt,
            "reason_prompt": reason_prompt,
            "reason_system": reason_system,
            "reason_demos": tuple(reason_demos),
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)
        self.__post_init__()

    def __post_init__(self) -> None:
        check_settings("FastToG", self, FASTTOG_LIMITS)  # documented maxima bound the cost
        if self.algorithm not in ALGORITHMS:
            raise InvalidSettingError(
                f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}"
            )
        if self.fallback not in FALLBACKS:
            raise InvalidSettingError(
                f"fallback must be one of {', '.join(FALLBACKS)}, got {self.fallback!r}"
            )
        for name in ("first_choice", "chain_choice"):
            value = getattr(self, name)
            if value not in FIRST_CHOICES:
                raise InvalidSettingError(
                    f"{name} must be one of {', '.join(FIRST_CHOICES)}, got {value!r}"
                )
        for name, fields in TEMPLATE_FIELDS.items():
            check_template("FastToG", name, getattr(self, name), fields)
        for demo in self.reason_demos:
            if not isinstance(demo, ReasonDemo):
                raise InvalidSettingError(
                    f"reason_demos must hold ReasonDemo values, got {type(demo).__name__}"
                )

    @classmethod
    def setting_names(cls) -> tuple[str, ...]:
        """Every keyword the constructor takes: its own fields, then the flat LCS fields.

        >>> "radius" in FastToGConfig.setting_names()
        True
        """
        return tuple(f.name for f in dataclasses.fields(cls)) + LCS_FIELDS

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> FastToGConfig:
        """A config with an opt-in preset's settings (:data:`~kgcore.methods.fasttog.presets.
        PRESETS`: ``"metaqa"``, the movie demonstrations), then ``overrides``.

        >>> FastToGConfig.preset("metaqa", width=2).width
        2
        >>> FastToGConfig.preset("movies")
        Traceback (most recent call last):
        ...
        kgcore.exceptions.InvalidSettingError: unknown FastToG preset 'movies'; the presets ...
        """
        from kgcore.methods.fasttog.presets import PRESETS

        if name not in PRESETS:
            raise InvalidSettingError(
                f"unknown FastToG preset {name!r}; the presets are {', '.join(sorted(PRESETS))}"
            )
        return cls(**{**PRESETS[name], **overrides})

    @classmethod
    def node_level(cls, **overrides: Any) -> FastToGConfig:
        """The paper's node-level ablation: communities of one node (M=1)."""
        return cls(**{"max_community_size": 1, **overrides})

    def with_overrides(self, **overrides: Any) -> FastToGConfig:
        """A copy with some settings changed (``None`` values are ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def lcs_config(self) -> LCSConfig:
        """The Local Community Search settings (:attr:`lcs`)."""
        return self.lcs

    # -- the LCS settings, read flat -----------------------------------------------------
    @property
    def max_community_size(self) -> int:
        """M: nodes per community at most."""
        return self.lcs.max_community_size

    @property
    def algorithm(self) -> str:
        """The community detection algorithm."""
        return self.lcs.algorithm

    @property
    def radius(self) -> int:
        """Hops of the sampled subgraph."""
        return self.lcs.radius

    @property
    def decay(self) -> float:
        """Sampling decay per hop."""
        return self.lcs.decay

    @property
    def max_subgraph_nodes(self) -> int:
        """Nodes of the sampled subgraph at most."""
        return self.lcs.max_subgraph_nodes

    @property
    def neighbors_per_hop(self) -> tuple[int, ...]:
        """Neighbours sampled per node, by hop."""
        return self.lcs.neighbors_per_hop

    @property
    def max_neighbors_per_node(self) -> int | None:
        """Neighbours read per node before sampling."""
        return self.lcs.max_neighbors_per_node

    @property
    def hub_degree(self) -> int | None:
        """Degree above which a node is a hub (not expanded)."""
        return self.lcs.hub_degree

    @property
    def coarse_top_k(self) -> int:
        """Candidates kept by coarse pruning."""
        return self.lcs.coarse_top_k

    @property
    def leaf_slots(self) -> int:
        """Candidate slots kept for leaves."""
        return self.lcs.leaf_slots
