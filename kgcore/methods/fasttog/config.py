"""FastToG settings, with the paper's defaults, under the one settings contract
(:mod:`kgcore.settings`: typed, ranged, checked when made).

The Local Community Search settings are an :class:`~kgcore.community.lcs.LCSConfig`, nested
as :attr:`FastToGConfig.lcs`; they may also be given flat (``FastToGConfig(radius=1)``) and
are folded into it. How one-node communities (a year, a genre, a language) are handled is the
small :class:`LeafSettings`, :attr:`FastToGConfig.leaves`.

Example
-------
>>> FastToGConfig().width, FastToGConfig().max_depth, FastToGConfig().lcs.max_community_size
(3, 5, 4)
>>> FastToGConfig.node_level().lcs.max_community_size
1
>>> FastToGConfig(radius=1).with_overrides(width=2).lcs.radius
1
>>> FastToGConfig(width=2.5)
Traceback (most recent call last):
...
kgcore.exceptions.InvalidSettingError: FastToG setting width must be an integer, got 2.5
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

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
from kgcore.paths.settings import PathSettings
from kgcore.settings import Settings, checked_settings
from kgcore.text.triple2text import SENTENCE_UNITS
from kgcore.validation import FASTTOG_LIMITS

FALLBACKS = ("cot", "cot-sc", "io", "none")
#: How the first W communities, and a chain's next community, are chosen
#: (``FastToGConfig.first_choice`` / ``chain_choice``); ``"auto"`` is ``"similarity"`` when
#: the engine has an embedder, else ``"llm"``.
FIRST_CHOICES = ("auto", "llm", "similarity")
#: How pruning options are labelled (``FastToGConfig.option_labels``): ``1.``, ``2.``, ... or
#: ``A.``, ``B.``, ... (the reference code's).
OPTION_LABEL_CHOICES = ("numbers", "letters")
#: The Local Community Search settings, which may be given flat to a :class:`FastToGConfig`.
LCS_FIELDS = tuple(f.name for f in dataclasses.fields(LCSConfig))


@checked_settings("FastToG leaves", limits={"kept": (0, 26)})
@dataclass(frozen=True)
class LeafSettings(Settings):
    """How FastToG handles one-node communities ("leaves": a node linked to the current
    community and to nothing else sampled, such as a year, a genre or a language).

    Community detection runs without the visited nodes, so such a node is a community of its
    own, and its modularity (about 0) would sink it below every real community. Each setting is
    a deviation from the paper (``docs/fasttog.md``).

    Parameters
    ----------
    kept : int
        Coarse pruning keeps up to this many one-node candidates, one linking relation at a
        time, when more than ``coarse_top_k`` candidates are adjacent; and, when above ``0``,
        the start community also shows the topic's one-node neighbours (their linking
        triples: the first choice and every reasoning step see them), and a community joining
        a chain shows its own one-node neighbours, from the Local Community Search step its
        chain later grows from (run as it joins). ``0`` is the paper's FastToG: none of the
        three (each one's figures: ``docs/research/fasttog_deviations.md``).
    start_chains : bool
        The one-node candidates may also start a chain. Off: the first choice offers only
        the candidates of two or more nodes (all of them when there is none).

    Example
    -------
    >>> LeafSettings().kept, LeafSettings().shown, LeafSettings(kept=0).shown
    (3, True, False)
    """

    kept: int = 3
    start_chains: bool = False

    @property
    def shown(self) -> bool:
        """Whether one-node neighbours are shown with the start community and with each
        community that joins a chain (``kept > 0``)."""
        return self.kept > 0


@checked_settings(
    "FastToG",
    limits=FASTTOG_LIMITS,
    choices={
        "fallback": FALLBACKS,
        "first_choice": FIRST_CHOICES,
        "chain_choice": FIRST_CHOICES,
        "option_labels": OPTION_LABEL_CHOICES,
        "sentence_per": SENTENCE_UNITS,
    },
    flat="lcs",
)
@dataclass(frozen=True)
class FastToGConfig(Settings):
    """Every FastToG knob.

    Paper defaults: ``width`` W=3, ``max_depth`` D_max=5, ``max_community_size`` M=4, Louvain,
    temperature 0.4 for pruning and 0.1 for reasoning. The sampling radius, decay and caps, the
    coarse top-k and the token caps are this project's defaults (the paper leaves them open).
    ``docs/fasttog.md`` lists every setting with its source.

    Parameters
    ----------
    width, max_depth :
        W and D_max.
    lcs : LCSConfig
        The community search settings (``max_community_size``, ``algorithm``, ``radius``, ...);
        each may also be given as a keyword of its own, which overrides ``lcs``'s.
    leaves : LeafSettings
        How one-node communities are kept and shown.
    paths : PathSettings
        Path planning before the communities: the relation paths the graph holds around the
        topic entities closest to the question are followed on the graph and their facts read
        first (:mod:`~kgcore.methods.fasttog.path_planning`; a deviation from the paper);
        ``PathSettings(max_hops=0)`` turns it off.
    prune_temperature, reason_temperature, prune_max_tokens, reason_max_tokens :
        Sampling of the pruning and reasoning replies.
    fallback : {"cot", "cot-sc", "io", "none"}
        How FastToG answers when the graph gave no answer.
    seed : int
        Seeds every sampling step (>= 0).
    max_option_triples : int
        Triples shown per candidate community.
    first_choice : {"auto", "llm", "similarity"}
        How the first W communities, which start the chains, are chosen among the offered
        candidates: ``"llm"``, the paper's fine pruning (a multiple-choice LLM call), or
        ``"similarity"``, the W whose text is closest to the question by sentence embeddings
        (cosine; no LLM call), as ToG's paper prunes with SentenceBERT to save calls (a
        deviation from FastToG's paper, see ``docs/fasttog.md``). ``"auto"`` (the default) is
        ``"similarity"`` when the engine is given an embedder (``FastToG(...,
        embedder=...)``, ``FastToGRetriever(..., embeddings=...)``; ``kgqa`` gives the offline
        all-MiniLM-L6-v2) and the paper's ``"llm"`` otherwise.
    chain_choice : {"auto", "llm", "similarity"}
        How a chain's next community is chosen at each later depth: ``"llm"``, the paper's
        single choice (an LLM call per chain and depth, ``{none}`` stops the chain), or
        ``"similarity"``, the candidate closest to the question (no LLM call); ``"auto"`` as
        for ``first_choice``.
    joint_limit : int
        With several topic entities, the start community opens with the nodes linked to every
        one of them ("Linked to each of A and B: C."), and their linking triples, when there
        are between 1 and ``joint_limit`` of them; ``0`` never. What joins the topic entities
        is where a question about all of them is answered (a deviation from the paper,
        ``docs/fasttog.md``). A question with one topic entity is not affected.
    topic_facts : int
        The start community opens with this many facts of the topic entities, those closest
        to the question by sentence embeddings (one per neighbour, through an unnamed
        compound node too; :mod:`~kgcore.methods.fasttog.topic_facts`), when the engine ranks
        by similarity (it has an embedder, or a choice is ``"similarity"``); ``0`` never.
        Sampling keeps few of a hub's facts, and the fact that answers "what currency does
        Mexico use" was rarely among them (a deviation from the paper, ``docs/fasttog.md``).
    grounded_answers : bool
        Keep only the answer names that the facts shown contain; a reply naming none of them
        counts as ``Unknown`` and the chains grow (a deviation from the paper).
    neighbour_answers : bool
        With ``grounded_answers``, an answer name the facts do not hold is still kept when
        it names a neighbour of a topic entity in the graph (the model knew a fact the
        graph confirms; :mod:`~kgcore.methods.fasttog.answer_acceptance`).
    shared_topics : bool
        With several topic entities, the first Local Community Search step ranks first the
        communities linked to more than one of them, and only those start chains when there
        are any (a deviation from the paper, ``docs/fasttog.md``); ``False`` treats them as
        the paper does, as one start community.
    option_labels : {"numbers", "letters"}
        How the pruning options are labelled: ``1.``, ``2.``, ... (the default: the local
        1.5B model avoided option "A") or ``A.``, ``B.``, ... (the reference code's).
    sentence_per, merge_shared :
        The rule-based Triple2Text the engine builds when it is given no textualizer (or
        ``"t2t"``): :class:`~kgcore.text.Triple2Text`'s parameters of the same names.
        ``sentence_per="triple", merge_shared=False`` is the paper's one sentence per triple.
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
    leaves: LeafSettings = field(default_factory=LeafSettings)
    paths: PathSettings = field(default_factory=PathSettings)
    prune_temperature: float = 0.4
    reason_temperature: float = 0.1
    fallback: str = "cot"
    seed: int = 0
    max_option_triples: int = 8
    first_choice: str = "auto"
    chain_choice: str = "auto"
    joint_limit: int = 5
    topic_facts: int = 3
    grounded_answers: bool = True
    neighbour_answers: bool = True
    shared_topics: bool = True
    option_labels: str = "numbers"
    sentence_per: str = "relation"
    merge_shared: bool = True
    prune_max_tokens: int = 64
    reason_max_tokens: int = 256
    prune_prompt: str = field(default=PRUNE_PROMPT, repr=False)
    reason_prompt: str = field(default=REASON_PROMPT, repr=False)
    reason_system: str = field(default=REASON_SYSTEM, repr=False)
    reason_demos: tuple[ReasonDemo, ...] = field(default=REASON_DEMOS, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason_demos", tuple(self.reason_demos))
        for name, fields in TEMPLATE_FIELDS.items():
            check_template("FastToG", name, getattr(self, name), fields)
        for demo in self.reason_demos:
            if not isinstance(demo, ReasonDemo):
                raise InvalidSettingError(
                    f"reason_demos must hold ReasonDemo values, got {type(demo).__name__}"
                )

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> FastToGConfig:
        """A config with an opt-in preset's settings (:data:`~kgcore.methods.fasttog.presets.
        PRESETS`: ``"metaqa"``, the movie demonstrations; ``"paper"``, the paper's FastToG, see
        :meth:`paper`), then ``overrides``.

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
    def paper(cls, **overrides: Any) -> FastToGConfig:
        """The paper's FastToG as written (Liang et al., AAAI 2025), then ``overrides``: the
        LLM chooses every community, rho = 0.5, the reference code's radius and sampling, one
        sentence per triple, and none of this project's additions (no one-node leaves, no
        joint start facts, no grounding of answers, no demonstrations);
        :data:`~kgcore.methods.fasttog.presets.PAPER` lists each setting and its source, and
        ``docs/fasttog.md`` says where the project's defaults differ and why.

        >>> config = FastToGConfig.paper()
        >>> config.first_choice, config.lcs.decay, config.grounded_answers, config.reason_demos
        ('llm', 0.5, False, ())
        >>> FastToGConfig.paper(width=2).width
        2
        """
        return cls.preset("paper", **overrides)

    @classmethod
    def node_level(cls, **overrides: Any) -> FastToGConfig:
        """The paper's node-level ablation: communities of one node (M=1)."""
        return cls(**{"max_community_size": 1, **overrides})
