"""Opt-in FastToG presets: settings measured on one graph only, kept out of the defaults.

``metaqa``: the four movie demonstrations FastToG's reasoning used before the cross-graph
report (:data:`MOVIE_DEMOS`), decided on MetaQA dev questions. The default demonstrations
(:data:`~kgcore.methods.fasttog.prompts.REASON_DEMOS`) are in no one domain.

Example
-------
>>> from kgcore.methods.fasttog import FastToGConfig
>>> FastToGConfig.preset("metaqa").reason_demos == MOVIE_DEMOS
True
>>> sorted(PRESETS)
['metaqa']
"""

from __future__ import annotations

from typing import Any

from kgcore.methods.fasttog.prompts import ReasonDemo

#: The movie demonstrations (FastToG's default until the cross-graph report, issue 34): the paper's
#: prompt shows one short example inline. Three short
#: chat exchanges replace it here: one that reaches the answer through two facts, one whose
#: facts lack it (``{Unknown}``), and one that goes three steps through a shared writer, where
#: the writer is not the answer and the asked-about film's own director is one. Replaying the
#: depth-1 facts of 44 dev 2-hop questions with the local 1.5B model
#: (``benchmarks/fasttog_reason_replay.py``), the inline example (a language question answered
#: ``{Z}``) was copied into replies: "Film Y is in language Z", "English" or "French" for a
#: director. With the first two exchanges the model named the answer in 23 of the 28
#: questions whose facts hold it (18 of 29 before), said ``Unknown`` for 12 of the 16 whose facts
#: lack it (6 of 15), and wrote 47 tokens a reply instead of 84 (``docs/fasttog.md``'s
#: deviations).
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
MOVIE_DEMOS: tuple[ReasonDemo, ...] = (
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
        names=("Actor X", "Film Y", "Film W", "Person Z"),
    ),
    ReasonDemo(
        facts="1. Person A.\nChain 1:\n2. Film B written by Person A. Film B has genre Drama.",
        question="what languages are the films written by [Person A] in",
        reply=(
            "Steps: Person A wrote Film B (fact 2); the facts do not give Film B's language. "
            "Answer: {Unknown}"
        ),
        names=("Person A", "Film B"),
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
        names=("Film Y", "Person Z", "Person B", "Film C", "Person Q"),
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
        names=("Film Y", "Film W", "Film B", "Person Z"),
    ),
)

#: Each preset: the :class:`~kgcore.methods.fasttog.FastToGConfig` settings it changes.
PRESETS: dict[str, dict[str, Any]] = {
    "metaqa": {"reason_demos": MOVIE_DEMOS},
}
