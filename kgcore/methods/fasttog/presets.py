"""Opt-in FastToG presets, kept out of the defaults.

``metaqa``: the four movie demonstrations FastToG's reasoning used before the cross-graph
report (:data:`MOVIE_DEMOS`), decided on MetaQA dev questions. The default demonstrations
(:data:`~kgcore.methods.fasttog.prompts.REASON_DEMOS`) are in no one domain.

``paper``: the paper's FastToG as written (:data:`PAPER`, ``FastToGConfig.paper()``), with none
of this project's additions; ``docs/fasttog.md`` compares it with the defaults.

Example
-------
>>> from kgcore.methods.fasttog import FastToGConfig
>>> FastToGConfig.preset("metaqa").reason_demos == MOVIE_DEMOS
True
>>> sorted(PRESETS)
['metaqa', 'paper']
"""

from __future__ import annotations

from typing import Any

from kgcore.methods.fasttog.config import LeafSettings
from kgcore.methods.fasttog.prompts import ReasonDemo
from kgcore.paths.settings import PathSettings

#: The movie demonstrations (FastToG's default until the cross-graph report, issue 34): the paper's
#: prompt shows one short example inline; four short chat exchanges replace it here. One
#: reaches the answer through two facts; one's facts lack it (``{Unknown}``); one goes three
#: steps through a shared writer, where the writer is not the answer and the asked-about film's
#: own director is one; one stops after two steps ("the director of [Film Y] also directed which
#: films"). The inline example was copied into replies, and without the third and fourth the
#: model answered the shared writer or director itself or chained on past the answer. The
#: replays and runs that decided each: ``docs/research/fasttog_deviations.md``
#: (``#reasoning-prompt``, ``#third-demonstration``, ``#fourth-demonstration``).
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

#: The paper's fine-pruning prompt, on the reference code's layout (the instruction, then the
#: premise, the question, the lettered options and "Your choice:"), in this project's words;
#: the reference's three worked examples are not shown (``docs/fasttog.md``).
PAPER_PRUNE_PROMPT = "{ask}\nPremise: {premise}\nQuestion: {question}\n{options}\nYour choice:"
#: The paper's reasoning prompt, on the reference code's layout (the instruction with its three
#: tips, the numbered context, ``Q:`` and ``A:``), in this project's words, with no
#: demonstration. As in the paper, the model may use its own knowledge as well as the context.
PAPER_REASON_PROMPT = (
    "Answer the question Q from the context (knowledge-graph facts) in curly brackets, like "
    "{{answer}}, or reply {{Unknown}} if you cannot.\n"
    "How to solve it: first, rewrite the question as simpler questions; second, look in the "
    "context for what each of them needs; last, put that together with what you know, and "
    "answer.\n\n"
    "context:\n{facts}\nQ: {question}\nA:"
)
#: The reasoning system message of the paper preset: a plain assistant (the reference code
#: sends one such line as every call's system message); the instruction is in the prompt.
PAPER_REASON_SYSTEM = "You are an assistant that helps people find information."

#: The paper's FastToG (Liang et al., AAAI 2025) and its reference code (dosonleung/FastToG,
#: ``fasttog.py``, ``kg_client.py``), setting by setting; ``docs/fasttog.md`` has the table with
#: each source and the project default, and ``tests/unit/kgcore/methods/fasttog/
#: test_paper_preset.py`` asserts each value.
PAPER: dict[str, Any] = {
    # The paper's chain width W, depth D_max, community size bound M and Louvain detection.
    "width": 3,
    "max_depth": 5,
    "max_community_size": 4,
    "algorithm": "louvain",
    # Sampling: the paper's rho^(n-1) keep probability with rho = 0.5, over the reference
    # code's BFS: 3 hops (search_max_hop), 20 / 10 / 5 neighbours drawn at random per node at
    # hops 1, 2, 3 (search_max_neighbor=20 halved per hop), at most 100 nodes (topk), drawn
    # among all of a node's neighbours; no node is held back as a hub.
    "radius": 3,
    "decay": 0.5,
    "neighbors_per_hop": (20, 10, 5),
    "max_subgraph_nodes": 100,
    "max_neighbors_per_node": None,
    "hub_degree": None,
    # Coarse pruning keeps the 8 best communities by modularity (community_max_candidate),
    # with no slot set aside for one-node communities.
    "coarse_top_k": 8,
    "leaves": LeafSettings(kept=0, start_chains=True),
    # Fine pruning by the LLM at every choice, lettered options, every triple of a community.
    "first_choice": "llm",
    "chain_choice": "llm",
    "option_labels": "letters",
    "max_option_triples": 64,
    # The paper's temperatures; the reference code's output cap (max_tokens=4096 every call).
    "prune_temperature": 0.4,
    "reason_temperature": 0.1,
    "prune_max_tokens": 4096,
    "reason_max_tokens": 4096,
    # Triple2Text: one sentence per triple, nothing merged.
    "sentence_per": "triple",
    "merge_shared": False,
    # The model's answer as it gave it (checked sane only), and CoT when the graph gave none.
    "grounded_answers": False,
    "neighbour_answers": False,
    "joint_limit": 0,
    "topic_facts": 0,
    "shared_topics": False,
    # No path planning: the paper's FastToG reasons over communities only.
    "paths": PathSettings(max_hops=0),
    "fallback": "cot",
    "prune_prompt": PAPER_PRUNE_PROMPT,
    "reason_prompt": PAPER_REASON_PROMPT,
    "reason_system": PAPER_REASON_SYSTEM,
    "reason_demos": (),
}

#: Each preset: the :class:`~kgcore.methods.fasttog.FastToGConfig` settings it changes.
PRESETS: dict[str, dict[str, Any]] = {
    "metaqa": {"reason_demos": MOVIE_DEMOS},
    "paper": PAPER,
}
