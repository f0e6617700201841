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

from collections.abc import Sequence
from dataclasses import dataclass
from string import ascii_uppercase

from kgcore.exceptions import ConfigurationError
from kgcore.llm.parsing import has_braced_answer, parse_answer_text
from kgcore.llm.protocol import ChatMessage, LLMRequest
from kgcore.methods.kernel.answer_reading import shown_or_known

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
#: The pruning reminder for each way of labelling the options (``FastToGConfig.option_labels``).
PRUNE_REMINDERS: dict[str, str] = {
    "numbers": PRUNE_REMINDER,
    "letters": "Reply only with the letters of your choice in braces.",
}
REASON_REMINDER = "Give the final answer names in braces, or {Unknown}."
#: Options are numbered: on MetaQA dev questions the local 1.5B model avoided option "A" and
#: often copied option text when options were lettered; with numbers its picks held the
#: relevant group. No example reply is shown: small models copy the example's labels.
OPTION_LABELS = "numbers"


@dataclass(frozen=True)
class ReasonDemo:
    """One demonstration of the reasoning step, shown as an earlier chat exchange.

    ``facts`` and ``question`` fill the reasoning template (the user turn), ``reply`` is the
    assistant turn. Its names should be abstract placeholders, listed in ``names``: a reply
    naming only them is a copied demonstration, never taken for an answer
    (:func:`parse_braced_answer`).

    >>> demo = ReasonDemo("1. Person A.", "who is [Person A]", "Answer: {Unknown}", ("Person A",))
    >>> demo.reply, demo.names
    ('Answer: {Unknown}', ('Person A',))
    """

    facts: str
    question: str
    reply: str
    names: tuple[str, ...] = ()


#: The reasoning demonstrations, in no one domain (the paper's prompt shows one short example
#: inline): five short chat exchanges with abstract names, written as Triple2Text writes facts
#: (a compound fact as the relation verbaliser writes it: "employment history, employer"). One
#: answers from the topic's own fact and stops there; one reaches the answer through two facts;
#: one whose facts lack it replies ``{Unknown}``; one goes three steps, where the intermediate
#: person is not the answer; one stops after two steps on a question that asks for the *other*
#: things a shared neighbour has ("the founder of [X] also founded which companies"), whose
#: answer is neither the neighbour nor what another relation of it gives. They keep the
#: reasoning patterns that were measured on MetaQA dev questions with movie examples (kept as
#: the opt-in ``metaqa`` preset, :data:`MOVIE_DEMOS`), in family, place and organisation facts
#: as PathQuestion and Freebase write them; ``docs/fasttog.md`` says what each was measured on.
REASON_DEMOS: tuple[ReasonDemo, ...] = (
    ReasonDemo(
        facts=(
            "1. Person A place of birth Town B. Person A employment history, employer "
            "Company C.\nChain 1:\n"
            "2. Town B contained by Region D. Town B population 5000."
        ),
        question="where was [Person A] born",
        reply="Steps: Person A was born in Town B (fact 1). Answer: {Town B}",
        names=("Person A", "Town B", "Company C", "Region D"),
    ),
    ReasonDemo(
        facts=(
            "1. Person E gender female.\nChain 1:\n"
            "2. Person E place of birth Town F. Town F contained by Region G."
        ),
        question="which region contains the birthplace of [Person E]",
        reply=(
            "Steps: Person E was born in Town F (fact 2); Town F is in Region G (fact 2). "
            "Answer: {Region G}"
        ),
        names=("Person E", "Town F", "Region G"),
    ),
    ReasonDemo(
        facts="1. Person H.\nChain 1:\n2. Person H children Person J. Person J gender male.",
        question="where was the child of [Person H] born",
        reply=(
            "Steps: the child of Person H is Person J (fact 2); the facts do not give Person "
            "J's place of birth. Answer: {Unknown}"
        ),
        names=("Person H", "Person J"),
    ),
    ReasonDemo(
        facts=(
            "1. Person K spouse Person L. Person K nationality Country M.\nChain 1:\n"
            "2. Person L; Person N parents Person P. Person L children Person Q; Person R. "
            "Person Q place of death Town S. Person R place of death Town T."
        ),
        question="where did the children of the spouse of [Person K] die",
        reply=(
            "Steps: the spouse of Person K is Person L (fact 1); the children of Person L are "
            "Person Q and Person R (fact 2); Person Q died in Town S and Person R in Town T "
            "(fact 2). Answer: {Town S; Town T}"
        ),
        names=(
            "Person K",
            "Person L",
            "Country M",
            "Person N",
            "Person P",
            "Person Q",
            "Person R",
            "Town S",
            "Town T",
        ),
    ),
    ReasonDemo(
        facts=(
            "1. Company U headquarters Town V.\nChain 1:\n"
            "2. Company U; Company W; Company X founder Person Y. Company U; Company Z "
            "investor Person Y. Company W industry Retail."
        ),
        question="the founder of [Company U] also founded which companies",
        reply=(
            "Steps: the founder of Company U is Person Y (fact 2); Person Y also founded "
            "Company W and Company X (fact 2). Answer: {Company W; Company X}"
        ),
        names=("Company U", "Town V", "Company W", "Company X", "Person Y", "Company Z"),
    ),
)
#: The pruning prompt (``str.format`` fields: ``question``, ``premise``, ``options``, the
#: numbered candidates, and ``ask``, the question of the choice); literal braces doubled.
PRUNE_PROMPT = "Question: {question}\nPremise: {premise}\nSelection:\n{options}\n{ask}"
#: The reasoning prompt (fields: ``question`` and ``facts``, the numbered facts); literal braces
#: doubled. The demonstrations (:data:`REASON_DEMOS`) are written with it too. The facts come
#: first and the question after them, as in ToG's reasoning prompt: the local 1.5B model then
#: wrote shorter replies and named a thing of the asked kind more often than with the question
#: first (``docs/research/fasttog_deviations.md#reasoning-prompt``). The instruction is in
#: :data:`REASON_SYSTEM`.
REASON_PROMPT = "Facts:\n{facts}\nQuestion: {question}"
#: Each template's fields, by the config field that holds it.
TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    "prune_prompt": frozenset({"question", "premise", "options", "ask"}),
    "reason_prompt": frozenset({"question", "facts"}),
}
#: Replies are untrusted: at most this many characters are parsed.
MAX_PARSED_REPLY_CHARS = 4000


def prune_request(
    question: str,
    premise: str,
    options: Sequence[str],
    max_choices: int,
    temperature: float = 0.4,
    max_tokens: int = 64,
    allow_none: bool = True,
    template: str = PRUNE_PROMPT,
    labels: str = OPTION_LABELS,
) -> LLMRequest:
    """Fine pruning: choose up to ``max_choices`` of the labelled options.

    ``allow_none=False`` (the first choice, where a chain must start) offers no ``{none}``;
    ``template``: see :data:`PRUNE_PROMPT`; ``labels``: ``"numbers"`` (``1.``, ``2.``, ...) or
    ``"letters"`` (``A.``, ``B.``, ..., the reference code's; at most 26 options).

    >>> request = prune_request("q", "X.", ["a.", "b."], max_choices=1, labels="letters")
    >>> print(request.messages[-1].content.splitlines()[4])
    B. b.
    """
    if labels == "letters":
        if len(options) > len(ascii_uppercase):
            raise ConfigurationError(f"at most 26 options can be lettered, got {len(options)}")
        marks = list(ascii_uppercase)
        word = ("its letter", "their letters")
    else:
        marks = [str(i) for i in range(1, len(options) + 1)]
        word = ("its number", "their numbers")
    listed = "\n".join(f"{mark}. {text}" for mark, text in zip(marks, options, strict=False))
    if max_choices == 1:
        ask = (
            "Which ONE group has the facts needed to answer the question? "
            f"Reply with {word[0]} in braces."
        )
    else:
        ask = (
            f"Which groups (up to {max_choices}) have the facts needed to answer the question? "
            f"Reply with {word[1]} in braces."
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
    >>> request.fixed_prefix  # every reasoning request opens with these eleven messages
    11
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


def demo_names(demos: Sequence[ReasonDemo] = REASON_DEMOS) -> frozenset[str]:
    """The placeholder names of ``demos``, case-folded: never taken for answers.

    >>> sorted(demo_names(REASON_DEMOS[1:2]))
    ['person e', 'region g', 'town f']
    """
    return frozenset(name.casefold() for demo in demos for name in demo.names)


_DEFAULT_NAMES = demo_names()


def parse_braced_answer(
    text: str,
    example_names: frozenset[str] = _DEFAULT_NAMES,
    nodes: Sequence[str] | None = None,
) -> str | None:
    """The answer in braces of a reply, or ``None``: no braces, ``{Unknown}`` (unless
    ``nodes``, the nodes of the facts shown, hold a node of exactly that name:
    :func:`~kgcore.methods.kernel.shown_or_known`) or a copied demonstration (every name one
    of ``example_names``, case-folded: :func:`demo_names`).

    Total: any string gives a value or ``None``; only the first :data:`MAX_PARSED_REPLY_CHARS`
    characters are read.

    >>> parse_braced_answer("Steps: ... Answer: {Shane}")
    'Shane'
    >>> parse_braced_answer("{Region G}") is None  # a demonstration's answer
    True
    >>> parse_braced_answer("{Town S; Shane}")  # a demonstration's name is dropped
    'Shane'
    """
    text = str(text)[:MAX_PARSED_REPLY_CHARS]
    if not has_braced_answer(text):
        return None
    answer = shown_or_known(parse_answer_text(text), nodes)
    if answer is None:
        return None
    if all(part.strip().casefold() in example_names for part in answer.split(",")):
        return None
    parts = answer.split(";")
    kept = [part.strip() for part in parts if part.strip().casefold() not in example_names]
    if len(kept) < len(parts):
        return "; ".join(part for part in kept if part) or None
    return answer
