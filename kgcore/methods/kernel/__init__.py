"""The methods' kernel: what every QA method shares, so a method module holds only its algorithm.

- :mod:`~kgcore.methods.kernel.prompts`: system prompts, how triples and options are shown,
  the IO and CoT requests, trace records;
- :mod:`~kgcore.methods.kernel.answer_reading`: the one way from a reply to an answer
  (:func:`read_answer`, :func:`check_answer`, :func:`final_answer`);
- :mod:`~kgcore.methods.kernel.answer_sanity`: the sanity check of an answer no graph vouches
  for (:func:`sane_answer`);
- :mod:`~kgcore.methods.kernel.settings`: checks of the methods' prompt templates and
  relation verbalisers (the settings contract itself is :mod:`kgcore.settings`);
- :mod:`~kgcore.methods.kernel.steps`: parse-and-retry (:func:`ask_parsed`), entity linking
  (:func:`link_steps`), the prompt-only answers and fallbacks (IO, CoT, CoT-SC);
- :mod:`~kgcore.methods.kernel.meter`: the accounting of one run (:class:`RunMeter`);
- :mod:`~kgcore.methods.kernel.budget`: a run's cost cap (:class:`Budget`,
  :func:`within_budget`);
- :mod:`~kgcore.methods.kernel.progress`: step records passed to listeners as they are made
  (:func:`listening_to_steps`).

A method imports from here, :mod:`kgcore.methods.base` and :mod:`kgcore.methods.result`, and
never from another method's module (``tests/unit/kgcore/test_import_rules.py`` checks it).

Example
-------
>>> from kgcore.llm import ScriptedLLM, run_steps
>>> run_steps(cot_steps("capital of France?"), ScriptedLLM(["So {Paris}"])).answer
'Paris'
"""

from kgcore.methods.kernel.answer_reading import (
    check_answer,
    choice_answer,
    drop_topic_answer,
    final_answer,
    grounded_answer,
    named_answer,
    node_answer,
    offered_choices,
    parse_graph_answer,
    read_answer,
    sentence_answer,
    shown_or_known,
    topic_names,
)
from kgcore.methods.kernel.answer_sanity import asks_for_number, insanity, instructs, sane_answer
from kgcore.methods.kernel.budget import BUDGET_KEY, Budget, check_budget, within_budget
from kgcore.methods.kernel.meter import RunMeter
from kgcore.methods.kernel.progress import StepListener, listening_to_steps, report_step
from kgcore.methods.kernel.prompts import (
    ANSWER_SYSTEM,
    GRAPH_SYSTEM,
    MAX_RECORDED_PRUNED,
    MAX_TRACE_REPLY,
    UNKNOWN,
    StepTrace,
    cot_request,
    io_request,
    options_text,
    relation_text,
    step_record,
    triple_text,
)
from kgcore.methods.kernel.settings import check_template, check_verbalizer
from kgcore.methods.kernel.steps import (
    ENTITY_REMINDER,
    Linked,
    answer_steps,
    ask_parsed,
    cot_sc_steps,
    cot_steps,
    io_steps,
    link_steps,
    majority_answer,
    prompt_only_steps,
)

__all__ = [
    "ANSWER_SYSTEM",
    "BUDGET_KEY",
    "Budget",
    "check_budget",
    "within_budget",
    "ENTITY_REMINDER",
    "GRAPH_SYSTEM",
    "MAX_RECORDED_PRUNED",
    "MAX_TRACE_REPLY",
    "UNKNOWN",
    "Linked",
    "RunMeter",
    "answer_steps",
    "ask_parsed",
    "check_template",
    "check_verbalizer",
    "cot_request",
    "cot_sc_steps",
    "cot_steps",
    "check_answer",
    "choice_answer",
    "drop_topic_answer",
    "final_answer",
    "grounded_answer",
    "io_request",
    "io_steps",
    "link_steps",
    "majority_answer",
    "named_answer",
    "node_answer",
    "offered_choices",
    "options_text",
    "parse_graph_answer",
    "prompt_only_steps",
    "read_answer",
    "relation_text",
    "asks_for_number",
    "insanity",
    "instructs",
    "sane_answer",
    "shown_or_known",
    "sentence_answer",
    "StepListener",
    "StepTrace",
    "listening_to_steps",
    "report_step",
    "step_record",
    "topic_names",
    "triple_text",
]
