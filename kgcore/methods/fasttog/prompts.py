"""FastToG's prompts, on the structure of the paper's prompt figure.

Pruning shows the question, the premise (what the chain holds so far) and the numbered
candidate communities (the selection). Reasoning shows the start community once, then each
chain's communities, every community a numbered fact, and asks to break the question into
steps; four short demonstrations with abstract names come first, as earlier chat exchanges
(:data:`REASON_DEMOS`), and their names are never taken as answers. The reply
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
from dataclasses import dataclass

from kgcore.llm.parsing import parse_answer
from kgcore.llm.protocol import ChatMessage, LLMRequest

PRUNE_SYSTEM = (
    "You pick which groups of knowledge-graph facts help answer a question. "
    "Reply only with numbers in braces."
)
#: The reasoning instruction: in the system message, so that it is part of the saved prefix
#: (the system message and the demonstrations) and is not evaluated again for every question;
#: after the facts it cost 46 prompt tokens (about 0.7 s) a reasoning call.
REASON_INSTRUCTION = (
    "Break the question into steps and answer each from the facts, in one short line. "
    "Then give the answer names from the facts in braces, separated by ';'. "
    "If the facts do not reach the answer, reply {Unknown}."
)
REASON_SYSTEM = (
    "You answer questions from knowledge-graph facts. The answer is never the entity in "
    "brackets. " + REASON_INSTRUCTION
)
PRUNE_REMINDER = "Reply only with the numbers of your choice in braces."
REASON_REMINDER = "Give the final answer names in braces, or {Unknown}."
#: Options are numbered: on MetaQA dev questions the local 1.5B model avoided option "A" and
#: often copied option text when options were lettered; with numbers its picks held the
#: relevant group. No example reply is shown: small models copy the example's labels.
OPTION_LABELS = "numbers"
#: Abstract names of the reasoning demonstrations (:data:`REASON_DEMOS`): refused as answers, so
#: a copied demonstration answer is never taken for a real one.
EXAMPLE_NAMES = (
    "Person Z",
    "Person A",
    "Person B",
    "Person Q",
    "Film Y",
    "Film W",
    "Film B",
    "Film C",
    "Actor X",
)


@dataclass(frozen=True)
class ReasonDemo:
    """One demonstration of the reasoning step, shown as an earlier chat exchange.

    ``facts`` and ``question`` fill the reasoning template (the user turn), ``reply`` is the
    assistant turn. Its names should be abstract (:data:`EXAMPLE_NAMES`), so that a copied
    demonstration is never a real answer.

    >>> ReasonDemo("1. Actor X.", "who is [Actor X]", "Answer: {Unknown}").reply
    'Answer: {Unknown}'
    """

    facts: str
    question: str
    reply: str


#: The reasoning demonstrations: the paper's prompt shows one short example inline. Three short
#: chat exchanges replace it here: one that reaches the answer through two facts, one whose
#: facts lack it (``{Unknown}``), and one that goes three steps through a shared writer, where
#: the writer is not the answer and the asked-about film's own director is one. Replaying the
#: depth-1 facts of 44 dev 2-hop questions with the local 1.5B model
#: (``benchmarks/fasttog_reason_replay.py``), the inline example (a language question answered
#: ``{Z}``) was copied into replies: "Film Y is in language Z", "English" or "French" for a
#: director. With the first two exchanges the model named the answer in 23 of the 28
#: questions whose facts hold it (18 of 29 before), said ``Unknown`` for 12 of the 16 whose facts
#: lack it (6 of 15), and wrote 47 tokens a reply instead of 84 (see the README's deviations).
#: The third: replaying the depth-1 facts of the 43 dev 3-hop questions FastToG answered at
#: depth 1, the model named a gold answer in 20 of the 25 whose facts hold one, against 16 of 25
#: with the first two alone; before it, it often answered the shared writer or director itself.
#: The fourth stops after two steps ("the director of [Film Y] also directed which films"): with
#: three, the model often chained on past the answer (the director of a film that director made)
#: or answered the director itself. Running FastToG to depth 1 on dev questions 51+
#: (``benchmarks/fasttog_metaqa.py --max-depth 1 --fallback none --first-choice llm``, against
#: ``--demos three``), a gold answer was named for 16 instead of 13 of the 27 2-hop questions
#: with "also", 13 instead of 14 of 20 other 2-hop ones, 9 instead of 7 of 20 3-hop and 17
#: instead of 15 of 20 1-hop
#: (11 gained, 5 lost). A variant with a distracting second chain in its facts gained more on
#: "also" questions (19) but lost 4 other 2-hop ones to ``{Unknown}``; placed second, the
#: demonstration gained less (7 gained, 5 lost on the first three sets).
REASON_DEMOS: tuple[ReasonDemo, ...] = (
    ReasonDemo(
        facts=(
            "1. Actor X.\nChain 1:\n"
            "2. Film Y starred actors Actor X. Film Y release year 1990.\n"
            "3. Film Y; Film W directed by Person Z."
        ),
        question="who directed the films starred by [Actor X]",
        reply=(
            "Steps: Actor X starred in Film Y (fact 2); Film Y was directed by Person Z "
            "(fact 3). Answer: {Person Z}"
        ),
    ),
    ReasonDemo(
        facts="1. Person A.\nChain 1:\n2. Film B written by Person A. Film B has genre Drama.",
        question="what languages are the films written by [Person A] in",
        reply=(
            "Steps: Person A wrote Film B (fact 2); the facts do not give Film B's language. "
            "Answer: {Unknown}"
        ),
    ),
    ReasonDemo(
        facts=(
            "1. Film Y written by Person Z. Film Y directed by Person B.\nChain 1:\n"
            "2. Film C written by Person Z. Film C directed by Person Q. "
            "Film C release year 1990."
        ),
        question="who directed the films written by the writer of [Film Y]",
        reply=(
            "Steps: the writer of Film Y is Person Z (fact 1); Person Z wrote Film Y and Film C "
            "(facts 1, 2); Film Y was directed by Person B and Film C by Person Q (facts 1, 2). "
            "Answer: {Person B; Person Q}"
        ),
    ),
    ReasonDemo(
        facts=(
            "1. Film Y release year 1990.\nChain 1:\n"
            "2. Film Y; Film W; Film B directed by Person Z. Film W has genre Drama."
        ),
        question="the director of [Film Y] also directed which films",
        reply=(
            "Steps: the director of Film Y is Person Z (fact 2); Person Z also directed Film W "
            "and Film B (fact 2). Answer: {Film W; Film B}"
        ),
    ),
)
#: The pruning prompt (``str.format`` fields: ``question``, ``premise``, ``options``, the
#: numbered candidates, and ``ask``, the question of the choice); literal braces doubled.
PRUNE_PROMPT = "Question: {question}\nPremise: {premise}\nSelection:\n{options}\n{ask}"
#: The reasoning prompt (fields: ``question`` and ``facts``, the numbered facts); literal braces
#: doubled. The demonstrations (:data:`REASON_DEMOS`) are written with it too. The facts come
#: first and the question after them, as in ToG's reasoning prompt: replaying the depth-1
#: facts of 44 dev 2-hop questions, the local 1.5B model wrote half as many tokens and named a
#: thing of the asked kind more often than with the question first. The instruction is in
#: :data:`REASON_SYSTEM`.
REASON_PROMPT = "Facts:\n{facts}\nQuestion: {question}"
#: Each template's fields, by the config field that holds it.
TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    "prune_prompt": frozenset({"question", "premise", "options", "ask"}),
    "reason_prompt": frozenset({"question", "facts"}),
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
    demos: Sequence[ReasonDemo] = REASON_DEMOS,
    system: str = REASON_SYSTEM,
) -> LLMRequest:
    """Reasoning: the start community once, then each chain's communities, as numbered facts.

    ``template``: see :data:`REASON_PROMPT`; ``demos`` (:data:`REASON_DEMOS`) come first as
    earlier exchanges, written with the same template; ``system`` (:data:`REASON_SYSTEM`)
    holds the instruction.

    >>> request = reason_request("who directed [X]", "X.", [["X directed by Y."]])
    >>> [m.role for m in request.messages][:4]
    ['system', 'user', 'assistant', 'user']
    >>> print(request.messages[-1].content.splitlines()[:4])
    ['Facts:', '1. X.', 'Chain 1:', '2. X directed by Y.']
    >>> request.fixed_prefix  # every reasoning request opens with these nine messages
    9
    """
    number = 1
    lines = [f"{number}. {start}"]
    for index, chain in enumerate(chains, start=1):
        lines.append(f"Chain {index}:")
        for text in chain:
            number += 1
            lines.append(f"{number}. {text}")
    shown: list[ChatMessage] = [ChatMessage("system", system)]
    for demo in demos:
        shown.append(ChatMessage("user", template.format(question=demo.question, facts=demo.facts)))
        shown.append(ChatMessage("assistant", demo.reply))
    prompt = template.format(question=question, facts="\n".join(lines))
    shown.append(ChatMessage("user", prompt))
    return LLMRequest(
        messages=tuple(shown),
        purpose="reason",
        temperature=temperature,
        max_tokens=max_tokens,
        fixed_prefix=len(shown) - 1,  # the system message and the demonstrations
    )


def parse_braced_answer(text: str) -> str | None:
    """The answer in braces of a reply, or ``None``: no braces, ``{Unknown}`` or the example.

    Total: any string gives a value or ``None``; only the first :data:`MAX_REPLY_CHARS`
    characters are read.

    >>> parse_braced_answer("Steps: ... Answer: {Shane}")
    'Shane'
    >>> parse_braced_answer("{Person Z}") is None  # a demonstration's answer
    True
    >>> parse_braced_answer("{Person B; Shane}")  # a demonstration's name is dropped
    'Shane'
    """
    text = str(text)[:MAX_REPLY_CHARS]
    if not _FILLED_BRACES.search(text):
        return None
    answer = parse_answer(text)
    if answer is None:
        return None
    if all(part.strip().casefold() in _EXAMPLE_KEYS for part in answer.split(",")):
        return None
    parts = answer.split(";")
    kept = [part.strip() for part in parts if part.strip().casefold() not in _EXAMPLE_KEYS]
    if len(kept) < len(parts):
        return "; ".join(part for part in kept if part) or None
    return answer
