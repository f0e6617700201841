"""What a FastToG run returns.

Example
-------
>>> r = FastToGResult(question="q", answer="a", method="fasttog")
>>> r.to_dict()["chains"]
[]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgcore.methods.result import MethodResult
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
