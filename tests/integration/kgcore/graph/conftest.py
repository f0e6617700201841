"""The Neo4j store tests need the driver: without the neo4j extra the folder is skipped."""

from __future__ import annotations

import pytest

pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")
