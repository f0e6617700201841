"""CGPE's prompts, as ``str.format`` templates (literal braces doubled), and its reminders.

Every template is a default that :class:`~kgcore.methods.cgpe.CGPEConfig` lets a caller
override; a replacement must keep the template's fields (:data:`TEMPLATE_FIELDS`).

Example
-------
>>> request("Question: {question}", "cgpe_clues", 48, question="who?").purpose
'cgpe_clues'
>>> sorted(TEMPLATE_FIELDS["step2_prompt"])
['clues', 'max_branches', 'options', 'question']
"""

from __future__ import annotations

from typing import Any

from kgcore.llm.protocol import LLMRequest
from kgcore.methods.kernel import GRAPH_SYSTEM

SYSTEM = GRAPH_SYSTEM

#: Clue extraction (fields: ``question``).
CLUE_PROMPT = (
    "Question: {question}\nList the clues of the question: the named entities and the "
    "things it asks about, as a JSON list of short strings. Example: for 'which city was "
    "the wife of [John Smith] born in' reply "
    '["John Smith", "wife", "city"].'
)
#: Step 1, summaries against the unused clues (fields: ``question``, ``clues``, ``ends``,
#: ``options``).
STEP1_PROMPT = (
    "Question: {question}\nClues left: {clues}\nFrom {ends} the graph leads "
    "through:\n{options}\nWhich of these lead to a clue left? "
    "Reply like {{A: clue}}, or {{none}}."
)
#: Step 2, candidates by type and name (fields: ``question``, ``clues``, ``options``,
#: ``max_branches``).
STEP2_PROMPT = (
    "Question: {question}\nClues left: {clues}\nCandidates (type: name):\n{options}"
    "\nWhich candidates match a clue left? Reply with up to {max_branches} "
    "letters, e.g. {{A, C}}, or {{none}}."
)
# The example names no "none": the local 1.5B model copied the example verbatim, and a copied
# "{A: clue, B: none}" dropped entity B; a copied "{A: clue, B: clue}" keeps every entity on
# its step-1 clue (the runs: docs/research/code_measurements.md#cgpe-step3-example).
#: Step 3, the clue each entity matches (fields: ``question``, ``clues``, ``options``).
STEP3_PROMPT = (
    "Question: {question}\nClues left: {clues}\nEntities:\n{options}"
    "\nWhich clue left does each entity match? Reply like {{A: clue, B: clue}}, "
    "with none for an entity that matches no clue."
)
#: The answer over the explored paths (fields: ``question``, ``paths``).
ANSWER_PROMPT = (
    "Question: {question}\nKnowledge paths:\n{paths}\n"
    "Answer the question using these paths. Give the answer in braces, "
    "like: {{answer}}."
)
#: Each template's fields, by the config field that holds it.
TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    "clue_prompt": frozenset({"question"}),
    "step1_prompt": frozenset({"question", "clues", "ends", "options"}),
    "step2_prompt": frozenset({"question", "clues", "options", "max_branches"}),
    "step3_prompt": frozenset({"question", "clues", "options"}),
    "answer_prompt": frozenset({"question", "paths"}),
}

CLUE_REMINDER = 'Reply only with a JSON list of short strings, e.g. ["John Smith", "wife"].'
STEP1_REMINDER = "Reply only like {A: clue}, or {none}."
STEP2_REMINDER = "Reply only with letters in braces, e.g. {A, C}, or {none}."
STEP3_REMINDER = "Reply only like {A: clue, B: clue}, or none for no match."
ANSWER_REMINDER = "Reply only with the answer in braces, like: {answer}."


def request(template: str, purpose: str, max_tokens: int, **fields: Any) -> LLMRequest:
    """One CGPE step's request: ``template`` filled with ``fields``, CGPE's system prompt."""
    return LLMRequest.from_prompt(
        template.format(**fields), purpose=purpose, system=SYSTEM, max_tokens=max_tokens
    )
