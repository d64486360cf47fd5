"""The maps match the tree: every path README's layout table and ARCHITECTURE.md name exists, and every package is named."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def layout_paths() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    paths = []
    for row in table.splitlines():
        if row.startswith("| `"):
            cell = row.split("|")[1]
            first = re.findall(r"`([^`]+)`", cell)
            base = str(Path(first[0]).parent) + "/" if "/" in first[0].rstrip("/") else ""
            paths += [first[0]] + [name if "/" in name else base + name for name in first[1:]]
    return paths


def test_every_path_in_the_readme_layout_exists():
    paths = layout_paths()
    assert paths
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, missing


def test_the_readme_layout_names_every_package_and_subpackage():
    named = set(layout_paths())
    packages = [p.parent for p in ROOT.glob("*/__init__.py")] + [p.parent for p in ROOT.glob("service/*/__init__.py")]
    for package in packages:
        relative = f"{package.relative_to(ROOT)}/"
        if relative.startswith(("tests/", "bench/")):
            continue
        assert any(path.startswith(relative) for path in named), f"{relative} is not in README's layout table"


def test_every_path_architecture_md_names_exists():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    paths = {p for p in re.findall(r"`((?:engine|service|workers|replays|tests)/[^`]*)`", text)}
    assert len(paths) > 20
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, missing


RULES = ROOT / "docs" / "rules.md"
SOURCES = ("engine", "service", "workers", "replays", "tests", "bench")


def rule_points() -> set[int]:
    return {int(n) for n in re.findall(r"^(\d+)\. ", RULES.read_text(), flags=re.MULTILINE)}


def cited_rules() -> list[tuple[str, int]]:
    """Every ``docs/rules.md N`` (and ``N-M``, ``N, M``) citation in the code and the docs, with its file."""
    cited = []
    files = [p for d in SOURCES for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".html", ".md")]
    for path in [*files, ROOT / "README.md", ROOT / "ARCHITECTURE.md"]:
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
