"""README.md and the pages in docs/: every code block works as written when pasted on its own,
every relative link points to a file (and heading) that exists, and the README stays a front
page."""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import pytest

from tests.support.paths import REPO

README_PATH = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
RESEARCH = sorted((REPO / "docs" / "research").glob("*.md"))
BENCHMARKS_README = REPO / "benchmarks" / "README.md"
#: Every page whose code blocks and links are checked.
PAGES = [README_PATH, *DOCS, *RESEARCH, BENCHMARKS_README]
#: Python and console blocks the README held before its reference moved into docs/ (issue 36):
#: the docs together keep at least as many.
README_BLOCKS_BEFORE_DOCS = 16
#: The README is a front page; the reference lives in docs/.
README_MAX_LINES = 150

FENCE = re.compile(r"```(\w+)\n(.*?)```", flags=re.S)


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def blocks(path: Path, lang: str) -> list[tuple[str, str]]:
    """``(id, code)`` of each ``lang`` block of a page, the id naming the file and line."""
    text = path.read_text(encoding="utf-8")
    return [
        (f"{rel(path)}:{text.count(chr(10), 0, m.start()) + 1}", m.group(2))
        for m in FENCE.finditer(text)
        if m.group(1) == lang
    ]


PYTHON = [b for page in PAGES for b in blocks(page, "python")]
CONSOLE = [b for page in PAGES for b in blocks(page, "console")]


def defined_names(tree: ast.AST) -> set[str]:
    names = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def test_the_readme_has_code_blocks() -> None:
    readme_python = blocks(README_PATH, "python")
    readme_console = blocks(README_PATH, "console")
    assert len(readme_python) >= 2 and len(readme_console) >= 2
    docs = [
        b for page in DOCS + RESEARCH for kind in ("python", "console") for b in blocks(page, kind)
    ]
    assert len(docs) >= README_BLOCKS_BEFORE_DOCS, [block_id for block_id, _ in docs]


def test_the_readme_is_a_front_page() -> None:
    lines = README_PATH.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, f"README.md has {len(lines)} lines; move reference out"


@pytest.mark.parametrize("code", [c for _, c in PYTHON], ids=[i for i, _ in PYTHON])
def test_each_python_block_is_self_contained(code: str) -> None:
    tree = ast.parse(code)
    defined = defined_names(tree)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assert used <= defined, f"undefined in the block: {sorted(used - defined)}"
    compile(tree, "README.md", "exec")


@pytest.mark.parametrize("code", [c for _, c in CONSOLE], ids=[i for i, _ in CONSOLE])
def test_console_lines_paste_as_written(code: str) -> None:
    for line in code.splitlines():
        assert "[--" not in line, f"optional-argument syntax in a command: {line}"
        assert '"..."' not in line and "'...'" not in line, f"placeholder: {line}"


# -- links ---------------------------------------------------------------------------------
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
INLINE_CODE = re.compile(r"`[^`\n]*`")
ANCHOR = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", flags=re.M)


def prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are not links."""
    return INLINE_CODE.sub("", re.sub(r"```.*?```", "", text, flags=re.S))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"<[^>]+>", "", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    found: set[str] = set(ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(re.sub(r"```.*?```", "", text, flags=re.S)):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def relative_links(path: Path) -> list[str]:
    targets = LINK.findall(prose(path.read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t)]  # no http:, mailto:


LINKED_PAGES = [page for page in PAGES if relative_links(page)]


@pytest.mark.parametrize("page", LINKED_PAGES, ids=[rel(p) for p in LINKED_PAGES])
def test_relative_links_point_to_existing_files(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        file_part, _, fragment = target.partition("#")
        resolved = (page.parent / file_part).resolve() if file_part else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{target}: no heading or anchor #{fragment}")
    assert not broken, f"{rel(page)}: {broken}"


def test_the_readme_links_every_docs_page() -> None:
    linked = {(REPO / t.partition("#")[0]).resolve() for t in relative_links(README_PATH)}
    missing = [rel(p) for p in DOCS + RESEARCH + [BENCHMARKS_README] if p.resolve() not in linked]
    assert not missing, f"README.md does not link {missing}"


def table_rows(path: Path) -> list[list[tuple[int, str]]]:
    """Each Markdown table of a page, as its ``(line number, line)`` rows, outside code blocks."""
    tables: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    in_code = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("|"):
            current.append((number, line))
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


@pytest.mark.parametrize("page", PAGES, ids=[rel(p) for p in PAGES])
def test_tables_have_as_many_cells_as_their_header(page: Path) -> None:
    for table in table_rows(page):
        cells = [len(re.findall(r"(?<!\\)\|", line)) for _, line in table]
        assert len(table) >= 2 and set(table[1][1]) <= set("|-: "), f"{rel(page)}:{table[0][0]}"
        bad = [number for (number, _), n in zip(table, cells, strict=True) if n != cells[0]]
        assert not bad, f"{rel(page)}: rows at lines {bad} do not match the header's cells"


def test_the_example_is_described_as_it_is() -> None:
    example = (REPO / "examples" / "gretriever_metaqa.py").read_text(encoding="utf-8")
    pages = (README_PATH, REPO / "docs" / "gretriever.md")  # where the example is described
    described = "".join(page.read_text(encoding="utf-8") for page in pages)
    match = re.search(r'DEFAULT_QUESTION = "(.*)"', example)
    assert match is not None
    assert f'engine.query("{match.group(1)}")' in described
    assert "graph_query_engine(" in example and "graph_query_engine(" in described
    assert "first answer" in example and "build_index()" in described
