"""ToG's prompts, as ``str.format`` templates (literal braces doubled), its system prompts and
its format reminders.

Every template is a default that :class:`~kgcore.methods.tog.ToGConfig` lets a caller
override; a replacement must keep the template's fields (:data:`TEMPLATE_FIELDS`).

Example
-------
>>> print(REASON_PROMPT.format(triples="(Cleopatra, directed by, J. Mankiewicz)", question="who?"))
Knowledge triplets:
(Cleopatra, directed by, J. Mankiewicz)
Question: who?
Reply with the answer names from the triplets in braces. If the triplets lack them, reply {Unknown}.
>>> sorted(TEMPLATE_FIELDS["reason_prompt"])
['question', 'triples']
"""

from __future__ import annotations

from kgcore.methods.kernel import GRAPH_SYSTEM

#: The system prompt of relation pruning and entity scoring.
SYSTEM = GRAPH_SYSTEM
#: The system prompt of the reasoning (sufficiency) step.
REASON_SYSTEM = (
    "You answer questions from knowledge-graph triplets. The answer is never the entity in "
    "brackets."
)

#: The relation-pruning prompt (``str.format`` fields: question, entity, options, width).
RELATION_PROMPT = (
    "Question: {question}\nEntity: {entity}\nRelations:\n{options}\n"
    "Pick up to {width} relations that help answer the question and score them "
    "(scores sum to 1). Reply like {{A: 0.7, B: 0.3}}."
)
#: The entity-scoring prompt (fields: question, entity, relation, options).
ENTITY_PROMPT = (
    "Question: {question}\nEntity: {entity}\nRelation: {relation}\n"
    "Candidates:\n{options}\n"
    "Score how much each candidate helps answer the question (scores sum to 1). "
    "Reply like {{A: 0.5, B: 0.5}}."
)
# Triplets first, then the question, and the answer itself as the "yes": the local 1.5B model
# answered a bare "No" (question first) or a bare "Yes" (no answer) to the paper's yes/no
# wording, even with the answer in the triplets. "Not enough" is asked as {Unknown}, as
# FastToG asks it. The replays and runs: docs/research/code_measurements.md#tog-reasoning-prompt.
#: The reasoning prompt (fields: triples, question).
REASON_PROMPT = (
    "Knowledge triplets:\n{triples}\nQuestion: {question}\n"
    "Reply with the answer names from the triplets in braces. If the triplets lack "
    "them, reply {{Unknown}}."
)
#: Each template's fields, by the config field that holds it.
TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    "relation_prompt": frozenset({"question", "entity", "options", "width"}),
    "entity_prompt": frozenset({"question", "entity", "relation", "options"}),
    "reason_prompt": frozenset({"triples", "question"}),
}

#: ToG's format reminder after an entity list (entity linking) that could not be read.
ENTITY_REMINDER = 'Reply with a JSON list of entity names, e.g. ["Ada Lovelace"].'
#: The format reminder after relation scores that could not be read.
RELATION_REMINDER = "Reply only with letters and scores, e.g. {A: 0.7, B: 0.3}."
#: The format reminder after entity scores that could not be read.
SCORE_REMINDER = "Reply only with letters and scores, e.g. {A: 0.5, B: 0.5}."
#: The format reminder after a reasoning reply that could not be read.
REASON_REMINDER = "Reply only with the answer names in braces, or {Unknown}."
