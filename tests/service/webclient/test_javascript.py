"""The web client's JavaScript without a browser: its types (tsc over its JSDoc, the TypeScript pinned for the client
tests), the unit tests of its pure modules (node --test: js/*.test.mjs), its form (ES modules the server can hand
out and put inside the viewer's page), its sizes, and the words it says.  The browser tests (tests/service/
test_play*_browser.py, tests/replays/test_viewer*_browser.py) play it for real.

tsc comes from ``npm ci`` in tests/clients/typescript (.ci/run does it); without node these tests skip, saying so.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from replays import viewer
from service.http.routes import play
from service.webclient import assets
from service.webclient.words import Table, said
from tests.clients.support import NO_NODE, node_tool

ROOT = Path(__file__).resolve().parents[3]
WEBCLIENT = ROOT / "service" / "webclient"
UNITS = sorted((Path(__file__).parent / "js").glob("*.test.mjs"))
#: The pages' entry modules.
ENTRIES = {"play": assets.PLAY_ENTRY, "viewer": assets.VIEWER_ENTRY}
MOST_JS_LINES = 600
#: The service worker: a worker's classic script, served by itself at /play/sw.js (no page's module).
WORKER = "worker/sw.js"
MOST_HTML_LINES = 800


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip(NO_NODE)
    return found


@pytest.fixture(scope="module")
def english(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Both pages' words in English, as the server embeds them, in a file for node's tests."""
    words = said("en", *play.TABLES, *viewer.TABLES, also=viewer.ALSO)
    path = tmp_path_factory.mktemp("words") / "en.json"
    path.write_text(json.dumps(words, ensure_ascii=False))
    yield path


def test_the_javascript_type_checks_with_tsc() -> None:
    """``tsc --noEmit`` over the modules' JSDoc types (service/webclient/tsconfig.json: strict)."""
    tsc = node_tool("tsc")
    result = subprocess.run(
        [str(tsc), "-p", str(WEBCLIENT / "tsconfig.json"), "--noEmit", "--pretty", "false"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_pure_modules_pass_their_unit_tests(english: Path) -> None:
    """Words, rules, numbers, the language switch, the API client, the router, /play's formatters and game words, the
    viewer's reading of a replay: node's test runner, no browser."""
    assert UNITS
    result = subprocess.run(
        [node(), "--test", *map(str, UNITS)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env={"PATH": "/usr/bin:/bin", "RED7_WORDS": str(english)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert re.search(r"^# fail 0$", result.stdout, re.M) and not re.search(r"^# pass 0$", result.stdout, re.M), result.stdout


def test_the_service_worker_is_a_classic_script_node_reads() -> None:
    result = subprocess.run([node(), "--check", str(WEBCLIENT / WORKER)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_viewers_one_script_is_javascript_node_reads(tmp_path: Path) -> None:
    """The viewer's modules put inside its page parse as one classic script (not a module: a .cjs file)."""
    script = tmp_path / "viewer.cjs"
    script.write_text(assets.inline_script(ENTRIES["viewer"]))
    result = subprocess.run([node(), "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_every_module_is_a_page_s_and_keeps_the_form_the_server_reads() -> None:
    """Each module is reached from a page's entry (no dead file), by named imports of relative paths, without a
    cycle; the core is the pages' only common part."""
    reached = {name: set(assets.graph(entry)) for name, entry in ENTRIES.items()}
    shipped = {str(path.relative_to(WEBCLIENT)) for path in WEBCLIENT.glob("*/*.js")}
    assert shipped == reached["play"] | reached["viewer"] | {WORKER}  # and the service worker, a script of its own
    shared = reached["play"] & reached["viewer"]
    assert shared and all(path.startswith("core/") for path in shared)
    assert {"core/words.js", "core/rules.js", "core/language.js", "core/api.js", "core/format.js"} <= shared
    assert not any(path.startswith("viewer/") for path in reached["play"])
    assert not any(path.startswith("play/") for path in reached["viewer"])


def test_no_javascript_file_over_600_lines_and_no_page_over_800() -> None:
    for path in WEBCLIENT.glob("*/*.js"):
        assert len(path.read_text().splitlines()) <= MOST_JS_LINES, path
    for path in [*WEBCLIENT.glob("*/*.html"), ROOT / "replays" / "viewer.html"]:
        assert len(path.read_text().splitlines()) <= MOST_HTML_LINES, path


def test_the_server_reads_only_what_it_can_put_inside_a_page() -> None:
    """What the module reader refuses: another form of import or export, a path outside, a cycle, a missing name."""
    files = {
        "a.js": 'import { b } from "./b.js";\nexport const a = b + 1;\n',
        "b.js": "export const b = 1;\nexport function twice(n) { return 2 * n; }\n",
        "star.js": 'import * as b from "./b.js";\n',
        "default.js": "export default 1;\n",
        "up.js": 'import { x } from "../outside.js";\n',
        "dynamic.js": 'const b = await import("./b.js");\n',
        "cycle.js": 'import { c } from "./cycle2.js";\nexport const d = 1;\n',
        "cycle2.js": 'import { d } from "./cycle.js";\nexport const c = 1;\n',
        "missing.js": 'import { nothing } from "./b.js";\n',
        "renamed.js": 'import { twice as double } from "./b.js";\nexport const four = double(2);\n',
        "commented.js": (
            "// A module's words.\n/**\n * Twice ``n``.\n * @param {number} n\n */\nexport const twice = (n) => 2 * n;\n"
            "  /** @type {number} */ (twice(1)).toFixed();  // a cast is code\nconst url = 'http://x';  /* kept */\n"
        ),
    }
    read = files.__getitem__
    assert assets.modules_of("a.js", read) == ("b.js", "a.js")
    # /play's modules loaded when first needed: allowed when asked for, followed after the first load (or not)
    files["lazy.js"] = 'import { b } from "./b.js";\nexport async function go() { return (await import("./a.js")).a + b; }\n'
    assert assets.modules_of("lazy.js", read, lazy=True) == ("b.js", "lazy.js", "a.js")
    assert assets.modules_of("lazy.js", read, lazy=True, follow=False) == ("b.js", "lazy.js")
    with pytest.raises(assets.ModuleError, match="an import"):
        assets.inline("lazy.js", read)  # the viewer's page loads nothing later
    script = assets.inline("renamed.js", read)
    assert "const { twice: double } = __module_b;" in script and "return { four };" in script and "export" not in script
    commented = assets.inline("commented.js", read)
    assert commented.splitlines()[3:] == [
        "const twice = (n) => 2 * n;",
        "  /** @type {number} */ (twice(1)).toFixed();  // a cast is code",
        "const url = 'http://x';  /* kept */",
        "return { twice };",
        "})();",
    ], "only the lines that are nothing but a comment are left out"
    with pytest.raises(assets.ModuleError, match="an export"):
        assets.exports("default.js", read("default.js"))
    refusals = {
        "star.js": "an import",
        "up.js": "outside",
        "dynamic.js": "an import",
        "cycle.js": "cycle",
        "missing.js": "export nothing",
    }
    for entry, refused in refusals.items():
        with pytest.raises(assets.ModuleError, match=refused):
            assets.modules_of(entry, read)


def _words(tables: tuple[Table, ...], also: tuple[str, ...] = ()) -> tuple[set[str], set[str]]:
    codes = {code for table in tables for code in table.codes} | set(also)
    kinds = {kind for table in tables for kind, _ in table.counted}
    return codes, kinds


CODE = re.compile(r"""\bt(?:Nodes)?\(\s*"([a-z][\w.]*)"[,)]""")
COUNTED = re.compile(r"""\bcounted\(\s*"(\w+)\"""")
PAGE_WORD = re.compile(r"__T:([a-zA-Z0-9_.]+)__")


@pytest.mark.parametrize("page", sorted(ENTRIES))
def test_every_word_a_page_says_is_in_the_words_it_is_served_with(page: str) -> None:
    """Each word code the modules name as such (``t("code")``, ``counted("kind", n)``) and each ``__T:code__`` of the
    page is in its tables: no text shows as a code."""
    codes, kinds = _words(play.TABLES) if page == "play" else _words(viewer.TABLES, viewer.ALSO)
    markup = (WEBCLIENT / "play" / "play.html") if page == "play" else (ROOT / "replays" / "viewer.html")
    named, counted = set(PAGE_WORD.findall(markup.read_text())), set()
    for path in assets.graph(ENTRIES[page]):
        source = (WEBCLIENT / path).read_text()
        named |= set(CODE.findall(source))
        counted |= set(COUNTED.findall(source))
    assert len(named) > 50
    assert sorted(named - codes) == []
    assert sorted(counted - kinds) == []


def test_the_package_data_holds_every_file_the_pages_need() -> None:
    """An installed wheel serves the pages: every file they are made of matches pyproject.toml's package data."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    needed = {"service": set(), "replays": {"viewer.html"}}
    for entry in ENTRIES.values():
        needed["service"] |= {f"webclient/{path}" for path in assets.graph(entry)}
    needed["service"] |= {f"webclient/{path}" for path in ("play/play.html", *assets.PLAY_STYLES, *assets.VIEWER_STYLES)}
    needed["service"] |= {f"webclient/{name}/words.json" for name in ("core", "play", "viewer")}
    for package, files in needed.items():
        for name in files:
            assert (ROOT / package / name).is_file(), name
            assert any(fnmatch.fnmatch(name, pattern) for pattern in data[package]), f"{package}/{name} is not package data"
