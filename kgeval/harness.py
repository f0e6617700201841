"""Run a method over a dataset: a bounded worker pool, JSONL traces, resume, a progress bar.

Example
-------
>>> import tempfile
>>> from kgeval.datasets import Dataset, EvalExample
>>> from kgcore.llm import ScriptedLLM
>>> data = Dataset("toy", [EvalExample("q1", "capital of France?", ("Paris",))])
>>> run = evaluate("io", data, ScriptedLLM(["{Paris}"]), out_dir=tempfile.mkdtemp(),
...                progress=False, plots=False)
>>> run.accuracy, run.records[0]["llm_calls"]
(1.0, 1)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from kgcore.exceptions import ConfigurationError, KGRetrieverError
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.store import GraphStore
from kgcore.llm.protocol import ChatLLM, LLMReply, LLMRequest, RetryPolicy, run_steps
from kgeval.datasets import Dataset, EvalExample, check_example_ids, load_dataset
from kgeval.lock import locks_output_folder
from kgeval.metrics import answer_recall, prediction_answered, scored_hit
from kgeval.records import writable_record
from kgeval.registry import get_method, make_method
from kgeval.report import score_record, summarize, write_report
from kgeval.traces import (
    append_trace,
    read_traces,
    trace_file_name,
    write_dataset_ids,
)

#: Retrieved context kept in a trace record (characters).
MAX_TRACE_CONTEXT = 4000
#: When this many first questions all fail with the same error, the run stops.
FAIL_FAST = 3


def _is_langchain_object(value: Any) -> bool:
    return any(c.__module__.startswith("langchain_core.") for c in type(value).__mro__)


def as_chat_llm(llm: Any) -> ChatLLM:
    """``llm`` when it is a kgcore :class:`~kgcore.llm.ChatLLM`, else a clear error.

    The core speaks only its own LLM protocol: a LangChain chat model is adapted by
    ``langchain_fasttog.LangChainLLM(model)`` (``kgqa eval`` and
    ``langchain_fasttog.evaluate`` do it for you). It is recognised here only to say so:
    LangChain chat models have a ``generate`` method of their own, over lists of messages.

    Example
    -------
    >>> from kgcore.llm import ScriptedLLM
    >>> llm = ScriptedLLM(["{Paris}"])
    >>> as_chat_llm(llm) is llm
    True
    """
    if _is_langchain_object(llm):
        raise ConfigurationError(
            f"{type(llm).__name__} is a LangChain model: wrap it in "
            "langchain_fasttog.LangChainLLM(model), or call langchain_fasttog.evaluate"
        )
    if isinstance(llm, ChatLLM):
        return llm
    raise ConfigurationError(
        "llm must be a kgcore ChatLLM (generate(LLMRequest) -> LLMReply); wrap a LangChain chat "
        f"model in langchain_fasttog.LangChainLLM; got {type(llm).__name__}"
    )


def check_not_all_failing(records: list[dict[str, Any]], label: str) -> None:
    """Raise when every one of ``records`` failed with the same error.

    Example
    -------
    >>> check_not_all_failing([{"error": "TypeError: x"}] * 3, "io")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: io: the first 3 questions all failed with: TypeError: x
    """
    errors = {r.get("error") for r in records}
    if records and len(errors) == 1 and None not in errors:
        raise ConfigurationError(
            f"{label}: the first {len(records)} questions all failed with: {errors.pop()}"
        )


class NoLLM:
    """The model given to methods that call none (``echo``, ``MethodSpec.needs_llm=False``):
    ``kgqa eval`` loads no model for them, and a request would be a bug, so it is refused.

    Example
    -------
    >>> NoLLM().generate(LLMRequest.from_prompt("hi", purpose="io"))
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: no LLM was loaded, yet a method asked one ('io')
    """

    def generate(self, request: LLMRequest) -> LLMReply:
        raise ConfigurationError(f"no LLM was loaded, yet a method asked one ({request.purpose!r})")


class SerializedLLM:
    """Lets one model serve a worker pool one request at a time (llama.cpp is not re-entrant).

    Graph work of other questions still overlaps with the model's turn.
    """

    def __init__(self, llm: ChatLLM) -> None:
        self.llm = llm
        self._lock = threading.Lock()

    def generate(self, request: LLMRequest) -> LLMReply:
        # A call whose caller gave up (its deadline passed: ``request.cancel`` is set) while it
        # waited for its turn ends without calling the model.
        while not self._lock.acquire(timeout=0.05):
            if request.cancel is not None and request.cancel.is_set():
                raise TimeoutError("the call's deadline passed while it waited for the model")
        try:
            started = time.perf_counter()
            reply = self.llm.generate(request)
        finally:
            self._lock.release()
        if not reply.seconds:
            reply = LLMReply(
                reply.text,
                reply.prompt_tokens,
                reply.completion_tokens,
                time.perf_counter() - started,
            )
        return reply


@dataclass
class EvalRun:
    """One method over one dataset: its records (resumed ones included) and their summary."""

    method: str
    label: str
    dataset: str
    records: list[dict[str, Any]]
    trace_path: Path | None
    summary_path: Path | None = None
    skipped: int = 0
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def accuracy(self) -> float | None:
        return self.summary.get("hit@1")


def run_label(method: str, options: Mapping[str, Any] | None) -> str:
    """``tog`` or ``tog[width=2]``: the method and its non-default options."""
    if not options:
        return method
    inner = ",".join(f"{k}={options[k]}" for k in sorted(options))
    return f"{method}[{inner}]"


def _record(
    example: EvalExample,
    dataset: str,
    method: str,
    label: str,
    options: Mapping[str, Any],
    engine: Any,
) -> dict[str, Any]:
    config = getattr(engine, "config", None)
    return {
        "id": example.id,
        "dataset": dataset,
        "method": method,
        "run": label,
        "options": dict(options),
        "max_community_size": getattr(config, "max_community_size", None),
        "question": example.question,
        "answers": list(example.answers),
        "topic_entities": list(example.topic_entities),
    }


def run_example(
    engine: Any,
    example: EvalExample,
    llm: ChatLLM,
    base: dict[str, Any],
    retry: RetryPolicy | None = None,
) -> dict[str, Any]:
    """Answer one example and score it; a failure becomes an ``error`` field, not a crash.

    ``retry`` is the policy of the model calls (default
    :data:`~kgcore.llm.protocol.DEFAULT_RETRY`: every call has a deadline).

    ``hit`` is hit@1 under the topic-entity rule
    (:func:`~kgeval.metrics.scored_hit`): an answer echoing a topic entity that is
    no gold answer is a miss. The record is returned as the trace will hold it
    (:func:`~kgeval.records.writable_record`: a NaN time is ``null`` and named in
    ``nulled``); a result no trace could hold is recorded as an error instead.
    """
    record = dict(base)
    started = time.perf_counter()
    try:
        topics = list(example.topic_entities) or None
        result = run_steps(engine.steps(example.question, topics), llm, retry)
    except Exception as err:  # noqa: BLE001 - one bad question must not end a long run
        kind = "" if isinstance(err, KGRetrieverError) else f"{type(err).__name__}: "
        return failed_record(base, f"{kind}{err}", time.perf_counter() - started)
    context = result.context or ""
    answered = prediction_answered(result.answer, getattr(result, "answered", None))
    record.update(
        prediction=result.answer,
        answered=answered,
        hit=scored_hit(result.answer, example.answers, example.topic_entities, answered),
        recall=answer_recall(context, example.answers),
        llm_calls=result.llm_calls,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        depth=result.depth,
        fell_back=result.fell_back,
        graph_seconds=round(result.graph_seconds, 4),
        llm_seconds=round(result.llm_seconds, 4),
        total_seconds=round(time.perf_counter() - started, 4),
        context=context[:MAX_TRACE_CONTEXT],
        extra=_jsonable(result.extra),
        error=None,
    )
    try:  # as the trace will hold it: a NaN time becomes null and is named
        return writable_record(record)
    except ConfigurationError as err:
        return failed_record(base, str(err), time.perf_counter() - started)


def failed_record(base: dict[str, Any], error: str, seconds: float) -> dict[str, Any]:
    """The record of a question that failed with ``error`` (a miss, its error named)."""
    record = dict(base)
    record.update(prediction="", hit=False, recall=None, error=error, total_seconds=seconds)
    return writable_record(record)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


@locks_output_folder  # one process per output folder (issue 12)
def evaluate(
    method: str,
    data: str | Dataset,
    llm: ChatLLM,
    *,
    store: GraphStore | None = None,
    options: Mapping[str, Any] | None = None,
    workers: int = 1,
    out_dir: str | Path | None = None,
    resume: bool = True,
    retry_errors: bool = False,
    serialize_llm: bool = False,
    progress: bool = True,
    plots: bool = True,
    summary_name: str = "summary.md",
    fail_fast: int = FAIL_FAST,
    retry: RetryPolicy | None = None,
) -> EvalRun:
    """Run ``method`` on every question of ``data`` and score it.

    Parameters
    ----------
    method : str
        A registered name: fasttog, fasttog-node, tog, cgpe, gretriever, io, cot, cot-sc or
        echo (no LLM call: the first topic entity).
    data : str or Dataset
        A dataset or a spec naming one, such as ``"metaqa:2hop:10"``,
        ``"pathquestion:PQ-3H:10"``, ``"webqsp:10"`` or ``"cwq"`` (see
        :func:`~kgeval.datasets.load_dataset`); a shorthand for several datasets
        (``"all"``, ``"pathquestion:all"``) is refused: load them with
        :func:`~kgeval.datasets.load_datasets` and evaluate each.
    llm : ChatLLM
        The model, a kgcore ChatLLM (:func:`as_chat_llm`; ``langchain_fasttog.evaluate``
        takes a LangChain chat model);
        with ``workers > 1`` it must accept concurrent calls, or pass ``serialize_llm=True``.
    store : GraphStore, optional
        The shared graph; by default the dataset's triple file is loaded. Questions carrying
        their own triples get a graph of their own.
    options : mapping, optional
        Method options (``{"width": 2}``); they name the run in traces and tables.
    workers : int
        Questions answered at the same time.
    out_dir : path, optional
        Where the trace (``<run>__<dataset>.jsonl``) and the Markdown summary go; without it
        nothing is written and nothing resumed.
    resume : bool
        Skip questions already in the trace.
    retry_errors : bool
        Re-run questions whose trace records an error.
    serialize_llm : bool
        Send the model one request at a time.
    progress : bool
        Show a progress bar with the running hit@1.
    plots, summary_name :
        Whether to draw the PNG plots, and the summary file's name in ``out_dir``.
    retry : RetryPolicy, optional
        How model calls are retried and how long one may take (``RetryPolicy(timeout=...)``;
        default :data:`~kgcore.llm.protocol.DEFAULT_RETRY`, a deadline of
        :data:`~kgcore.llm.protocol.DEFAULT_LLM_TIMEOUT` seconds a call). With
        ``serialize_llm`` the deadline includes the wait for the model.
    fail_fast : int
        When the first ``fail_fast`` questions of the run all fail with the same error, raise
        :class:`~kgcore.exceptions.ConfigurationError` naming it, and write none of their
        traces (a rerun after the fix starts afresh). Only failed records wait for the check:
        an answered question is written at once, so a killed run keeps every answer. 0
        disables the check.

    Raises
    ------
    ConfigurationError
        For an unusable ``llm``, a bad option, a bad dataset spec (or one naming several
        datasets), or the same error on the first questions.
    """
    if workers < 1:
        raise ConfigurationError("workers must be at least 1")
    if out_dir is not None and not summary_name.strip():
        raise ConfigurationError("summary_name is empty: give a file name, such as summary.md")
    spec = get_method(method)
    dataset = load_dataset(data) if isinstance(data, str) else data
    check_example_ids(dataset.name, dataset.examples)  # repeated ids would merge questions
    if not dataset.examples:
        raise ConfigurationError(f"dataset {dataset.name!r} has no questions: nothing to evaluate")
    options = dict(options or {})
    label = run_label(method, options)
    llm = as_chat_llm(llm)
    if serialize_llm:
        llm = SerializedLLM(llm)

    trace_path = Path(out_dir) / trace_file_name(label, dataset.name) if out_dir else None
    done: dict[str, dict[str, Any]] = {}
    if trace_path is not None and resume:
        ids = {e.id for e in dataset.examples}
        for record in read_traces(trace_path):  # bad records are skipped, so run again
            if record["id"] not in ids or (retry_errors and record.get("error")):
                continue  # only the dataset's questions count
            done[record["id"]] = record
    todo = [e for e in dataset.examples if e.id not in done]

    shared_engine = None
    needs_shared = spec.needs_graph and any(e.triples is None for e in todo)
    if needs_shared:
        if store is None:
            if dataset.graph_path is None:
                raise ConfigurationError(
                    f"method {method!r} needs a knowledge graph: pass store= or use a dataset "
                    "with a graph file or per-question triples"
                )
            store = InMemoryGraphStore.from_file(dataset.graph_path, progress=progress)
    if not spec.needs_graph or needs_shared:
        shared_engine = make_method(method, store if spec.needs_graph else None, **options)

    def engine_for(example: EvalExample) -> Any:
        if spec.needs_graph and example.triples is not None:
            return make_method(method, InMemoryGraphStore.from_triples(example.triples), **options)
        return shared_engine

    def task(example: EvalExample) -> dict[str, Any]:
        engine = engine_for(example)
        base = _record(example, dataset.name, method, label, options, engine)
        return run_example(engine, example, llm, base, retry)

    finished = [done[e.id] for e in dataset.examples if e.id in done]
    hits = sum(score_record(r).hit for r in finished)
    count = len(finished)
    with (
        tqdm(
            total=len(dataset.examples), initial=len(finished), desc=label, disable=not progress
        ) as bar,
        ThreadPoolExecutor(max_workers=workers) as pool,
    ):
        futures = [pool.submit(task, example) for example in todo]
        # The first failed records wait until they show the run is not failing on every
        # question; an answered one is written at once (a kill loses no answer) and ends the
        # wait, since the run is then not failing on every question.
        first_n = min(fail_fast, len(todo)) if fail_fast > 0 and len(todo) > 1 else 0
        held: list[dict[str, Any]] = []
        checking = first_n > 0

        def accept(record: dict[str, Any]) -> None:
            nonlocal hits, count
            if trace_path is not None:
                append_trace(trace_path, record)
            done[record["id"]] = record
            hits += score_record(record).hit
            count += 1
            bar.update(1)
            bar.set_postfix(hit1=f"{hits / count:.2f}")

        try:
            for future in as_completed(futures):
                record = future.result()
                if checking and record.get("error"):
                    held.append(record)
                    if len(held) < first_n:
                        continue
                    check_not_all_failing(held, label)
                if checking:
                    checking = False
                    for kept in held:
                        accept(kept)
                    if record.get("error"):
                        continue  # it was the last one held, accepted above
                accept(record)
        except BaseException:
            for future in futures:
                future.cancel()
            raise

    if trace_path is not None:
        write_dataset_ids(trace_path, dataset.name, (e.id for e in dataset.examples))
    records = [done[e.id] for e in dataset.examples if e.id in done]
    run = EvalRun(
        method=method,
        label=label,
        dataset=dataset.name,
        records=records,
        trace_path=trace_path,
        skipped=len(dataset.examples) - len(todo),
        summary=summarize(records),
    )
    if out_dir is not None:
        run.summary_path = write_report(out_dir, summary_name=summary_name, plots=plots)
    return run
