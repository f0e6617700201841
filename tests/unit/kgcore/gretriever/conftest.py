from __future__ import annotations

import pytest

from tests.support.gretriever_fakes import TableEmbedder


@pytest.fixture
def table_embedder() -> TableEmbedder:
    return TableEmbedder(dim=8)
