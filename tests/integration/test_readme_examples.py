"""The README's local-model examples, run as written, print what the README says they print
(issue 39). Slow: each runs the local Qwen2.5-Coder-1.5B on MetaQA's graph (minutes)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from kgcore.exceptions import ConfigurationError
from kglocal.locations import qwen_gguf_path
from tests.support.paths import REPO

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

README = REPO / "README.md"
METAQA_KB = REPO.parent / "shared" / "data" / "metaqa" / "kb.txt"
#: A Python block followed by the ``text`` block of what it prints.
EXAMPLE = re.compile(r"```python\n(.*?)```\n+Prints:\n+```text\n(.*?)```", flags=re.S)


def readme_examples() -> list[tuple[str, str, list[str]]]:
    """``(section, code, printed lines)`` of each README example with its printed output."""
    text = README.read_text(encoding="utf-8")
    found = []
    for match in EXAMPLE.finditer(text):
        section = re.findall(r"^## (.+)$", text[: match.start()], flags=re.M)[-1]
        found.append((section, match.group(1), match.group(2).strip().splitlines()))
    return found


def test_the_readme_shows_what_its_examples_print() -> None:
    sections = [section for section, _, _ in readme_examples()]
    assert any("FastToG" in s for s in sections) and any("G-Retriever" in s for s in sections)


def _qwen_missing() -> bool:
    try:
        qwen_gguf_path()
    except ConfigurationError:
        return True
    return False


@pytest.mark.skipif(_qwen_missing(), reason="the local Qwen GGUF is not installed")
@pytest.mark.skipif(not METAQA_KB.is_file(), reason="MetaQA is not in ../shared/data")
@pytest.mark.parametrize(
    ("code", "printed"),
    [(code, printed) for _, code, printed in readme_examples()],
    ids=[section for section, _, _ in readme_examples()],
)
def test_a_readme_example_prints_what_the_readme_says(code: str, printed: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=3000,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines() == printed
