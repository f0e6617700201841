"""kgcore.foreign_graphs.as_graph_store refuses what it cannot read."""

from __future__ import annotations

import pytest

from kgcore.foreign_graphs import as_graph_store


def test_anything_else_is_refused_naming_what_is_accepted() -> None:
    from kgcore.exceptions import ConfigurationError

    with pytest.raises(ConfigurationError, match="NetworkxEntityGraph.*got list"):
        as_graph_store([("a", "r", "b")])
