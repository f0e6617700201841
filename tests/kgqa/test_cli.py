from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgqa.cli import build_parser, format_result, main


def test_ask_options_map_onto_the_config() -> None:
    args = build_parser().parse_args(
        [
            "ask",
            "who directed [Giant]",
            "--kg",
            "kb.txt",
            "--width",
            "2",
            "--depth",
            "3",
            "--max-community-size",
            "5",
            "--algorithm",
            "leiden",
            "--seed",
            "9",
        ]
    )
    from kgqa.cli import _config_from

    config = _config_from(args)
    assert (config.width, config.max_depth, config.max_community_size) == (2, 3, 5)
    assert (config.algorithm, config.seed, config.fallback) == ("leiden", 9, "cot")


def test_result_is_printed_with_chains_and_figures(movie_store) -> None:
    result = FastToG(movie_store, FastToGConfig(width=2, max_community_size=2)).run(
        "which films share the director of [Cleopatra]", ScriptedLLM(["{1}", "{All About Eve}"])
    )
    text = format_result(result)
    assert text.startswith("Answer: All About Eve\nStart: Cleopatra\nChain 1:\n  [depth 1] {")
    assert "LLM calls 2" in text and "fallback no" in text


def test_errors_are_reported_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["ask", "who directed [Giant]", "--kg", str(tmp_path / "missing.txt"), "--quiet"])
    assert code == 2
    assert "kgqa: error:" in capsys.readouterr().err
    kb = tmp_path / "kb.txt"
    kb.write_text("Giant|directed_by|George Stevens\n")
    code = main(["ask", "who directed [Gigantic Zzz]", "--kg", str(kb), "--llm", "nope", "--quiet"])
    assert code == 2
    assert "unknown model 'nope'" in capsys.readouterr().err
    # The model loads lazily: an unknown entity is reported before any LLM call.
    code = main(
        ["ask", "who directed [Gigantic Zzz]", "--kg", str(kb), "--llm", "local-small", "--quiet"]
    )
    assert code == 2
    assert "closest names: 'Giant'" in capsys.readouterr().err
