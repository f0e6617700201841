"""The import rules of issues 10 and 36, read from the source with ``ast`` (nothing is imported).

1. The layers: the core (``kgcore``) imports no adapter, no ``kgqa`` and no framework
   (``langchain*``, ``llama_index``); an adapter imports neither the other adapter nor
   ``kgqa``. "Imports" means in any form: at the top, inside a function, or as the string given
   to ``importlib.import_module`` / ``__import__``.
2. A module of ``kgcore/methods`` imports no other method's module: only the kernel
   (``base``, ``kernel``, ``result``) and the modules of its own package (``fasttog/``, ...).
3. Nothing in ``kgcore`` imports ``kgeval`` except ``kgeval`` itself.
4. The module-level imports among the modules of all six packages have no cycle (imports
   under ``if TYPE_CHECKING:`` and inside functions are not module-level), and no two ``kgqa``
   modules import each other in any form.
5. The core holds what runs at question time (issue 49): no ``kgcore`` module imports
   ``kgmodels`` (training, publishing and serving the models) nor the libraries only that code
   uses (a server, Hub uploads and model cards, training metrics), and no ``kgcore`` module is
   named for training, publishing or serving. ``kgmodels`` imports the core, never the CLI or
   an adapter, and the adapters do not import it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
KGCORE = ROOT / "kgcore"
KERNEL = ("kgcore.methods.base", "kgcore.methods.kernel", "kgcore.methods.result")


@dataclass(frozen=True)
class Import:
    """One imported module, and whether the import runs when the module is loaded."""

    target: str
    module_level: bool
    line: int


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports_by_name(call: ast.Call) -> bool:
    """``importlib.import_module("x")``, ``import_module("x")`` or ``__import__("x")``."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in ("import_module", "__import__") and bool(call.args)


def _is_type_checking(test: ast.expr) -> bool:
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
    return name == "TYPE_CHECKING"


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        prefix = ".".join(base)
        root = f"{prefix}.{node.module}" if node.module else prefix
    else:
        root = node.module or ""
    # ``from package import module`` imports the submodule too.
    return [root] + [f"{root}.{alias.name}" for alias in node.names]


def imports(path: Path) -> Iterator[Import]:
    """Every import of a source file, marked module-level or not."""
    yield from imports_of(
        path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py"
    )


def imports_of(source: str, module: str, is_package: bool = False) -> Iterator[Import]:
    """Every import of ``source`` (the text of ``module``), marked module-level or not."""
    tree = ast.parse(source)

    def walk(node: ast.AST, module_level: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(alias.name, module_level, child.lineno)
            elif isinstance(child, ast.ImportFrom):
                for target in _resolve(module, is_package, child):
                    yield Import(target, module_level, child.lineno)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                yield from walk(ast.Module(body=child.body, type_ignores=[]), False)
                yield from walk(ast.Module(body=child.orelse, type_ignores=[]), module_level)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield from walk(child, False)
            else:
                if isinstance(child, ast.Call) and _imports_by_name(child):
                    argument = child.args[0]
                    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                        yield Import(argument.value, False, child.lineno)
                yield from walk(child, module_level)

    yield from walk(tree, True)


SOURCES = {module_name(p): p for p in sorted(KGCORE.rglob("*.py"))}
PACKAGES = (
    "kgcore", "kgeval", "kglocal", "kgmodels", "langchain_fasttog", "llamaindex_gretriever", "kgqa",
)  # fmt: skip
ALL_SOURCES = {
    module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
}
#: What each layer may not import, in any form.
FORBIDDEN = {
    "kgcore": (
        "langchain_fasttog",
        "llamaindex_gretriever",
        "kgqa",
        "langchain",
        "langchain_core",
        "langchain_community",
        "langchain_neo4j",
        "llama_index",
        "kgmodels",
        "kgeval",
    ),
    "kgeval": (
        "langchain_fasttog",
        "llamaindex_gretriever",
        "kgqa",
        "langchain",
        "langchain_core",
        "llama_index",
        "kgmodels",
    ),
    "kgmodels": ("langchain_fasttog", "llamaindex_gretriever", "kgqa"),
    "kglocal": (
        "langchain_fasttog",
        "llamaindex_gretriever",
        "kgqa",
        "kgeval",
        "kgmodels",
        "langchain",
        "langchain_core",
        "llama_index",
    ),
    "langchain_fasttog": ("llamaindex_gretriever", "kgqa", "llama_index", "kgmodels"),
    "llamaindex_gretriever": (
        "langchain_fasttog",
        "kgqa",
        "langchain",
        "langchain_core",
        "kgmodels",
    ),
}
#: What only training, publishing and serving use: the core may not import it in any form
#: (a module, or a name imported from a module).
TRAINING_ONLY = (
    "kgmodels",
    "litserve",
    "fastapi",
    "starlette",
    "uvicorn",
    "sacrebleu",
    "rouge_score",
    "huggingface_hub.HfApi",
    "huggingface_hub.ModelCard",
    "huggingface_hub.ModelCardData",
    "huggingface_hub.upload_folder",
)
#: Words a core module's name may not hold: such a module belongs in ``kgmodels``.
TRAINING_MODULE_WORDS = ("training", "train", "publish", "serve", "server", "synth")


def layer_violations(module: str, found: Iterable[Import]) -> list[str]:
    """The imports of ``module`` its layer forbids (:data:`FORBIDDEN`), as ``line N: x``."""
    forbidden = FORBIDDEN.get(module.split(".")[0], ())
    return [f"line {i.line}: {i.target}" for i in found if i.target.split(".")[0] in forbidden]


def training_imports(found: Iterable[Import]) -> list[str]:
    """The imports of training, publishing or serving code (:data:`TRAINING_ONLY`)."""
    return [
        f"line {i.line}: {i.target}"
        for i in found
        if any(i.target == name or i.target.startswith(name + ".") for name in TRAINING_ONLY)
    ]


def _kgcore_modules(target: str) -> str | None:
    """The kgcore module ``target`` names (a name imported from a module maps to it)."""
    while target and target not in SOURCES:
        target = target.rpartition(".")[0]
    return target or None


def _method_unit(module: str) -> str:
    """What a module of kgcore.methods belongs to: its own package, or itself."""
    parts = module.split(".")
    return ".".join(parts[:3])


def _is_kernel(module: str) -> bool:
    return _method_unit(module) in KERNEL


def test_sources_are_found() -> None:
    assert "kgcore.methods.base" in SOURCES and "kgeval" in ALL_SOURCES
    assert "kgqa.cli" in ALL_SOURCES and "langchain_fasttog.llm" in ALL_SOURCES


@pytest.mark.parametrize(
    "module", [m for m in ALL_SOURCES if m.split(".")[0] in FORBIDDEN], ids=str
)
def test_each_layer_imports_only_what_it_may(module: str) -> None:
    bad = layer_violations(module, imports(ALL_SOURCES[module]))
    assert not bad, f"{module} imports across its layer: {bad}"


@pytest.mark.parametrize(
    "source",
    [
        "import kgqa.cli\n",
        "from langchain_fasttog.llm import LangChainLLM\n",
        "def f():\n    from llamaindex_gretriever import property_graph\n",
        "import importlib\nx = importlib.import_module('langchain_fasttog.llm')\n",
        "from importlib import import_module\ndef f():\n    return import_module('kgqa')\n",
        "def f():\n    return __import__('llama_index.core')\n",
        "if True:\n    import langchain_core.messages\n",
    ],
)
def test_a_core_module_importing_an_adapter_in_any_form_is_caught(source: str) -> None:
    assert layer_violations("kgcore.anything", imports_of(source, "kgcore.anything"))


@pytest.mark.parametrize("module", [m for m in ALL_SOURCES if m.startswith("kglocal")], ids=str)
def test_model_locations_import_nothing_of_the_project_but_its_errors(module: str) -> None:
    """``kglocal`` sits under the core (the core's defaults read it): of the project it may
    import only :mod:`kgcore.exceptions`, so no import cycle can pass through it."""
    project = ("kgcore", *PACKAGES)
    found = {i.target for i in imports(ALL_SOURCES[module]) if i.target.split(".")[0] in project}
    assert found <= {"kgcore.exceptions", "kgcore.exceptions.ConfigurationError"} | {
        m for m in found if m.startswith("kglocal")
    }, found


def test_a_core_module_may_import_the_core_and_third_parties() -> None:
    source = "import numpy\nfrom kgcore.types import Triple\nimportlib.import_module('torch')\n"
    assert layer_violations("kgcore.anything", imports_of(source, "kgcore.anything")) == []


@pytest.mark.parametrize("module", list(SOURCES), ids=str)
def test_no_core_module_imports_training_publishing_or_serving_code(module: str) -> None:
    bad = training_imports(imports(SOURCES[module]))
    assert not bad, f"{module} imports training, publishing or serving code: {bad}"


@pytest.mark.parametrize(
    "source",
    [
        "from kgmodels.graph2text.training import train\n",
        "def f():\n    from kgmodels.graph2text import serve\n",
        "import importlib\nx = importlib.import_module('kgmodels.gnn.training')\n",
        "def f():\n    import litserve\n",
        "from fastapi.responses import Response\n",
        "from huggingface_hub import HfApi\n",
        "def f():\n    import sacrebleu\n",
    ],
)
def test_a_core_module_importing_training_code_in_any_form_is_caught(source: str) -> None:
    assert training_imports(imports_of(source, "kgcore.anything"))


def test_a_core_module_importing_kgmodels_breaks_the_layers() -> None:
    found = imports_of("def f():\n    from kgmodels.gnn import training\n", "kgcore.anything")
    assert layer_violations("kgcore.anything", found) == [
        "line 2: kgmodels.gnn",
        "line 2: kgmodels.gnn.training",
    ]


def test_loading_a_model_from_the_hub_is_not_training_code() -> None:
    source = "def f():\n    from huggingface_hub import snapshot_download\n"
    assert training_imports(imports_of(source, "kgcore.text.graph2text.model")) == []


def test_no_core_module_is_named_for_training_publishing_or_serving() -> None:
    bad = [
        module
        for module in SOURCES
        if any(word in module.rpartition(".")[2].split("_") for word in TRAINING_MODULE_WORDS)
    ]
    assert not bad, f"training, publishing or serving code in kgcore (move it to kgmodels): {bad}"


def test_the_models_package_imports_the_core_and_is_imported_by_no_adapter() -> None:
    assert "kgmodels.graph2text.serve" in ALL_SOURCES and "kgmodels.gnn.training" in ALL_SOURCES
    assert layer_violations("langchain_fasttog.x", imports_of("import kgmodels\n", "x"))
    assert layer_violations("kgmodels.x", imports_of("import kgqa.cli\n", "kgmodels.x"))
    assert layer_violations("kgmodels.x", imports_of("import kgcore.types\n", "kgmodels.x")) == []


@pytest.mark.parametrize("module", [m for m in SOURCES if m.startswith("kgcore.methods.")], ids=str)
def test_a_method_imports_only_the_kernel_and_its_own_package(module: str) -> None:
    unit = _method_unit(module)
    bad = []
    for found in imports(SOURCES[module]):
        target = _kgcore_modules(found.target)
        if target is None or not target.startswith("kgcore.methods."):
            continue
        if _is_kernel(target) or _method_unit(target) == unit:
            continue
        bad.append(f"line {found.line}: {target}")
    assert not bad, f"{module} imports another method's module: {bad}"


def test_the_core_holds_no_evaluation_and_imports_none() -> None:
    assert not (KGCORE / "evaluation").exists() and "kgeval.harness" in ALL_SOURCES
    found = imports_of("def f():\n    from kgeval.metrics import hit_at_1\n", "kgcore.anything")
    assert layer_violations("kgcore.anything", found)
    assert layer_violations("kgeval.x", imports_of("import kgqa.cli\n", "kgeval.x"))
    assert layer_violations("kgeval.x", imports_of("import kgcore.types\n", "kgeval.x")) == []


def _known_module(target: str) -> str | None:
    """The module of the four packages ``target`` names (a name imported from one maps to it)."""
    while target and target not in ALL_SOURCES:
        target = target.rpartition(".")[0]
    return target or None


def _graph(module_level_only: bool = True) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {module: set() for module in ALL_SOURCES}
    for module, path in ALL_SOURCES.items():
        for found in imports(path):
            target = _known_module(found.target)
            if (found.module_level or not module_level_only) and target not in (None, module):
                graph[module].add(target)  # type: ignore[arg-type]
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a list of nodes, or ``None`` (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                path = [n for n, _ in stack]
                return path[path.index(child) :] + [child]
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(sorted(graph.get(child, ())))))
    return None


def test_imports_are_read_with_their_level_and_resolved() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from .kernel import ask_parsed\n"
        "if TYPE_CHECKING:\n"
        "    from kgeval import Dataset\n"
        "def f():\n"
        "    import kgcore.tog_helpers\n"
    )
    found = {(i.target, i.module_level) for i in imports_of(source, "kgcore.methods.tog")}
    assert ("kgcore.methods.kernel", True) in found
    assert ("kgcore.methods.kernel.ask_parsed", True) in found
    assert ("kgeval", False) in found
    assert ("kgcore.tog_helpers", False) in found


def test_find_cycle_finds_one_and_only_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_module_imports_have_no_cycle() -> None:
    assert find_cycle(_graph()) is None


def test_no_two_cli_modules_import_each_other_in_any_form() -> None:
    graph = _graph(module_level_only=False)
    cli = {m: {t for t in targets if t.startswith("kgqa")} for m, targets in graph.items()
           if m.startswith("kgqa")}  # fmt: skip
    assert find_cycle(cli) is None


ADAPTERS = ("langchain_fasttog", "llamaindex_gretriever")


def test_no_two_adapter_modules_import_each_other_in_any_form() -> None:
    graph = _graph(module_level_only=False)
    pairs = sorted(
        (a, b)
        for a, targets in graph.items()
        if a.split(".")[0] in ADAPTERS
        for b in targets
        if a < b and a in graph.get(b, set())
    )
    assert not pairs, f"adapter modules that import each other: {pairs}"


def test_twin_classes_of_the_two_adapters_name_each_other() -> None:
    import langchain_fasttog
    import llamaindex_gretriever

    twins = set(langchain_fasttog.__all__) & set(llamaindex_gretriever.__all__)
    retrievers = sorted(n for n in twins if n.endswith("Retriever"))
    assert retrievers
    for name in retrievers:
        for package, other in ((langchain_fasttog, "llamaindex_gretriever"),
                               (llamaindex_gretriever, "langchain_fasttog")):  # fmt: skip
            doc = getattr(package, name).__doc__ or ""
            assert f"{other}.{name}" in doc, f"{package.__name__}.{name} names no twin"
