"""FastToG's prompts, on the structure of the paper's prompt figure.

Pruning shows the question, the premise (what the chain holds so far) and the numbered
candidate communities (the selection). Reasoning shows the start community once, then each
chain's communities, every community a numbered fact, asks to break the question into steps
and shows one short example whose answer cannot be copied as a real one ("Z"). The reply
may think aloud, but its final answer must be in braces: a reply without braces is not an
answer (:func:`parse_braced_answer`).

Example
-------
>>> request = prune_request("who directed [X]", "X.", ["X directed by Y."], max_choices=1)
>>> request.purpose
'prune'
>>> parse_braced_answer("The director is Y.") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgcore.llm.parsing import parse_answer
from kgcore.llm.protocol import LLMRequest

PRUNE_SYSTEM = (
    "You pick which groups of knowledge-graph facts help answer a question. "
    "Reply only with numbers in braces."
)
REASON_SYSTEM = (
    "You answer questions from knowledge-graph facts. The answer is never the entity in brackets."
)
PRUNE_REMINDER = "Reply only with the numbers of your choice in braces."
REASON_REMINDER = "Give the final answer names in braces, or {Unknown}."
#: Options are numbered: on MetaQA dev questions the local 1.5B model avoided option "A" and
#: often copied option text when options were lettered; with numbers its picks held the
#: relevant group. No example reply is shown: small models copy the example's labels.
OPTION_LABELS = "numbers"
#: The reasoning example: abstract names, so a copied example answer is never a real entity
#: (and :data:`EXAMPLE_NAMES` are refused as answers). It shows the reply's form (steps in
#: one line, then the answer in braces) and asks for a language, not a film: with an example
#: that asked for films, the local model answered the films of the chain for questions about
#: their languages, years or directors (dev 2-hop, see the README's deviations table).
EXAMPLE_NAMES = ("Z", "Film Y", "Actor X")
REASON_EXAMPLE = (
    'Example reply, for the question "what language are the films of [Actor X] in": '
    "Steps: Actor X starred in Film Y (fact 1); Film Y is in language Z (fact 2). Answer: {Z}"
)
#: The pruning prompt (``str.format`` fields: ``question``, ``premise``, ``options``, the
#: numbered candidates, and ``ask``, the question of the choice); literal braces doubled.
PRUNE_PROMPT = "Question: {question}\nPremise: {premise}\nSelection:\n{options}\n{ask}"
#: The reasoning prompt (fields: ``question``, ``example``, :data:`REASON_EXAMPLE`, and
#: ``facts``, the numbered facts); literal braces doubled. The facts come first and the
#: question after them, as in ToG's reasoning prompt: replaying the depth-1 facts of 44 dev
#: 2-hop questions, the local 1.5B model wrote half as many tokens and named a thing of the
#: asked kind more often than with the question first.
REASON_PROMPT = (
    "Facts:\n{facts}\n"
    "Question: {question}\n"
    "{example}\n"
    "Break the question into steps and answer each from the facts, in one short line. "
    "Then give the answer names from the facts in braces, separated by ';'. "
    "If the facts do not reach the answer, reply {{Unknown}}."
)
#: Each template's fields, by the config field that holds it.
TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    "prune_prompt": frozenset({"question", "premise", "options", "ask"}),
    "reason_prompt": frozenset({"question", "example", "facts"}),
}
#: Replies are untrusted: at most this many characters are parsed.
MAX_REPLY_CHARS = 4000
_EXAMPLE_KEYS = frozenset(name.casefold() for name in EXAMPLE_NAMES)
_FILLED_BRACES = re.compile(r"\{[^{}]*\S[^{}]*\}")


def prune_request(
    question: str,
    premise: str,
    options: Sequence[str],
    max_choices: int,
    temperature: float = 0.4,
    max_tokens: int = 64,
    allow_none: bool = True,
    template: str = PRUNE_PROMPT,
) -> LLMRequest:
    """Fine pruning: choose up to ``max_choices`` of the numbered options.

    ``allow_none=False`` (the first choice, where a chain must start) offers no ``{none}``;
    ``template``: see :data:`PRUNE_PROMPT`.
    """
    listed = "\n".join(f"{i}. {text}" for i, text in enumerate(options, start=1))
    if max_choices == 1:
        ask = (
            "Which ONE group has the facts needed to answer the question? "
            "Reply with its number in braces."
        )
    else:
        ask = (
            f"Which groups (up to {max_choices}) have the facts needed to answer the question? "
            "Reply with their numbers in braces."
        )
    if allow_none:
        ask += " If none helps, reply {none}."
    prompt = template.format(question=question, premise=premise, options=listed, ask=ask)
    return LLMRequest.from_prompt(
        prompt, purpose="prune", system=PRUNE_SYSTEM, temperature=temperature, max_tokens=max_tokens
    )


def reason_request(
    question: str,
    start: str,
    chains: Sequence[Sequence[str]],
    temperature: float = 0.1,
    max_tokens: int = 256,
    template: str = REASON_PROMPT,
) -> LLMRequest:
    """Reasoning: the start community once, then each chain's communities, as numbered facts.

    ``template``: see :data:`REASON_PROMPT`.
    """
    number = 1
    lines = [f"{number}. {start}"]
    for index, chain in enumerate(chains, start=1):
        lines.append(f"Chain {index}:")
        for text in chain:
            number += 1
            lines.append(f"{number}. {text}")
    facts = "\n".join(lines)
    prompt = template.format(question=question, example=REASON_EXAMPLE, facts=facts)
    return LLMRequest.from_prompt(
        prompt,
        purpose="reason",
        system=REASON_SYSTEM,
        temperature=temperature,
        max_tokens=max_tokens,
    )


def parse_braced_answer(text: str) -> str | None:
    """The answer in braces of a reply, or ``None``: no braces, ``{Unknown}`` or the example.

    Total: any string gives a value or ``None``; only the first :data:`MAX_REPLY_CHARS`
    characters are read.

    >>> parse_braced_answer("Steps: ... Answer: {Shane}")
    'Shane'
    >>> parse_braced_answer("{Z}") is None  # the example's answer
    True
    """
    text = str(text)[:MAX_REPLY_CHARS]
    if not _FILLED_BRACES.search(text):
        return None
    answer = parse_answer(text)
    if answer is None or answer.strip().casefold() in _EXAMPLE_KEYS:
        return None
    return answer
