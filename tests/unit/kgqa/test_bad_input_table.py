"""Every bad input of issue 51 (item 5), and the other commands' options checked at the door:
each runs the real ``kgqa`` in a child process and must end with exit status 2, exactly one
line on stderr, no traceback, and nothing written (the working folder lists the same files
before and after). Ctrl-C during ``kgqa eval`` ends with 130 and one line, the records written
so far whole.

Each row gives the arguments (``{d}``: the working folder), the environment it sets and a
piece of the error line. A row that would load a model or a graph first is a failure of the
door: every row ends within seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import REPO

#: (id, argv, environment, expected piece of the error line)
BAD_INPUTS: list[tuple[str, list[str], dict[str, str], str]] = [
    # --kg: a Bolt URI's port and host, a graph that is no regular file
    ("ask port 99999", ["ask", "who [a]", "--kg", "bolt://127.0.0.1:99999"], {},
     "port '99999' is not a number from 1 to 65535"),
    ("ask port abc", ["ask", "who [a]", "--kg", "bolt://127.0.0.1:abc"], {},
     "port 'abc' is not a number"),
    ("eval port 99999", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl", "--out",
     "{d}/runs", "--kg", "bolt://h:99999"], {}, "port '99999'"),
    ("load port abc", ["load", "{d}/kb.txt", "--kg", "neo4j://h:abc"], {}, "port 'abc'"),
    ("ask no host", ["ask", "who [a]", "--kg", "bolt://:7687"], {}, "names no host"),
    ("ask draw /proc/x", ["ask", "who [a]", "--kg", "{d}/kb.txt", "--draw", "/proc/x/a.png"],
     {}, "cannot be made: /proc/x"),
    ("ask kg device", ["ask", "who [a]", "--kg", "/dev/full"], {}, "is not a regular file"),
    ("ask kg folder", ["ask", "who [a]", "--kg", "{d}/folder"], {}, "is a directory"),
    ("eval kg missing", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl", "--out",
     "{d}/runs", "--kg", "{d}/absent.txt"], {}, "no such triple file"),
    # --out
    ("eval out /proc/x", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl", "--out",
     "/proc/x"], {}, "cannot be made"),
    ("eval out empty", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl", "--out", ""],
     {}, "the output folder is empty"),
    ("eval out under a file", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl",
     "--out", "{d}/kb.txt/runs"], {}, "is a file"),
    ("eval lock is a folder", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl",
     "--out", "{d}/locked"], {}, "is not a file (a folder?)"),
    ("report-only out file", ["eval", "--report-only", "--out", "{d}/kb.txt"], {}, "is a file"),
    # --summary, checked before any question runs
    ("eval summary empty", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl", "--out",
     "{d}/runs", "--summary", ""], {}, "--summary is empty"),
    ("eval summary under a file", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl",
     "--out", "{d}/made", "--summary", "note.txt/summary.md"], {}, "is a file, not a folder"),
    ("eval summary a folder", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl",
     "--out", "{d}/made", "--summary", "sub"], {}, "names a folder"),
    ("eval summary a trace", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl", "--out",
     "{d}/runs", "--summary", "echo__qa.jsonl"], {}, "name of a trace file"),
    ("report-only summary empty", ["eval", "--report-only", "--out", "{d}/made", "--summary",
     " "], {}, "--summary is empty"),
    # datasets
    ("eval empty dataset", ["eval", "--method", "echo", "--data", "jsonl:{d}/empty.jsonl",
     "--out", "{d}/runs"], {}, "has no questions"),
    ("eval limit 0", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl:0", "--out",
     "{d}/runs"], {}, "has no questions"),
    ("eval repeated ids", ["eval", "--method", "echo", "--data", "jsonl:{d}/twice.jsonl",
     "--out", "{d}/runs"], {}, "repeated question ids: 'q1' (lines 1, 2)"),
    ("eval null id", ["eval", "--method", "echo", "--data", "jsonl:{d}/null_id.jsonl", "--out",
     "{d}/runs"], {}, "null_id.jsonl:1: 'id' must be a non-empty string"),
    # the model file of --llm
    ("ask model file missing", ["ask", "who [a]", "--kg", "{d}/kb.txt"],
     {"KGQA_QWEN_GGUF": "{d}/absent.gguf"}, "absent.gguf: no such file"),
    ("ask model is a folder", ["ask", "who [a]", "--kg", "{d}/kb.txt", "--llm", "local-small"],
     {"KGQA_SMOLLM_GGUF": "{d}/folder"}, "is not a file"),
    ("eval model no gguf", ["eval", "--method", "io", "--data", "jsonl:{d}/qa.jsonl", "--out",
     "{d}/runs"], {"KGQA_QWEN_GGUF": "{d}/kb.txt"}, "is not a GGUF model file"),
    ("gretriever llm folder missing", ["gretriever", "train", "--llm", "./absent-model",
     "--out", "{d}/gnn"], {}, "no such model folder"),
    # numbers and folders of the other commands
    ("load batch size 0", ["load", "{d}/kb.txt", "--batch-size", "0"], {}, "whole number >= 1"),
    ("load write timeout -1", ["load", "{d}/kb.txt", "--write-timeout", "-1"], {},
     "must be in (0, 3600]"),
    ("eval workers 0", ["eval", "--method", "echo", "--data", "jsonl:{d}/qa.jsonl", "--out",
     "{d}/runs", "--workers", "0"], {}, "whole number >= 1"),
    ("gretriever epochs -1", ["gretriever", "train", "--epochs", "-1"], {}, "whole number >= 1"),
    ("gretriever threads -3", ["gretriever", "train", "--threads", "-3"], {},
     "whole number >= 1"),
    ("gretriever lr 0", ["gretriever", "train", "--lr", "0"], {}, "a number > 0"),
    ("gretriever projector lr 0", ["gretriever", "train", "--projector-lr", "0"], {},
     "a number > 0"),
    ("gretriever pretrain epochs 0", ["gretriever", "train", "--pretrain-gnn-epochs", "0"], {},
     "whole number >= 1"),
    ("gretriever pretrain without a gnn", ["gretriever", "train", "--mode", "inference",
     "--pretrain-gnn-epochs", "3", "--out", "{d}/gnn"], {}, "needs --mode prompt or lora"),
    ("gretriever warmup 1", ["gretriever", "train", "--warmup-ratio", "1"], {}, "< 1"),
    ("gretriever out /proc/x", ["gretriever", "train", "--out", "/proc/x"], {},
     "cannot be made: /proc/x"),
    ("gretriever scorer on explagraphs", ["gretriever", "train", "--mode", "scorer", "--out",
     "{d}/gnn"], {}, "--mode scorer trains on --data pathquestion"),
    ("gretriever pathquestion prompt", ["gretriever", "train", "--data", "pathquestion",
     "--out", "{d}/gnn"], {}, "add --mode scorer"),
    ("gretriever scorer data missing", ["gretriever", "train", "--data", "pathquestion",
     "--mode", "scorer", "--data-dir", "{d}/absent", "--out", "{d}/gnn"], {},
     "training questions not found"),
    ("gretriever evaluate out folder", ["gretriever", "evaluate", "--checkpoint", "{d}/kb.txt",
     "--out", "{d}/folder"], {}, "is a folder"),
    ("gretriever evaluate sample 0", ["gretriever", "evaluate", "--checkpoint", "x",
     "--sample", "0"], {}, "whole number >= 1"),
    ("load NEO4J_URI port", ["load", "{d}/kb.txt"], {"NEO4J_URI": "bolt://h:70000"},
     "NEO4J_URI 'bolt://h:70000': port '70000'"),
    ("schema sample 0", ["schema", "--kg", "bolt://h:7687", "--sample", "0"], {},
     "whole number >= 1"),
    ("schema deadline -1", ["schema", "--kg", "bolt://h:7687", "--deadline", "-1"], {},
     "must be in (0, 3600] seconds"),
    ("schema port abc", ["schema", "--kg", "bolt://h:abc"], {}, "port 'abc'"),
    ("index port 99999", ["index", "--kg", "bolt://h:99999"], {}, "port '99999'"),
    ("ask bad names option", ["ask", "who [a]", "--kg", "bolt://h:7687?names=Person"], {},
     "takes Label:property pairs"),
    ("g2t train epochs 0", ["g2t", "train", "--epochs", "0"], {}, "whole number >= 1"),
    ("g2t train out /proc/x", ["g2t", "train", "--out", "/proc/x"], {}, "cannot be made: /proc/x"),
    ("g2t train data missing", ["g2t", "train", "--out", "{d}/g2t", "--train",
     "{d}/absent.jsonl"], {}, "--train '{d}/absent.jsonl': no such file"),
    ("g2t synth out folder", ["g2t", "synth", "--out", "{d}/folder"], {}, "is a folder"),
    ("g2t synth kg device", ["g2t", "synth", "--out", "{d}/pairs.jsonl", "--kg", "/dev/full"],
     {}, "is not a regular file"),
    ("g2t synth n 0", ["g2t", "synth", "--n", "0"], {}, "whole number >= 1"),
    ("g2t publish no model", ["g2t", "publish", "{d}/absent", "--repo-id", "org/name"], {},
     "model folder"),
    ("g2t publish bad metrics", ["g2t", "publish", "{d}/folder", "--repo-id", "org/name",
     "--dry-run", "{d}/stage", "--metrics", "{d}/kb.txt"], {}, "kb.txt cannot be read"),
    ("models install dir /proc/x", ["models", "install", "--dir", "/proc/x"], {},
     "cannot be made: /proc/x"),
    ("models install dir a file", ["models", "install", "--dir", "{d}/kb.txt"], {},
     "is a file"),
]  # fmt: skip


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The child's working folder, with the files the rows name."""
    (tmp_path / "kb.txt").write_text("a|r|b\n")
    (tmp_path / "qa.jsonl").write_text(
        json.dumps({"id": "q1", "question": "who is [a]?", "answers": ["b"]}) + "\n"
    )
    (tmp_path / "empty.jsonl").write_text("")
    row = {"question": "who is [a]?", "answers": ["b"]}
    (tmp_path / "twice.jsonl").write_text(
        "".join(json.dumps({"id": "q1", **row}) + "\n" for _ in range(2))
    )
    (tmp_path / "null_id.jsonl").write_text(json.dumps({"id": None, **row}) + "\n")
    (tmp_path / "folder").mkdir()
    (tmp_path / "locked" / ".kgqa-eval.lock").mkdir(parents=True)
    (tmp_path / "made" / "sub").mkdir(parents=True)
    (tmp_path / "made" / "note.txt").write_text("a file where a folder would go")
    return tmp_path


def listing(folder: Path) -> dict[str, int]:
    """Every path under ``folder`` with its size (a folder: -1)."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size if p.is_file() else -1)
        for p in sorted(folder.rglob("*"))
    }


def child_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGQA_", "NEO4J_"))}
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [row[1:] for row in BAD_INPUTS],
    ids=[row[0] for row in BAD_INPUTS],
)
def test_a_bad_input_exits_2_with_one_line_and_writes_nothing(
    argv: list[str], env: dict[str, str], expected: str, work: Path
) -> None:
    before = listing(work)
    done = subprocess.run(
        [sys.executable, "-m", "kgqa", *(a.format(d=work) for a in argv)],
        capture_output=True, text=True, cwd=work, timeout=120,
        env=child_env({k: v.format(d=work) for k, v in env.items()}),
    )  # fmt: skip
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert expected.format(d=work) in lines[0], lines[0]
    assert done.stdout == ""
    assert listing(work) == before
    assert not Path("/proc/x").exists()


#: A child run with one optional module hidden (as when its extra is not installed).
WITHOUT_MODULE = (
    "import sys; sys.modules[sys.argv[1]] = None; sys.argv[1:2] = []; "
    "from kgqa.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.parametrize(
    ("module", "argv", "expected"),
    [
        ("llama_cpp", ["ask", "who [a]", "--kg", "{d}/kb.txt"], "'llama_cpp', which is not"),
        ("llama_cpp", ["eval", "--method", "io", "--data", "jsonl:{d}/qa.jsonl", "--out",
                       "{d}/runs"], "pip install 'kg-retrievers[local]'"),
        ("neo4j", ["ask", "who [a]", "--kg", "bolt://127.0.0.1:1"], "'neo4j', which is not"),
    ],
    ids=["ask without llama_cpp", "eval without llama_cpp", "ask without neo4j"],
)  # fmt: skip
def test_a_missing_extra_is_reported_before_anything_loads(
    module: str, argv: list[str], expected: str, work: Path
) -> None:
    before = listing(work)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_MODULE, module, *(a.format(d=work) for a in argv)],
        capture_output=True, text=True, cwd=work, timeout=120, env=child_env({}),
    )  # fmt: skip
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert expected in lines[0] and "Traceback" not in done.stderr
    assert listing(work) == before
    assert time.monotonic() - started < 60  # no graph, embedder or model was loaded


def _ctrl_c_as_at_a_terminal() -> None:
    """In the child before ``kgqa`` starts: Ctrl-C's default disposition. A test run started in
    the background (``nohup ... &``) passes SIGINT on ignored, and Python then installs no
    KeyboardInterrupt handler, so the child would run on."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX here")
def test_ctrl_c_during_eval_exits_130_with_one_line_and_whole_records(work: Path) -> None:
    rows = (
        json.dumps({"id": f"q{i}", "question": f"who is [e{i}]?", "answers": ["x"]})
        for i in range(300_000)
    )
    (work / "many.jsonl").write_text("\n".join(rows) + "\n")
    trace = work / "runs" / "echo__many.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-m", "kgqa", "eval", "--method", "echo", "--data",
         f"jsonl:{work}/many.jsonl", "--out", str(work / "runs"), "--quiet", "--no-plots"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work,
        env=child_env({}), preexec_fn=_ctrl_c_as_at_a_terminal,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while not (trace.exists() and trace.stat().st_size > 10_000):
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the run wrote no records"
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, err
    assert len(err.splitlines()) == 1 and "interrupted" in err and "Traceback" not in err
    lines = trace.read_bytes().split(b"\n")
    assert lines[-1] == b""  # the last record is whole
    records = [json.loads(line) for line in lines[:-1]]
    assert 0 < len(records) < 300_000
    ids = [r["id"] for r in records]
    assert len(set(ids)) == len(ids) and all(r["dataset"] == "many" for r in records)
