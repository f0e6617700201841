"""CGPE's three-step information matching: which candidate steps the clues left match, when no
clue matched them by characters (Tao et al. 2024).

1. :func:`match_summaries`: the candidates' distinct summaries ``(relation, label)`` against
   the clues left (one call);
2. :func:`match_entities`: ``(label, entity name)`` of the candidates behind the chosen
   summaries (one call; at most ``max_entities`` are shown, a larger set is sampled with the
   run's generator);
3. :func:`match_clues`: the clue each picked entity matches, the LLM seeing the full triple
   that reaches it (one call, skipped when a single clue is left).

Each step is asked again once with a format reminder when its reply is unusable.
"""

from __future__ import annotations

from kgcore.llm.parsing import parse_choices
from kgcore.llm.protocol import Steps
from kgcore.methods.cgpe.clue_paths import Candidate, CluePath
from kgcore.methods.cgpe.config import CGPEConfig
from kgcore.methods.cgpe.parsing import parse_clue_matches
from kgcore.methods.cgpe.prompts import STEP1_REMINDER, STEP2_REMINDER, STEP3_REMINDER, request
from kgcore.methods.cgpe.run_state import CGPERun
from kgcore.methods.kernel import ask_parsed, options_text, triple_text

#: Options a step shows at most (one letter each).
MAX_OPTIONS = 26


def information_matching(
    run: CGPERun,
    config: CGPEConfig,
    active: list[CluePath],
    candidates: list[Candidate],
    clues: list[str],
) -> Steps[list[tuple[Candidate, str]]]:
    """Three-step information matching of the ``candidates`` that no clue matched by
    characters: summaries, then entities, then clues.

    Parameters
    ----------
    run : CGPERun
        The run's state.
    config : CGPEConfig
        The engine's settings (prompts, token caps, ``max_entities``, ``max_branches``).
    active : list of CluePath
        The paths being extended.
    candidates : list of Candidate
        Their candidate steps that no clue matched by characters.
    clues : list of str
        The clues left.

    Returns
    -------
    list of (Candidate, str)
        Each matched candidate with the clue it matches; ``[]`` for none.
    """
    chosen = yield from match_summaries(run, config, active, candidates, clues)
    if not chosen:
        return []
    picked = yield from match_entities(run, config, candidates, chosen, clues)
    if not picked:
        return []
    return (yield from match_clues(run, config, picked, chosen, clues))


def match_summaries(
    run: CGPERun,
    config: CGPEConfig,
    active: list[CluePath],
    candidates: list[Candidate],
    clues: list[str],
) -> Steps[dict[str, str | None]]:
    """Step 1: the candidates' distinct summaries ``(relation, label)`` against the ``clues``
    left (one call; at most 26 are shown, the ends of the ``active`` paths with them).
    Returns each chosen summary and the clue it matches (``None``: unsaid); empty for none.
    """
    summaries = list(dict.fromkeys(c.summary for c in candidates))[:MAX_OPTIONS]
    run.stats.step_calls[0] += 1
    step1 = yield from ask_parsed(
        request(
            config.step1_prompt,
            "cgpe_step1",
            config.max_tokens,
            question=run.question,
            clues=", ".join(clues),
            ends=", ".join(dict.fromkeys(p.nodes[-1] for p in active)),
            options=options_text(summaries),
        ),
        lambda text: parse_clue_matches(text, len(summaries), clues),
        STEP1_REMINDER,
        run.meter.usage,
        record=run.trace.recorder(clues=clues, offered=summaries),
    )
    return {summaries[i]: clue for i, clue in (step1 or {}).items()}


def match_entities(
    run: CGPERun,
    config: CGPEConfig,
    candidates: list[Candidate],
    chosen: dict[str, str | None],
    clues: list[str],
) -> Steps[list[Candidate]]:
    """Step 2: ``(label, entity name)`` of the ``candidates`` behind the ``chosen`` summaries,
    one per node (one call; at most ``max_entities``, and 26, are shown, a larger set is
    sampled with the run's generator). Returns the candidates the LLM picked, in its order;
    ``[]`` for none.
    """
    survivors = list(
        {c.node: c for c in candidates if c.summary in chosen}.values()
    )  # one candidate per node
    if len(survivors) > min(config.max_entities, MAX_OPTIONS):
        keep = run.rng.choice(len(survivors), min(config.max_entities, MAX_OPTIONS), replace=False)
        survivors = [survivors[i] for i in sorted(keep)]
    run.stats.step_calls[1] += 1
    step2 = yield from ask_parsed(
        request(
            config.step2_prompt,
            "cgpe_step2",
            config.max_tokens,
            question=run.question,
            clues=", ".join(clues),
            options=options_text([f"{c.label}: {c.node}" for c in survivors]),
            max_branches=config.max_branches,
        ),
        lambda text: parse_choices(text, n_options=len(survivors), max_choices=config.max_branches),
        STEP2_REMINDER,
        run.meter.usage,
        record=run.trace.recorder(offered=[f"{c.label}: {c.node}" for c in survivors]),
    )
    return [survivors[i] for i in step2 or []]


def match_clues(
    run: CGPERun,
    config: CGPEConfig,
    picked: list[Candidate],
    chosen: dict[str, str | None],
    clues: list[str],
) -> Steps[list[tuple[Candidate, str]]]:
    """Step 3: the clue each ``picked`` entity matches, the LLM seeing the full triple that
    reaches it (one call; none when a single clue is left: every entity matches it). An
    unusable reply keeps the clues step 1 ``chosen``. Returns each matched entity with its
    clue.
    """
    fallback = [chosen[c.summary] or clues[0] for c in picked]
    if len(clues) == 1:
        return [(c, clues[0]) for c in picked]
    run.stats.step_calls[2] += 1
    step3 = yield from ask_parsed(
        request(
            config.step3_prompt,
            "cgpe_step3",
            config.max_tokens,
            question=run.question,
            clues=", ".join(clues),
            options=options_text(
                [f"{c.node}, from {triple_text(c.triple, config.verbalizer)}" for c in picked]
            ),
        ),
        lambda text: parse_clue_matches(text, len(picked), clues),
        STEP3_REMINDER,
        run.meter.usage,
        record=run.trace.recorder(clues=clues, offered=[c.node for c in picked]),
    )
    if step3 is None:
        return list(zip(picked, fallback, strict=True))
    return [(c, step3[i] or fallback[i]) for i, c in enumerate(picked) if i in step3]
