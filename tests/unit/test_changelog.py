"""The changelog's entries stay one short line each (issue 63): figures live in benchmarks/."""

from __future__ import annotations

from pathlib import Path

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"


def test_every_entry_is_one_line_of_at_most_120_characters() -> None:
    lines = CHANGELOG.read_text(encoding="utf-8").splitlines()
    entries = [line for line in lines if line.startswith("- ")]
    assert entries
    long = [line[:60] for line in entries if len(line) > 120]
    assert not long, f"changelog entries over 120 characters: {long}"
    # An entry's text does not run on to a second, indented line.
    assert not [line for line in lines if line.startswith("  ") and line.strip()]
