"""Every example notebook runs top to bottom with the scripted models (``LLM = "scripted"``).

Each is executed by papermill in a fresh kernel, in a copy of ``examples/notebooks`` (pictures
and traces land in a temporary folder), and must show its picture. ``make notebooks`` runs the
same notebooks with the local model and saves their outputs.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from tests.support.paths import REPO

NOTEBOOKS = REPO / "examples" / "notebooks"
NAMES = [
    "fasttog_langchain_agent.ipynb",
    "gretriever_llamaindex.ipynb",
    "compare_methods.ipynb",
    "your_own_graph.ipynb",
    "neo4j_movies.ipynb",
]


def test_the_notebooks_are_there_with_a_parameters_cell() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES)
    for name in NAMES:
        notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
        tagged = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1 and 'LLM = "local"' in tagged[0].source, name


def _outputs(notebook: nbformat.NotebookNode, kind: str) -> list[str]:
    found = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if kind == "stream" and output.output_type == "stream":
                found.append(output.text)
            elif kind in output.get("data", {}):
                found.append(output.data[kind])
    return found


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_with_the_scripted_model(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    papermill = pytest.importorskip("papermill")
    work = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, work, ignore=shutil.ignore_patterns("runs", "pictures"))
    # The kernel imports this checkout's packages, whatever is installed.
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    monkeypatch.setenv("PYTHONPATH", path)
    parameters: dict[str, object] = {"LLM": "scripted"}
    if name == "compare_methods.ipynb":
        parameters["OUT"] = str(tmp_path / "runs")
    out = tmp_path / name
    papermill.execute_notebook(
        str(work / name),
        str(out),
        parameters=parameters,
        cwd=str(work),
        progress_bar=False,
        kernel_name="python3",
    )
    executed = nbformat.read(out, as_version=4)
    first = next(c for c in executed.cells if c.get("outputs"))
    record = first.outputs[0].text.splitlines()
    # The first output records the commit (here a copy outside git), the model, the settings.
    assert record[0].startswith("commit ") and record[1].startswith("model: scripted"), record
    assert len(record) >= 3
    assert _outputs(executed, "image/png"), f"{name} shows no picture"
    assert list((work / "pictures").glob("*.png")) or name == "compare_methods.ipynb"
    text = "".join(_outputs(executed, "stream"))
    if name == "compare_methods.ipynb":
        summary = (tmp_path / "runs" / "summary.md").read_text()
        for method in ("io", "cot", "tog", "cgpe", "fasttog", "gretriever"):
            assert f"| {method}" in summary
        assert "0 resumed from the traces" in text
        assert "answer(s) differ in hit from the committed traces" in text
        assert "metaqa-2hop-5: who are the directors of the films written by" in text
    if name == "fasttog_langchain_agent.ipynb":
        assert "Final answer: From the knowledge graph: Dermot Mulroney" in text
        assert "fasttog.prune" in text
        assert "FastToG (through the agent): " in text  # the answer is checked, right or wrong
        footer = re.search(
            r"picture footer: LLM calls (\d+) \(FastToG steps the callback counted: (\d+)\)", text
        )
        assert footer and footer[1] == footer[2] != "0"  # the picture counts the real calls
    if name == "neo4j_movies.ipynb":  # the movies graph on the embedded Bolt server
        assert "Person: named by name; facts: born" in text and "1999 is a literal: True" in text
    if name == "your_own_graph.ipynb":
        assert "closest names:" in text and "candidate communities pruned" in text
    if name == "gretriever_llamaindex.ipynb":
        assert "PCST subgraph:" in text and "of the neighbourhood" in text
        assert "gold answers: ['Michael Cristofer', 'James Bridges']" in text
        assert "RetrieverQueryEngine: " in text and "PropertyGraphIndex: " in text
