"""The built wheel, installed into fresh virtual environments, one per feature's extras.

For ``[langchain]`` and for ``[llamaindex,embeddings]`` (torch installed first from the CPU
wheel, as ``make setup`` does): a retrieval with a fake model runs, the ``kgqa`` script names
the extra it lacks, and no CUDA package is installed. The wheel carries the small Graph2Text
model: ``FastToG(graph, textualizer="g2t")`` and ``graph2text_tool()`` run with it (issue 39),
naming it (without the ``g2t`` extra the T5 stands in for the fine-tuned model, issue 50);
``kgqa --version`` and ``kgqa eval --help`` say what they should, and ``kgqa ask --draw``
without the ``visualize`` extra exits 2 within 5 seconds, before loading anything; ``pip
check`` stays quiet. Slow (minutes): it builds and installs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import PACKAGES, REPO

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

TRIPLES = """[("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
           ("All About Eve", "directed_by", "Joseph L. Mankiewicz")]"""

LANGCHAIN_CHECK = textwrap.dedent(
    f"""
    import importlib.util
    import kgcore
    assert "/venv/" in kgcore.__file__, kgcore.__file__  # the installed wheel, not the checkout
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from kgcore.graph import InMemoryGraphStore
    from langchain_fasttog import FastToGRetriever
    store = InMemoryGraphStore.from_triples({TRIPLES})
    llm = FakeListChatModel(responses=["{{All About Eve}}"])  # one candidate: no pruning call
    docs = FastToGRetriever(graph=store, llm=llm, max_community_size=2).invoke(
        "which films share the director of [Cleopatra]")
    assert docs[0].metadata["answer"] == "All About Eve", docs
    # every retriever, as an agent's tool
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_fasttog import CGPERetriever, GRetrieverRetriever, ToGRetriever
    retrievers = [cls(graph=store, llm=llm) for cls in (FastToGRetriever, ToGRetriever,
                                                        CGPERetriever)]
    fake = DeterministicFakeEmbedding(size=8)
    retrievers.append(GRetrieverRetriever(graph=store, embeddings=fake))
    for retriever in retrievers:
        assert retriever.as_tool(name="kg", description="the movie graph").name == "kg"
    assert importlib.util.find_spec("llama_index") is None, "LlamaIndex in a LangChain install"
    assert importlib.util.find_spec("neo4j") is None
    print("retrieval ok")
    """
)

LLAMAINDEX_CHECK = textwrap.dedent(
    f"""
    import importlib.util
    import kgcore
    assert "/venv/" in kgcore.__file__, kgcore.__file__  # the installed wheel, not the checkout
    from llama_index.core.llms import MockLLM
    from llamaindex_gretriever import GRetrieverRetriever, graph_query_engine
    retriever = GRetrieverRetriever.from_triples({TRIPLES}, text_format="triples",
                                                 cache_dir=None)
    response = graph_query_engine(retriever, llm=MockLLM()).query("who directed [Cleopatra]")
    assert "(Cleopatra, directed by, Joseph L. Mankiewicz)" in str(response), str(response)
    # every retriever, as a query engine and as an agent's tool
    from kgcore.graph import InMemoryGraphStore
    from llamaindex_gretriever import CGPERetriever, FastToGRetriever, ToGRetriever
    store = InMemoryGraphStore.from_triples({TRIPLES})
    retrievers = [cls(store, MockLLM()) for cls in (FastToGRetriever, ToGRetriever, CGPERetriever)]
    for each in [retriever, *retrievers]:
        own = dict(llm=MockLLM()) if each is retriever else dict()
        engine = each.as_query_engine(**own)
        assert str(engine.query("who directed [Cleopatra]"))
        assert each.as_tool().metadata.name
    assert importlib.util.find_spec("langchain_core") is None, "LangChain in a LlamaIndex install"
    assert importlib.util.find_spec("llama_cpp") is None, "llama-cpp-python without [local]"
    print("retrieval ok")
    """
)


G2T_CHECK = textwrap.dedent(
    f"""
    import kgcore
    assert "/venv/" in kgcore.__file__, kgcore.__file__  # the installed wheel, not the checkout
    from kgcore.graph import InMemoryGraphStore
    from kglocal.locations import graph2text_model_dir
    from kgcore.methods.fasttog import FastToG
    from kgcore.types import Triple
    from llamaindex_gretriever.tools import graph2text_tool
    folder = graph2text_model_dir()
    assert "/venv/" in str(folder) and (folder / "model.safetensors").is_file(), folder
    engine = FastToG(InMemoryGraphStore.from_triples({TRIPLES}), textualizer="g2t")
    text = engine.textualizer(["Cleopatra", "Joseph L. Mankiewicz"],
                              [Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
    assert "Cleopatra" in text, text
    # without the g2t extra (no peft) the T5 stands in for the fine-tuned model, and says so
    assert engine.textualizer.model_name == "graph2text-webnlg-small", engine.textualizer
    tool = graph2text_tool()
    assert tool.metadata.description.endswith("(model: graph2text-webnlg-small)")
    out = tool.call(triples=[["Cleopatra", "directed_by", "Joseph L. Mankiewicz"]]).content
    assert "Cleopatra" in out, out
    print("g2t ok")
    """
)


def clean_env(models_dir: Path | None = None) -> dict[str, str]:
    """The environment without this checkout on the path and without model locations."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("KGQA_")}
    if models_dir is not None:
        env["KGQA_MODELS_DIR"] = str(models_dir)
    return env


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    cwd = cwd or Path(args[0]).parent  # never the checkout: its packages must not be imported
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1200,
        env=clean_env(cwd / "no-models"),
    )


def checked(*args: str | Path, cwd: Path | None = None) -> str:
    done = run(*args, cwd=cwd)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    checked(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", out, REPO, cwd=out)
    (built,) = out.glob("kg_retrievers-*.whl")
    return built


def test_the_wheel_holds_the_types_marker_and_the_licence(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for package in PACKAGES:
        assert f"{package}/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not any(n.startswith(("tests/", "models/", "scripts/")) for n in names)
    g2t = "kglocal/models/graph2text-webnlg-small/"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "g2t_config.json"):
        assert g2t + name in names
    smollm2 = "kglocal/models/graph2text-webnlg-smollm2/"
    for name in ("adapter_config.json", "adapter_model.safetensors", "g2t_config.json"):
        assert smollm2 + name in names
    scorer = "kglocal/models/path-scorer-webqsp/"
    assert sum(n.startswith(scorer) for n in names) >= 2  # FastToG's scorer="trained"


def fresh_venv(root: Path, extras: str, wheel: Path, torch: bool) -> Path:
    venv = root / "venv"
    checked(sys.executable, "-m", "venv", venv, cwd=root)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q"]
    if torch:  # the CPU wheel first, as `make setup` does
        checked(*pip, "torch==2.13.0", cwd=root)
    checked(*pip, f"{wheel}[{extras}]", cwd=root)
    return venv


def assert_no_cuda(venv: Path) -> None:
    frozen = checked(venv / "bin" / "python", "-m", "pip", "list", "--format=freeze", cwd=venv)
    frozen = frozen.lower()
    cuda = [line for line in frozen.splitlines() if line.startswith(("nvidia-", "triton", "cuda"))]
    assert cuda == []
    for line in frozen.splitlines():
        if line.startswith("torch=="):
            assert "+cpu" in line, line


def kgqa_error(venv: Path, tmp_path: Path) -> str:
    kb = tmp_path / "kb.txt"
    kb.write_text("Giant|directed_by|George Stevens\n")
    done = run(
        venv / "bin" / "kgqa", "ask", "who directed [Giant]", "--kg", kb, "--quiet", cwd=tmp_path
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


def assert_pip_check_quiet(venv: Path) -> None:
    out = checked(venv / "bin" / "python", "-m", "pip", "check", cwd=venv)
    assert "No broken requirements found" in out, out


def test_langchain_extra(wheel: Path, tmp_path: Path) -> None:
    venv = fresh_venv(tmp_path, "langchain", wheel, torch=False)
    assert "retrieval ok" in checked(venv / "bin" / "python", "-c", LANGCHAIN_CHECK, cwd=tmp_path)
    err = kgqa_error(venv, tmp_path)  # no local model installed: a one-line error
    assert err.startswith("kgqa: error:") and "kgqa models install" in err
    assert_no_cuda(venv)
    assert_pip_check_quiet(venv)
    check_kgqa_cli(venv, tmp_path)


def check_kgqa_cli(venv: Path, tmp_path: Path) -> None:
    """--version, eval's data location, --draw without matplotlib, --kg http://."""
    kgqa = venv / "bin" / "kgqa"
    probe = "import importlib.util; print(importlib.util.find_spec('matplotlib') is None)"
    assert checked(venv / "bin" / "python", "-c", probe, cwd=tmp_path).strip() == "True"
    assert checked(kgqa, "--version", cwd=tmp_path).startswith("kgqa (kg-retrievers) 0.")
    eval_help = " ".join(checked(kgqa, "eval", "--help", cwd=tmp_path).split())
    assert "KGQA_DATA" in eval_help and "--data-dir" in eval_help
    assert "lib/python" not in eval_help.split("here:")[1].split(")")[0]  # not site-packages/..
    assert "github.com/yuyuz/MetaQA" in eval_help
    kb = tmp_path / "kb.txt"
    kb.write_text("Giant|directed_by|George Stevens\n")
    started = time.monotonic()
    done = run(kgqa, "ask", "who directed [Giant]", "--kg", kb, "--draw", "x.png", cwd=tmp_path)
    seconds = time.monotonic() - started
    assert done.returncode == 2 and "kg-retrievers[visualize]" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "loading" not in done.stderr.lower()
    assert seconds < 5, seconds
    done = run(kgqa, "ask", "q [x]", "--kg", "http://localhost:7474", cwd=tmp_path)
    assert done.returncode == 2 and "bolt://" in done.stderr, done.stderr


def test_llamaindex_embeddings_extras(wheel: Path, tmp_path: Path) -> None:
    venv = fresh_venv(tmp_path, "llamaindex,embeddings", wheel, torch=True)
    assert "retrieval ok" in checked(venv / "bin" / "python", "-c", LLAMAINDEX_CHECK, cwd=tmp_path)
    err = kgqa_error(venv, tmp_path)  # `kgqa ask` needs LangChain: the extra is named
    assert "pip install 'kg-retrievers[langchain]'" in err
    # transformers comes with sentence-transformers: the shipped Graph2Text model runs.
    assert "g2t ok" in checked(venv / "bin" / "python", "-c", G2T_CHECK, cwd=tmp_path)
    assert_no_cuda(venv)
    assert_pip_check_quiet(venv)
