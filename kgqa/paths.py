"""``kgqa paths train``: train a relation-path scorer (:mod:`kgmodels.path_scorer`) for
FastToG's ``scorer=`` option.

The data are JSON lines, either ``{"question", "paths": [[relation, ...], ...]}`` (the form of
WebQSP's ``train_webqsp_paths.jsonl``) or, with ``--kg``, ``{"question", "topic_entities",
"answers"}`` on your graph: the relation paths from a topic entity to an answer are found by
search.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgqa.common import kg_argument, open_graph
from kgqa.door import check_input_file, check_new_folder, whole_number
from kgqa.help import DefaultsHelpFormatter

#: The command that trained ``models/path-scorer-webqsp`` (also ``make path-scorer``).
WEBQSP_COMMAND = (
    "kgqa paths train --data ../shared/data/webqsp_cwq/train_webqsp_paths.jsonl "
    "--out models/path-scorer-webqsp --seed 0"
)


def _answer_records(path: str) -> list[tuple[str, list[str], list[str]]]:
    """``(question, topic entities, answers)`` of each line of a JSON-lines file."""
    found = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                question, topics, answers = row["question"], row["topic_entities"], row["answers"]
            except (ValueError, KeyError, TypeError) as exc:
                raise ConfigurationError(
                    f"{path}:{number}: with --kg each line needs question, topic_entities and "
                    f"answers ({exc})"
                ) from exc
            found.append((str(question), [str(t) for t in topics], [str(a) for a in answers]))
    return found


def _train(args: argparse.Namespace) -> int:
    check_input_file(args.data, "--data")
    check_new_folder(args.out, "--out")
    from kgcore.embeddings import default_embedder
    from kgmodels.path_scorer import paths_from_answers, read_path_questions, train_path_scorer

    if args.kg:
        store = open_graph(args.kg)
        questions = paths_from_answers(store, _answer_records(args.data), args.max_hops)
    else:
        questions = read_path_questions(args.data)
    if len(questions) < 2:
        raise ConfigurationError(
            f"--data {args.data!r}: {len(questions)} question(s) with a relation path; "
            "training needs at least two"
        )
    embedder = default_embedder()
    report = train_path_scorer(
        questions, embedder.embed, Path(args.out), seed=args.seed, epochs=args.epochs
    )
    print(json.dumps(report, indent=2))
    print(f"saved in {args.out}: use it with --set scorer={args.out}")
    return 0


def add_subcommand(commands: Any) -> None:
    """Register ``kgqa paths train`` on the CLI's subparsers."""
    paths = commands.add_parser("paths", help="relation-path scorers: train one")
    actions = paths.add_subparsers(dest="action", required=True, metavar="{train}")
    train = actions.add_parser(
        "train",
        help="train a relation-path scorer on questions and their relation paths",
        description=__doc__.split("\n\n")[1] + f" This project's scorer: {WEBQSP_COMMAND}",
        formatter_class=DefaultsHelpFormatter,
    )
    train.add_argument("--data", required=True, help="JSON-lines questions (see above)")
    train.add_argument("--out", required=True, help="the scorer's folder (created)")
    train.add_argument("--kg", type=kg_argument, help="your graph, to find paths by search")
    train.add_argument("--max-hops", type=whole_number(1), default=2, help="with --kg")
    train.add_argument("--seed", type=whole_number(0), default=0, help="split and start")
    train.add_argument("--epochs", type=whole_number(1), default=300, help="training epochs")
    train.set_defaults(handler=_train)
