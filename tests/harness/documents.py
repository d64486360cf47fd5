"""The documents as the tests read them: ``README.md`` and ``docs/*.md``, a section by its heading, its fenced blocks.

A test that takes a block with :func:`block` or :func:`blocks` runs it as printed (or, for the few lines it cannot
run, such as an install, checks them against what CI runs): ``tests/test_docs.py`` finds those calls in the tests and
fails on a runnable block of a document that no test takes.  So the calls name the document, the heading and the
language with literal strings.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: The fence languages of code meant to run: each such block in a document is run by a test.
RUNNABLE = frozenset({"sh", "bash", "shell", "console", "python", "py", "js", "javascript", "ts", "typescript"})

_FENCE = re.compile(r"^( *)```")
_HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: its document, the heading it sits under, its language and its code (dedented)."""

    document: str
    heading: str
    language: str
    code: str
    line: int


def documents() -> list[str]:
    """README.md and every document of docs/, as paths from the repository's root."""
    return ["README.md", *(str(path.relative_to(ROOT)) for path in sorted(DOCS.glob("*.md")))]


def text(document: str) -> str:
    return (ROOT / document).read_text()


def lines_outside_code(document: str) -> Iterator[tuple[int, str]]:
    """Each line (numbered from 1) that is not inside a fenced block, nor a fence."""
    fence: str | None = None
    for number, line in enumerate(text(document).splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is not None:
            if line.startswith(fence) and line.strip() == "```":
                fence = None
            continue
        if opened:
            fence = opened.group(1) + "```"
            continue
        yield number, line


def headings(document: str) -> list[tuple[int, int, str]]:
    """(line, level, title) of every heading of the document, code blocks' comments aside."""
    found = []
    for number, line in lines_outside_code(document):
        if match := _HEADING.match(line):
            found.append((number, len(match.group(1)), match.group(2)))
    return found


def _span(document: str, title: str) -> tuple[int, int]:
    """The lines (from, to: numbered from 1, ``to`` excluded) of the section under the heading ``title``."""
    marks = headings(document)
    starts = [(number, level) for number, level, name in marks if name == title]
    assert len(starts) == 1, f"{document} has {len(starts)} headings {title!r}"
    start, level = starts[0]
    end = next((number for number, other, _ in marks if number > start and other <= level), None)
    return start + 1, end or len(text(document).splitlines()) + 1


def section(document: str, title: str) -> str:
    """The part of ``document`` under the heading ``title`` (any level), up to the next heading of that level or above."""
    start, end = _span(document, title)
    return "".join(text(document).splitlines(keepends=True)[start - 1 : end - 1])


def fenced(document: str) -> list[Block]:
    """Every fenced block of the document, with the heading it sits under."""
    found: list[Block] = []
    heading, opened, language, body = "", 0, "", list[str]()
    indent: str | None = None
    for number, line in enumerate(text(document).splitlines(keepends=True), 1):
        if indent is not None:
            if line.strip() == "```" and line.startswith(indent + "```"):
                found.append(Block(document, heading, language, textwrap.dedent("".join(body)), opened))
                indent = None
            else:
                body.append(line)
            continue
        if match := _FENCE.match(line):
            indent, opened, body = match.group(1), number, []
            language = (line.strip()[3:].split() or [""])[0]
        elif match := _HEADING.match(line):
            heading = match.group(2)
    assert indent is None, f"{document}: the block opened on line {opened} is not closed"
    return found


def blocks(document: str, title: str, language: str) -> list[str]:
    """The code of every ``language`` block under the heading ``title`` (its subsections too), in order.

    The test that takes them runs them all."""
    start, end = _span(document, title)
    codes = [b.code for b in fenced(document) if b.language == language and start <= b.line < end]
    assert codes, f"no ```{language} block under {title!r} in {document}"
    return codes


def block(document: str, title: str, language: str) -> str:
    """The one ``language`` block under the heading ``title``."""
    codes = blocks(document, title, language)
    assert len(codes) == 1, f"{document} has {len(codes)} ```{language} blocks under {title!r}"
    return codes[0]


def commands(code: str) -> list[str]:
    """The shell commands of a block, one a line: continued lines (a trailing backslash) joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", code)
    return [line.split(" #", 1)[0].strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]
