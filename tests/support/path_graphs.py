"""A small family graph for path planning: a three-hop question through an unnamed compound
node, a loop-back question, and a relation that reaches too many nodes.

``Ann`` -child-> ``Bob``; ``Bob``'s parents are ``Ann`` and ``Cid`` (``parent``), joined to
``Cid`` through the compound node ``m.0marriage`` (``spouse / spouse``); ``Cid`` was born in
``Aurich``. So "the birthplace of the spouse of Ann 's child 's parent" has no answer, but
"the birthplace of the spouse of Ann" (two hops, the first through the compound node) is
``Aurich``, and "the birthplace of Ann 's child 's parent" (three hops) is ``Aurich`` reached by
a walk that does not come back to Ann. ``Bob`` is married to ``Dee`` through ``m.0wedding``, so
"the birthplace of the spouse of Ann 's child" is ``Emden``, three hops, one through a compound
node. ``Song`` is its own recording (a same-name self-loop); ``Solo`` has nothing but one.
"""

from __future__ import annotations

from kgcore.types import Triple

FAMILY = [
    Triple("Ann", "child", "Bob"),
    Triple("Bob", "parent", "Ann"),
    Triple("Bob", "parent", "Cid"),
    Triple("Ann", "marriage.spouse", "m.0marriage"),
    Triple("m.0marriage", "marriage.spouse", "Cid"),
    Triple("Cid", "birthplace", "Aurich"),
    Triple("Ann", "birthplace", "Leer"),
    Triple("Bob", "marriage.spouse", "m.0wedding"),
    Triple("m.0wedding", "marriage.spouse", "Dee"),
    Triple("Dee", "birthplace", "Emden"),
    Triple("Song", "recording", "Song"),
    Triple("Song", "release", "Live Album"),
    Triple("Solo", "recording", "Solo"),
    *(Triple(f"Person {i}", "citizen of", "Frisia") for i in range(60)),
    Triple("Cid", "citizen of", "Frisia"),
]
