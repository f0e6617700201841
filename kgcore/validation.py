"""Checks on user input shared by every method.

Example
-------
>>> check_question("  who directed [Cleopatra]? ")
'who directed [Cleopatra]?'
"""

from __future__ import annotations

from typing import Any

from kgcore.exceptions import InvalidQuestionError


def check_question(question: Any) -> str:
    """The question stripped of surrounding space; empty or non-string input is refused."""
    if isinstance(question, dict):
        question = question.get("question", question.get("input"))
    if not isinstance(question, str):
        raise InvalidQuestionError(f"question must be a string, got {type(question).__name__}")
    stripped = question.strip()
    if not stripped:
        raise InvalidQuestionError("question is empty")
    return stripped
