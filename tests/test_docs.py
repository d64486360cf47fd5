"""The documents hold together: README.md is a door to every document of docs/, each link lands on a file and a heading
that are there, every runnable block is run by a test, prose keeps lines of normal length, every path a document or
ARCHITECTURE.md names exists, ARCHITECTURE.md names every package, and the rules the code cites are in docs/rules.md.
"""

from __future__ import annotations

import ast
import re

from tests.harness.documents import DOCS, ROOT, RUNNABLE, block, blocks, documents, fenced, headings, lines_outside_code, text

#: README.md is a door, not a manual.
README_MAX_LINES = 300
#: Prose is wrapped at this width (tables and code aside).
WIDTH = 120
#: A markdown link: [text](target), the text on one line or several.
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: A path of the repository a document names in backticks.
PATH = re.compile(r"`((?:engine|service|workers|replays|tests|bench|docs)/[^`<>{}*…\s]*)`")


def prose(document: str) -> str:
    """The document without its code: fenced blocks and inline code spans dropped."""
    return re.sub(r"`[^`\n]*`", "", "\n".join(line for _, line in lines_outside_code(document)))


def slug(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "")
    return re.sub(r"[^\w\- ]", "", plain.lower()).replace(" ", "-")


def anchors(document: str) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, _, title in headings(document):
        base = slug(title)
        found.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return found


def links(document: str) -> list[tuple[str, str]]:
    """(document linked, anchor or "") of every link of ``document`` to a file of the repository."""
    found = []
    for target in LINK.findall(prose(document)):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = document if not path else str((ROOT / document).parent.joinpath(path).resolve().relative_to(ROOT))
        found.append((linked, anchor))
    return found


def test_the_readme_is_a_door():
    lines = text("README.md").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines: move the detail to docs/"


def test_every_document_in_docs_is_linked_from_the_readme():
    linked = {path for path, _ in links("README.md")}
    unlinked = [d for d in documents() if d.startswith("docs/") and d not in linked]
    assert not unlinked, unlinked


def test_every_link_lands_on_a_file_and_a_heading_that_are_there():
    broken = []
    for document in [*documents(), "ARCHITECTURE.md"]:
        for linked, anchor in links(document):
            if not (ROOT / linked).exists():
                broken.append(f"{document}: {linked}")
            elif anchor and linked.endswith(".md") and anchor not in anchors(linked):
                broken.append(f"{document}: {linked}#{anchor}")
    assert not broken, broken


def taken_blocks() -> set[tuple[str, str]]:
    """(document, code) of every block a test takes: each call of ``block`` or ``blocks`` of tests/harness/documents.py in the
    tests, with its document, heading and language as literal strings."""
    taken = set()
    for path in (ROOT / "tests").rglob("*.py"):
        if "node_modules" in path.parts:
            continue
        tree = ast.parse(path.read_text(), str(path))
        if not any(isinstance(node, ast.ImportFrom) and node.module == "tests.harness.documents" for node in ast.walk(tree)):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or len(node.args) != 3:
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name not in ("block", "blocks") or not all(isinstance(a, ast.Constant) for a in node.args):
                continue
            document, title, language = (a.value for a in node.args if isinstance(a, ast.Constant))
            codes = [block(document, title, language)] if name == "block" else blocks(document, title, language)
            taken |= {(document, code) for code in codes}
    return taken


def test_every_runnable_block_is_run_by_a_test():
    """A ``sh``, ``python``, ``js`` or ``ts`` block (the languages of tests/harness/documents.py's ``RUNNABLE``) in README.md or
    docs/ is taken by a test through tests/harness/documents.py, which runs it as printed."""
    taken = taken_blocks()
    assert len({document for document, _ in taken}) >= 6, "the tests take blocks from the README and from docs/"
    untested = [
        f"{found.document}:{found.line} ```{found.language} under {found.heading!r}"
        for document in documents()
        for found in fenced(document)
        if found.language in RUNNABLE and (document, found.code) not in taken
    ]
    assert not untested, untested


def test_no_runnable_block_hides_without_a_language():
    """A block without a language is a diagram or an example of data, never a command left unmarked."""
    unmarked = [
        f"{found.document}:{found.line}"
        for document in documents()
        for found in fenced(document)
        if not found.language and re.search(r"^\s*(\$ |curl |python|red7 |docker |npm |npx |pip )", found.code, re.M)
    ]
    assert not unmarked, unmarked


def test_prose_lines_are_of_normal_length():
    long = [
        f"{document}:{number} ({len(line)})"
        for document in [d for d in documents() if d != "docs/rules.md"]
        for number, line in lines_outside_code(document)
        if len(line) > WIDTH and not line.lstrip().startswith("|")
    ]
    assert not long, long


def test_every_path_the_documents_name_exists():
    missing = sorted(
        f"{document}: {path}"
        for document in documents()
        for path in set(PATH.findall(text(document)))
        if not (ROOT / path.rstrip("/")).exists()
    )
    assert not missing, missing


def architecture_paths() -> set[str]:
    return set(re.findall(r"`((?:engine|service|workers|replays|tests)/[^`]*)`", text("ARCHITECTURE.md")))


def test_every_path_architecture_md_names_exists():
    paths = architecture_paths()
    assert len(paths) > 20
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, missing


def test_architecture_md_names_every_package_and_subpackage():
    """The map of the code is ARCHITECTURE.md (README.md links it): each package of ours has its place there."""
    named = architecture_paths()
    packages = [p.parent for p in ROOT.glob("*/__init__.py")] + [p.parent for p in ROOT.glob("service/*/__init__.py")]
    for package in packages:
        relative = f"{package.relative_to(ROOT)}/"
        if relative.startswith(("tests/", "bench/")):
            continue
        assert any(path.startswith(relative) for path in named), f"{relative} is not in ARCHITECTURE.md"


RULES = DOCS / "rules.md"
SOURCES = ("engine", "service", "workers", "replays", "tests", "bench")


def rule_points() -> set[int]:
    return {int(n) for n in re.findall(r"^(\d+)\. ", RULES.read_text(), flags=re.MULTILINE)}


def cited_rules() -> list[tuple[str, int]]:
    """Every ``docs/rules.md N`` (and ``N-M``, ``N, M``) citation in the code and the docs, with its file."""
    cited = []
    files = [p for d in SOURCES for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".html", ".md")]
    for path in [*files, *(ROOT / d for d in documents()), ROOT / "ARCHITECTURE.md"]:
        for numbers in re.findall(r"docs/rules\.md ((?:\d+(?:-\d+)?(?:, | and )?)+)", path.read_text()):
            for first, last in re.findall(r"(\d+)(?:-(\d+))?", numbers):
                cited += [(str(path.relative_to(ROOT)), n) for n in range(int(first), int(last or first) + 1)]
    return cited


def test_the_rules_the_code_cites_are_in_the_repository_numbered_as_cited():
    points = rule_points()
    assert points == set(range(1, 33)), sorted(points)
    cited = cited_rules()
    assert len(cited) > 200  # the engine and its tests cite the rules throughout
    assert not [(path, n) for path, n in cited if n not in points]


def test_no_code_cites_a_rules_file_that_is_not_in_the_repository():
    stale = []
    for directory in SOURCES:
        for path in (ROOT / directory).rglob("*.py"):
            stale += [
                f"{path.relative_to(ROOT)}:{n}"
                for n, line in enumerate(path.read_text().splitlines(), 1)
                if re.search(r"(?<!docs/)\bRULES\.md", line)
            ]
    assert not stale, stale


def codemap_entries() -> list[str]:
    """The folders (and the composition root's one file) ARCHITECTURE.md's codemap gives an entry, in its order."""
    return re.findall(r"^### `([^`]+)`$", text("ARCHITECTURE.md"), flags=re.MULTILINE)


def test_architecture_md_is_a_codemap_with_one_entry_per_folder():
    """Each folder of ours once, so a newcomer finds every folder's job, invariants and tests in one place."""
    entries = codemap_entries()
    assert len(entries) == len(set(entries)), sorted(e for e in entries if entries.count(e) > 1)
    folders = {f"{p.parent.relative_to(ROOT)}/" for top in SOURCES[:4] for p in (ROOT / top).rglob("__init__.py")}
    assert folders - {"service/"} == {e for e in entries if e.endswith("/")}


def test_architecture_md_keeps_lines_of_normal_length():
    long = [
        number
        for number, line in enumerate(text("ARCHITECTURE.md").splitlines(), 1)
        if len(line) > WIDTH and not line.lstrip().startswith("|")
    ]
    assert not long, long
