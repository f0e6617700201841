"""A small company graph (a user's own CSV graph, as in issue 49): who reports to whom, who
works in which team, who is based where.

Its question :data:`REPORTS_TO_QUESTION` is answered by one fact of the topic entity,
:data:`REPORTS_TO_FACT`, which FastToG reads in its start community (the topic's facts
closest to the question), not in a chain: the documents must carry the start community for
the answer to be supported by them.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> InMemoryGraphStore.from_triples(ORG_TRIPLES).num_triples()
12
"""

from __future__ import annotations

from kgcore.types import Triple

ORG_TRIPLES: tuple[Triple, ...] = (
    Triple("Ivy Patel", "reports_to", "Frank Liu"),
    Triple("Ivy Patel", "works_in", "Payments"),
    Triple("Ivy Patel", "based_in", "Berlin"),
    Triple("Frank Liu", "reports_to", "Grace Kim"),
    Triple("Frank Liu", "works_in", "Payments"),
    Triple("Grace Kim", "works_in", "Finance"),
    Triple("Hugo Brandt", "reports_to", "Frank Liu"),
    Triple("Hugo Brandt", "works_in", "Payments"),
    Triple("Payments", "part_of", "Finance"),
    Triple("Jon Ode", "reports_to", "Grace Kim"),
    Triple("Jon Ode", "based_in", "Berlin"),
    Triple("Berlin", "located_in", "Germany"),
)

REPORTS_TO_QUESTION = "who does [Ivy Patel] report to"
#: The fact that answers :data:`REPORTS_TO_QUESTION`, as the rule-based Triple2Text writes it.
REPORTS_TO_FACT = "Ivy Patel reports to Frank Liu"
REPORTS_TO_ANSWER = "Frank Liu"
