"""``kgqa eval``: run methods over datasets with a LangChain chat model and report.

.. code-block:: console

    $ kgqa eval --method cgpe --data metaqa:1hop:5 --llm local --out runs/
    $ kgqa eval --method tog,cot --data metaqa:1hop:10 --data metaqa:2hop:10 --workers 2 \\
          --set width=2 --out runs/ --summary metaqa.md
    $ kgqa eval --method fasttog --data pathquestion:PQ-3H:20 --data webqsp:20 --data cwq:20 \\
          --llm local --out runs/
    $ kgqa eval --method tog --data all:10 --llm local --out runs/   # the six cross-graph sets
    $ kgqa eval --method io --data pathquestion:all:5 --data-dir /data/kgqa --out runs/
    $ kgqa eval --method fasttog --preset paper --data metaqa:2hop:50 --llm local --out runs/
    $ kgqa eval --method echo --data pathquestion:PQL-3H:50 --out runs/   # no LLM loaded
    $ kgqa eval --report-only --out runs/          # rewrite the table and plots from traces

Datasets are read from ``--data-dir`` when given, else the folder in the ``KGQA_DATA``
environment variable, else ``../shared/data`` beside a source checkout, else (installed from a
wheel) the user data folder ``~/.local/share/kg-retrievers/data``; ``kgqa eval --help`` prints
the folder in use, and a missing file names where to get its benchmark
(:mod:`kgeval.data_sources`). Each dataset is answered on
its own graph (MetaQA's, each PathQuestion set's, the WebQSP/CWQ evidence graph), each graph
loaded once; ``--kg`` puts one graph under every dataset instead. ``--preset paper`` runs the
FastToG methods as the paper wrote them (:meth:`~kgcore.methods.fasttog.FastToGConfig.paper`;
the same as ``--set preset=paper``), and their report rows read ``fasttog[preset=paper]``.
Traces go to ``DIR/<run>__<dataset>.jsonl`` and a rerun resumes from them; the Markdown table
and PNG plots (``DIR/summary.md`` by default) cover every trace in ``DIR``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore


def parse_option(text: str) -> tuple[str, Any]:
    """``"width=2"`` -> ``("width", 2)``; ints, floats, booleans and ``none`` are converted.

    Example
    -------
    >>> parse_option("decay=0.5"), parse_option("algorithm=leiden"), parse_option("x=true")
    (('decay', 0.5), ('algorithm', 'leiden'), ('x', True))
    """
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigurationError(f"--set expects KEY=VALUE, got {text!r}")
    value: Any = raw.strip()
    lowered = value.lower()
    if lowered in ("true", "false"):
        value = lowered == "true"
    elif lowered == "none":
        value = None
    else:
        for convert in (int, float):
            try:
                value = convert(value)
                break
            except ValueError:
                continue
    return key.strip().replace("-", "_"), value


def with_preset(method: str, options: dict[str, Any], preset: str | None) -> dict[str, Any]:
    """``options`` for ``method`` with ``kgqa eval --preset``: the methods with presets (FastToG,
    G-Retriever) take it as their ``preset`` option (so a run's label reads
    ``fasttog[preset=paper]``), others ignore it. Different presets from ``--preset`` and
    ``--set preset=`` are an error.

    >>> with_preset("fasttog", {"width": 2}, "paper")
    {'width': 2, 'preset': 'paper'}
    >>> with_preset("tog", {"width": 2}, "paper")
    {'width': 2}
    """
    from kgcore.builder import get_method

    if preset is None or not get_method(method).presets:
        return dict(options)
    given = options.get("preset")
    if given is not None and given != preset:
        raise ConfigurationError(f"--preset {preset} and --set preset={given} disagree")
    return {**options, "preset": preset}


def positive_int(text: str) -> int:
    """An ``argparse`` type: a whole number >= 1 (``--workers 0`` is a usage error, exit 2).

    >>> positive_int("2")
    2
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def add_eval_subcommand(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``eval`` to a ``kgqa`` subparsers object and return its parser."""
    from kgcore.builder import method_names
    from kgeval.data_sources import BENCHMARKS, data_location
    from kgeval.datasets import SPEC_FORMS
    from kgqa.help import DefaultsHelpFormatter

    names = ", ".join(method_names())
    sources = "; ".join(
        f"{name}: {source}"
        for folder, (name, _, source) in BENCHMARKS.items()
        if folder != "webnlg"
    )
    parser = subparsers.add_parser(
        "eval",
        help="evaluate methods on a dataset (hit@1, LLM calls, tokens, time)",
        description=(
            "Run methods over datasets, write JSONL traces, a Markdown table and plots. "
            f"Data: {data_location()}. The folder holds metaqa/, pathquestion/, webqsp_cwq/ "
            f"and explagraphs/; nothing is downloaded. Where to get each benchmark: {sources}. "
            "A missing file is reported with the files expected."
        ),
        formatter_class=DefaultsHelpFormatter,
    )
    parser.add_argument(
        "--method", action="append", default=[], help=f"method(s), comma-separated: {names}"
    )
    parser.add_argument(
        "--data",
        action="append",
        default=[],
        help=(
            f"dataset(s), repeatable: {', '.join(SPEC_FORMS)}; N keeps the first N questions "
            "(of each set for pathquestion:all and all = metaqa:2hop, metaqa:3hop, "
            "pathquestion:PQ-3H, pathquestion:PQL-3H, webqsp, cwq)"
        ),
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="data folder holding metaqa/, pathquestion/, webqsp_cwq/, explagraphs/; "
        "overrides KGQA_DATA and the default folder (see above)",
    )
    from kgqa.common import add_llm_arguments, kg_argument, preset_help

    add_llm_arguments(parser)
    parser.add_argument(
        "--kg",
        type=kg_argument,
        help="triple file, a cluster's members (bolt://h1:7687,bolt://h2:7688: reads move on "
        "when one dies) or Neo4j URI (bolt://, neo4j://) (default: the dataset's graph)",
    )
    parser.add_argument(
        "--workers", type=positive_int, default=1, help="questions answered at once"
    )
    parser.add_argument("--out", required=True, help="folder for traces, table and plots")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="method option"
    )
    parser.add_argument(
        "--preset",
        metavar="NAME",
        help=preset_help() + "; only the FastToG methods take it (their rows read "
        "fasttog[preset=NAME])",
    )
    parser.add_argument("--summary", default="summary.md", help="summary file name in --out")
    parser.add_argument("--title", help="title of the summary")
    parser.add_argument("--no-resume", action="store_true", help="ignore existing traces")
    parser.add_argument("--retry-errors", action="store_true", help="re-run errored questions")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument("--report-only", action="store_true", help="only rewrite the summary")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(handler=run_eval_command)
    return parser


#: The name ``kgqa.cli`` looks for when it collects optional subcommands.
add_subcommand = add_eval_subcommand


def _graph_for(
    path: Path | None, kg: str | None, cache: dict[str, GraphStore], progress: bool
) -> GraphStore | None:
    key = kg or (str(path) if path else None)
    if key is None:
        return None
    if key not in cache:
        from kgqa.common import open_graph

        cache[key] = open_graph(key, progress=progress)
    return cache[key]


def run_eval_command(args: argparse.Namespace) -> int:
    """The ``kgqa eval`` handler: evaluate every (method, dataset) pair, print a table."""
    from kgcore.builder import check_options, get_method, method_names
    from kgeval.datasets import load_datasets
    from kgeval.harness import evaluate
    from kgeval.lock import check_output_folder
    from kgeval.report import write_report
    from kgqa.door import check_datasets, check_eval, check_llm

    out = check_output_folder(args.out)  # a file is refused before the model loads
    check_eval(args, out)  # and so are a bad summary name and a bad graph
    if args.report_only:
        out.mkdir(parents=True, exist_ok=True)
        path = write_report(out, args.summary, plots=not args.no_plots, title=args.title)
        print(path.read_text())
        return 0
    methods = [m.strip() for spec in args.method for m in spec.split(",") if m.strip()]
    if not methods or not args.data:
        raise ConfigurationError("kgqa eval needs --method and --data (or --report-only)")
    specs = [get_method(m) for m in methods]  # unknown names fail before the model loads
    options = dict(parse_option(o) for o in args.set)
    by_method = {spec.name: with_preset(spec.name, options, args.preset) for spec in specs}
    if args.preset and not any(spec.presets for spec in specs):
        with_presets = ", ".join(n for n in method_names() if get_method(n).presets)
        raise ConfigurationError(
            f"--preset {args.preset}: none of the methods ({', '.join(methods)}) takes a "
            f"preset ({with_presets} do)"
        )
    for spec in specs:  # bad settings too: checked by the methods' configs, no model needed
        check_options(spec.name, by_method[spec.name])
    if any(spec.needs_llm for spec in specs):
        check_llm(args.llm)  # the model's extra and file, found without loading them
    datasets = [d for spec in args.data for d in load_datasets(spec, data_dir=args.data_dir)]
    check_datasets(datasets)  # empty, or ids that repeat: before the model loads

    from kgeval.harness import NoLLM
    from kgqa.common import llm_for, llm_retry

    # Methods that call no LLM (echo) need no model: none is loaded when only they run.
    llm0 = llm_for(args.llm, args.sampling) if any(s.needs_llm for s in specs) else None
    if llm0 is not None and args.llm.startswith("local"):
        # Load the weights before the clock runs: the first question's LLM time would include it.
        from kgcore.llm.protocol import LLMRequest

        llm0.generate(LLMRequest.from_prompt("Say OK.", "warmup", max_tokens=1))
    graphs: dict[str, GraphStore] = {}
    progress = not args.quiet
    for spec in specs:
        llm: Any = NoLLM()
        if spec.needs_llm and llm0 is not None:
            llm = type(llm0)(llm0.model, run_name_prefix=spec.name, sampling=llm0.sampling)
        for dataset in datasets:
            needs_shared = spec.needs_graph and any(e.triples is None for e in dataset.examples)
            store = (
                _graph_for(dataset.graph_path, args.kg, graphs, progress) if needs_shared else None
            )
            run = evaluate(
                spec.name,
                dataset,
                llm,
                store=store,
                options=by_method[spec.name],
                workers=args.workers,
                out_dir=out,
                resume=not args.no_resume,
                retry_errors=args.retry_errors,
                serialize_llm=spec.needs_llm and args.llm.startswith("local"),
                progress=progress,
                plots=False,
                summary_name=args.summary,
                retry=llm_retry(args),
            )
            s = run.summary
            print(
                f"{run.label} on {run.dataset}: n={s['n']} hit@1={s['hit@1'] or 0:.2f} "
                f"LLM calls/q={s['llm_calls'] or 0:.1f} errors={s['errors']} "
                f"(resumed {run.skipped})",
                file=sys.stderr,
            )
    path = write_report(out, args.summary, plots=not args.no_plots, title=args.title)
    print(path.read_text())
    return 0
