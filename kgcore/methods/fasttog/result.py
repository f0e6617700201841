"""What a FastToG run returns.

Example
-------
>>> r = FastToGResult(question="q", answer="a", method="fasttog")
>>> r.to_dict()["chains"]
[]
>>> start = ChainCommunity(-1, 0, ("Ivy",), (Triple("Ivy", "reports_to", "Frank"),), (),
...                        "Ivy reports to Frank.")
>>> r = FastToGResult(question="who does [Ivy] report to", answer="Frank", method="fasttog",
...                   start=start)
>>> [(e.text, e.metadata["kind"], e.metadata["supports_answer"]) for e in r.evidence()]
[('Ivy reports to Frank.', 'start', True)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgcore.methods.result import Evidence, MethodResult, answer_names, names_any, supporting_first
from kgcore.types import Triple


@dataclass(frozen=True)
class ChainCommunity:
    """A community on a reasoning chain (``chain`` is -1 for the start community)."""

    chain: int
    depth: int
    nodes: tuple[str, ...]
    triples: tuple[Triple, ...]
    links: tuple[Triple, ...]
    text: str
    modularity: float = 0.0


@dataclass
class FastToGResult(MethodResult):
    """A FastToG answer with the community chains that support it.

    ``depth`` is how many communities the longest chain reached; ``fell_back`` says whether
    the answer came from the IO/CoT fallback after ``D_max`` (or when no chain could start).
    ``pruned`` holds the candidate communities offered to the LLM that it did not choose
    (``chain`` is -1 for the first choice, else the chain they were offered to; ``depth`` is
    the depth they would have had), for pictures and error analysis.
    """

    topic_entities: list[str] = field(default_factory=list)
    start: ChainCommunity | None = None
    chains: list[list[ChainCommunity]] = field(default_factory=list)
    lcs_steps: int = 0
    pruned: list[ChainCommunity] = field(default_factory=list)

    def communities(self) -> list[ChainCommunity]:
        """Every community on a chain, chain by chain, in order."""
        return [c for chain in self.chains for c in chain]

    def reasoning_texts(self) -> list[str]:
        """The facts reasoning sees: the start community, then every chain's communities."""
        parts = [self.start.text] if self.start else []
        return parts + [c.text for c in self.communities()]

    def reasoning_nodes(self) -> list[str]:
        """The nodes of the facts reasoning sees, in the order it sees them."""
        communities = ([self.start] if self.start else []) + self.communities()
        triples = (t for c in communities for t in (*c.links, *c.triples))
        return list(dict.fromkeys(name for t in triples for name in (t.head, t.tail)))

    def evidence(self) -> list[Evidence]:
        """The communities reasoning read, those that name the answer first: the start
        community (``kind="start"``: the topic's facts, the topic facts closest to the
        question, the followed paths' facts, the nodes joining several topic entities: what
        decided many answers), then the chains' communities (``kind="chain"``, by depth, then
        chain; a followed path that gave the answer is chain 0).

        Each piece's metadata holds the run's (:meth:`run_metadata`, ``source="fasttog"``),
        the community's (``chain``, ``depth``, ``entities``, ``triples``, ``modularity``) and
        ``supports_answer``, whether its nodes or text name the answer.
        """
        names = answer_names(self.answer)
        run = {**self.run_metadata(), "topic_entities": list(self.topic_entities)}
        run["source"] = "fasttog"
        start = [self.start] if self.start is not None and self.start.text else []
        chains = sorted(self.communities(), key=lambda c: (c.depth, c.chain))
        items = [
            Evidence(
                c.text,
                {
                    **run,
                    "kind": "start" if c.chain == -1 else "chain",
                    "chain": c.chain,
                    "depth": c.depth,
                    "entities": list(c.nodes),
                    "triples": [list(t) for t in (*c.links, *c.triples)],
                    "modularity": c.modularity,
                    "supports_answer": names_any(names, c.text, c.nodes),
                },
            )
            for c in (*start, *chains)
        ]
        reached = self.reached_answers()
        if reached:  # every answer of the set, whatever the other texts show
            label, answers = reached
            meta = {**run, "kind": "answers", "chain": -2, "depth": 0, "entities": answers}
            meta |= {"triples": [], "modularity": None, "answers": answers}
            text = f"Answers reached by the path {label!r} ({len(answers)}): {'; '.join(answers)}."
            items.insert(0, Evidence(text, {**meta, "supports_answer": True}))
        return supporting_first(items)

    def reached_answers(self) -> tuple[str, list[str]] | None:
        """The followed path's label and the whole answer set it reached, when the method
        answered by it: the path that gave the answer (``extra["answers"]``), else the followed
        path whose set holds the most of the answer's names; ``None`` when no set holds one or
        the set is the answer's one name.

        >>> r = FastToGResult(question="q", answer="A; B", method="fasttog",
        ...                   extra={"reached": [{"label": "p", "answers": ["A", "B", "C"]}]})
        >>> r.reached_answers()
        ('p', ['A', 'B', 'C'])
        """
        names = set(answer_names(self.answer))
        if not names:
            return None
        label = str((self.extra.get("path") or {}).get("label", ""))
        found = list(self.extra.get("answers") or [])
        if not found:
            sets = [
                (str(r.get("label", "")), list(r.get("answers") or []))
                for r in self.extra.get("reached") or []
            ]
            label, found = max(sets, key=lambda s: len(set(s[1]) & names), default=("", []))
        if not set(found) & names or len(found) < 2:
            return None
        return label, found

    def draw(self, path: str | Path, **options: Any) -> Path:
        """Draw the chains to an image (see :func:`kgcore.visualize.draw_fasttog`).

        Example
        -------
        >>> import tempfile, pathlib
        >>> r = FastToGResult(question="q", answer="a", method="fasttog", topic_entities=["a"])
        >>> r.draw(pathlib.Path(tempfile.mkdtemp()) / "chain.png").suffix
        '.png'
        """
        from kgcore.visualize.fasttog import draw_fasttog  # matplotlib only when drawing

        return draw_fasttog(self, path, **options)
