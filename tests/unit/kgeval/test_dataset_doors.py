"""Dataset files and specs that cannot be read are a :class:`ConfigurationError` naming the file
and line, never a ``UnicodeDecodeError`` (issue 37, items 6 and 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgeval.datasets import load_dataset, load_jsonl, load_metaqa, read_benchmark_rows

BINARY = {
    "png": bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFE]),
    "nul": b'{"question": "a\x00b", "answers": "x"}\n',
    "latin1": '{"question": "Amélie?", "answers": "x"}\n'.encode("latin-1"),
    "second_line": b'{"question": "q", "answers": "x"}\n\xff\xfe\n',
}


@pytest.mark.parametrize("content", BINARY.values(), ids=BINARY.keys())
def test_a_jsonl_dataset_that_is_not_utf8_is_a_configuration_error(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "qa.jsonl"
    path.write_bytes(content)
    with pytest.raises(ConfigurationError, match=r"qa\.jsonl:[12]: (not UTF-8|binary)"):
        load_dataset(f"jsonl:{path}")


@pytest.mark.parametrize("content", BINARY.values(), ids=BINARY.keys())
def test_metaqa_and_benchmark_files_that_are_not_utf8_are_refused(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / "dev_1hop.txt").write_bytes(content)
    with pytest.raises(ConfigurationError, match="dev_1hop.txt"):
        load_metaqa("1hop", data_dir=tmp_path)
    (tmp_path / "dev.jsonl").write_bytes(content)
    with pytest.raises(ConfigurationError, match="dev.jsonl"):
        read_benchmark_rows(tmp_path / "dev.jsonl")


def test_a_utf8_file_with_a_bom_and_crlf_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "dev_1hop.txt"
    path.write_bytes("\ufeffwho directed [Heat]\tMichael Mann\r\n".encode())
    example = load_metaqa("1hop", data_dir=tmp_path).examples[0]
    assert example.question == "who directed [Heat]" and example.answers == ("Michael Mann",)


@pytest.mark.parametrize(
    "triples",
    [None, "abc", ["abc"], [["a", "r", None]], [["a", "r", {"x": 1}]], [["a\x1b", "r", "b"]]],
    ids=repr,
)
def test_per_question_triples_are_checked_like_a_graph_file(
    tmp_path: Path, triples: object
) -> None:
    path = tmp_path / "qa.jsonl"
    row = {"question": "q", "answers": "x", "triples": triples}
    path.write_text(json.dumps(row) + "\n")
    if triples is None:
        assert load_jsonl(path).examples[0].triples is None  # no triples: the shared graph
        return
    with pytest.raises(ConfigurationError, match=r"qa\.jsonl:1: 'triples'"):
        load_jsonl(path)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("metaqa:1hop:-1", "bad limit '-1'"),
        ("metaqa:all:-1", "bad limit '-1'"),
        ("metaqa:-1", "where the split goes"),
        ("metaqa:5", "where the split goes"),
        ("pathquestion:-3", "where the set goes"),
        ("explagraphs:2", "where the split goes"),
        ("webqsp:-1", "bad limit '-1'"),
    ],
)
def test_a_number_in_the_wrong_place_is_named(spec: str, expected: str) -> None:
    with pytest.raises(ConfigurationError, match=expected) as info:
        load_dataset(spec, data_dir="/no/such/folder")
    assert "unknown MetaQA split" not in str(info.value)
