"""``kgqa ask``'s progress: each step of the run on stderr, as it happens.

The lines come from the method's step records (:func:`kgcore.methods.kernel.listening_to_steps`),
the same records LangChain callbacks get as ``kg_step`` events: which communities were offered,
which were picked, what each reasoning step answered.

Example
-------
>>> describe_step({"purpose": "prune", "offered": [["Giant"], ["Shane", "1953"]],
...                "picked": [1]})
'prune: 2 offered {Giant} | {Shane, 1953} -> picked {Shane, 1953}'
>>> describe_step({"purpose": "reason", "depth": 1, "answer": None, "parsed": "Shane"})
"reason (depth 1): no answer yet (the model said 'Shane')"
>>> describe_step({"purpose": "reason", "depth": 2, "answer": "Shane", "parsed": "Shane"})
'reason (depth 2): answer Shane'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from kgcore.methods.kernel import StepListener

#: Characters of one progress line (a step offering many communities is cut).
MAX_LINE = 300
#: Characters of a reply shown when a step has nothing else to show.
MAX_REPLY = 120


def _item(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return "{" + ", ".join(str(v) for v in value) + "}"
    return str(value)


def _items(values: Sequence[object]) -> str:
    return " | ".join(_item(v) for v in values)


def _picked(record: dict[str, object], offered: Sequence[object]) -> str:
    if "picked" not in record:
        return ""
    picked = record["picked"]
    if not isinstance(picked, list):
        return " -> no usable choice"
    chosen = [offered[i] for i in picked if isinstance(i, int) and 0 <= i < len(offered)]
    if not chosen:
        return " -> picked none"
    how = " by similarity" if record.get("ranked") == "similarity" else ""
    return f" -> picked{how} {_items(chosen)}"


def _reply(record: dict[str, object]) -> str:
    reply = " ".join(str(record.get("reply", "")).split())
    return reply[:MAX_REPLY] + ("..." if len(reply) > MAX_REPLY else "")


def describe_step(record: dict[str, object]) -> str:
    """One line for a step record: the step, what was offered and picked, or the answer."""
    purpose = str(record.get("purpose", "step"))
    depth = record.get("depth")
    head = f"{purpose} (depth {depth})" if depth is not None else purpose
    if record.get("retry"):
        head += " (format retry)"
    offered = record.get("offered")
    if "answer" in record:
        answer = record["answer"]
        parsed = record.get("parsed")
        if answer:
            text = f"{head}: answer {answer}"
        elif parsed:
            text = f"{head}: no answer yet (the model said {str(parsed)!r})"
        else:
            text = f"{head}: no answer yet"
    elif isinstance(offered, list):
        if record.get("forced"):
            text = f"{head}: {_items(offered)} taken (no choice to make)"
        else:
            text = f"{head}: {len(offered)} offered {_items(offered)}{_picked(record, offered)}"
            if "picked" not in record and "parsed" in record:
                text += f" -> {record['parsed']}"
    else:
        text = f"{head}: {_reply(record)}"
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 3] + "..."


def step_printer(stream: TextIO) -> StepListener:
    """A step listener printing each step as ``[step N] ...`` on ``stream``, flushed."""
    count = 0

    def show(record: dict[str, object]) -> None:
        nonlocal count
        count += 1
        print(f"[step {count}] {describe_step(record)}", file=stream, flush=True)

    return show
