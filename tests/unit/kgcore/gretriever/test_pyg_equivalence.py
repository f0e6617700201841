"""Same subgraph as PyG's ``retrieval_via_pcst`` on random graphs with the same embeddings."""

from __future__ import annotations

import numpy as np
import pytest

from kgcore.gretriever import EmbeddedTexts, GraphIndex, GRetriever, PCSTSettings, TextualGraph
from tests.support.fake_embedder import FakeEmbedder

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")
from torch_geometric.data import Data  # noqa: E402

try:  # PyG >= 2.7 moved it out of the WebQSP dataset module
    from torch_geometric.llm.utils.backend_utils import retrieval_via_pcst
except ImportError:  # pragma: no cover - older PyG
    from torch_geometric.datasets.web_qsp_dataset import retrieval_via_pcst


class _Rows:
    """The two things PyG asks of its pandas tables: ``.iloc[rows]`` and ``.to_csv``."""

    def __init__(self, n: int) -> None:
        self.n = n

    @property
    def iloc(self) -> _Rows:
        return self

    def __getitem__(self, rows: object) -> _Rows:
        return _Rows(len(np.atleast_1d(np.asarray(rows))))

    def __len__(self) -> int:
        return self.n

    def to_csv(self, index: bool = False, columns: object = None) -> str:
        return ""


def _unit(rng: np.random.Generator, rows: int, dim: int) -> np.ndarray:
    x = rng.normal(size=(rows, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(60))
def test_selected_subgraph_matches_pyg(seed: int) -> None:
    rng = np.random.default_rng(seed)
    num_nodes, num_edges, dim = int(rng.integers(3, 80)), int(rng.integers(1, 250)), 16
    edge_index = rng.integers(0, num_nodes, size=(2, num_edges))
    node_vectors = _unit(rng, num_nodes, dim)
    # Half the graphs draw edge texts from a few relations, so many edges tie.
    num_relations = int(rng.integers(1, 8)) if seed % 2 else num_edges
    relation_vectors = _unit(rng, num_relations, dim)
    relation_of_edge = rng.integers(0, num_relations, size=num_edges)
    query = _unit(rng, 1, dim)[0]
    settings = PCSTSettings(
        k_nodes=int(rng.integers(0, 6)),
        k_edges=int(rng.integers(0, 8)),
        edge_cost=float(rng.choice([0.1, 0.5, 1.0, 2.5])),
    )

    graph = TextualGraph(
        tuple(f"n{i}" for i in range(num_nodes)),
        edge_index,
        tuple(f"r{j}" for j in relation_of_edge),
    )
    index = GraphIndex(
        graph,
        EmbeddedTexts(graph.node_texts, node_vectors, np.arange(num_nodes)),
        EmbeddedTexts(
            tuple(f"r{j}" for j in range(num_relations)), relation_vectors, relation_of_edge
        ),
        embedder=FakeEmbedder(vectors={"question": query}),  # the unit vector, as given
    )
    ours = GRetriever(index, pcst=settings).retrieve("question")

    data = Data(
        x=torch.tensor(node_vectors),
        edge_index=torch.tensor(edge_index),
        edge_attr=torch.tensor(relation_vectors[relation_of_edge]),
        node_idx=np.arange(num_nodes),
        edge_idx=np.arange(num_edges),
    )
    theirs, _ = retrieval_via_pcst(
        data,
        torch.tensor(query),
        _Rows(num_nodes),
        _Rows(num_edges),
        topk=settings.k_nodes,
        topk_e=settings.k_edges,
        cost_e=settings.edge_cost,
    )
    assert list(ours.node_ids) == sorted(np.asarray(theirs.node_idx).tolist())
    assert list(ours.edge_ids) == sorted(np.asarray(theirs.edge_idx).tolist())
