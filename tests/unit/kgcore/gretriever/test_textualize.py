from __future__ import annotations

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever import textualize_paper, textualize_triples
from kgcore.gretriever.textualize import check_text_format


def test_paper_format_is_node_table_blank_line_edge_table() -> None:
    text = textualize_paper([(0, "cannabis"), (4, "good thing")], [(0, "capable of", 4)])
    assert text == (
        "node_id,node_attr\n0,cannabis\n4,good thing\n\nsrc,edge_attr,dst\n0,capable of,4\n"
    )


def test_paper_format_quotes_commas_like_pandas() -> None:
    text = textualize_paper([(0, "Crouching Tiger, Hidden Dragon")], [])
    assert '0,"Crouching Tiger, Hidden Dragon"' in text


def test_triples_format_one_per_line() -> None:
    assert textualize_triples([("a", "r", "b"), ("b", "s", "c")]) == "(a, r, b)\n(b, s, c)"


def test_unknown_format_is_rejected() -> None:
    with pytest.raises(ConfigurationError):
        check_text_format("json")
