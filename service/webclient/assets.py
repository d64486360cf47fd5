"""The web client's files as the server hands them out: /play's modules and style by a versioned address, and the
replay viewer's script and style put inside its page.

The JavaScript is ES modules with no build step: what is in this folder is what a browser runs.  Each module imports
others of this folder by relative path, by name (``import { t, counted } from "../core/words.js";``), and exports
functions, classes and constants (``export function``, ``export const``, ``export class``); :func:`imports` and
:func:`exports` read exactly that form and refuse any other, so the rules below hold for every module.

/play loads its modules from ``/play/static/<version>/...`` (:func:`play`): ``<version>`` is a digest of every file
served there, so one address always holds the same bytes and a browser keeps them for a year without asking again
(``immutable``); a change anywhere is a new version, and the page (never stored: its CSP nonce is for one answer)
names the new addresses at once.  The modules of one version import each other by relative path, so no module names
its own version.

The replay viewer is one file that works saved to disk, without a network: its modules are put inside its page, one
classic script (:func:`inline_script`), each module's body in a function of its own, its imports read from the
modules before it.  That is a copy, not a translation: every line a module runs is its own (its comment lines are
left out).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

#: A module's imports: named imports of a relative path, one statement each (it may run over several lines).
IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"(\.{1,2}/[^"]+\.js)";[ \t]*$', re.M)
#: What a module exports: functions, classes and constants, each by its name where it is declared.
EXPORT = re.compile(r"^export\s+((?:async\s+)?function\*?|const|class)\s+([A-Za-z_$][\w$]*)", re.M)
#: A module /play loads when it is first needed (``await import("./stats.js")``): a relative path written out, so the
#: server knows every module the page may load.  The replay viewer, one page with its modules inside, has none.
LAZY = re.compile(r'\bimport\(\s*"(\.{1,2}/[^"]+\.js)"\s*\)')
_ANY_IMPORT = re.compile(r"^\s*import\b|\bimport\s*\(", re.M)
_ANY_EXPORT = re.compile(r"^\s*export\b", re.M)
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")
#: A line that is only a comment: ``// ...``, or a ``/** ... */`` block that ends its last line (not a JSDoc cast
#: such as ``/** @type {X} */ (value)``, which has code after it).
_COMMENT_LINES = re.compile(r"^[ \t]*(?://[^\n]*|/\*(?:(?!\*/).)*\*/[ \t]*)\n", re.M | re.S)

TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


class ModuleError(ValueError):
    """A module this folder ships breaks the form :func:`imports` and :func:`exports` read (a bug of ours)."""


def text(path: str) -> str:
    """A file of this folder (``play/play.html``), as shipped in the package (package data in pyproject.toml)."""
    return resources.files(__package__).joinpath(*path.split("/")).read_text(encoding="utf-8")


def data(path: str) -> bytes:
    """A file of this folder as bytes (an icon, the service worker), as shipped in the package."""
    return resources.files(__package__).joinpath(*path.split("/")).read_bytes()


def _target(path: str, relative: str) -> str:
    target = posixpath.normpath(posixpath.join(posixpath.dirname(path), relative))
    if target.startswith("../"):
        raise ModuleError(f"{path}: imports {relative}, outside the web client")
    return target


def lazy_imports(path: str, source: str) -> list[str]:
    """The modules ``path`` loads when first needed (``import("./m.js")``), as paths of this folder."""
    return [_target(path, relative) for relative in LAZY.findall(source)]


def imports(path: str, source: str, *, lazy: bool = False) -> list[tuple[str, list[tuple[str, str]]]]:
    """The modules ``path`` imports (as paths of this folder) and, for each, the names it takes (``(name, as)``);
    ``lazy``: a module loaded when first needed (:data:`LAZY`) is allowed beside them (:func:`lazy_imports`)."""
    found = []
    for match in IMPORT.finditer(source):
        names = []
        for part in (p.strip() for p in match.group(1).split(",")):
            if not part:
                continue
            name, _, alias = (w.strip() for w in part.partition(" as "))
            if not _NAME.match(name) or not _NAME.match(alias or name):
                raise ModuleError(f"{path}: cannot read the import of {part!r}")
            names.append((name, alias or name))
        found.append((_target(path, match.group(2)), names))
    later = len(lazy_imports(path, source)) if lazy else 0
    if len(_ANY_IMPORT.findall(source)) != len(found) + later:
        raise ModuleError(f'{path}: an import that is not `import {{ names }} from "./path.js";`')
    return found


def exports(path: str, source: str) -> list[str]:
    """The names ``path`` exports."""
    names = [match.group(2) for match in EXPORT.finditer(source)]
    if len(_ANY_EXPORT.findall(source)) != len(names):
        raise ModuleError(f"{path}: an export that is not `export function|const|class <name>`")
    return names


@cache
def graph(entry: str) -> tuple[str, ...]:
    """Every module ``entry`` may load, each after the modules it imports (``entry`` and its first load first, then
    those loaded when first needed); a cycle is refused."""
    return modules_of(entry, text, lazy=True)


@cache
def first_load(entry: str) -> tuple[str, ...]:
    """The modules ``entry`` loads at once (what its page preloads): :func:`graph` less those loaded when needed."""
    return modules_of(entry, text, lazy=True, follow=False)


def modules_of(entry: str, read: Callable[[str], str], *, lazy: bool = False, follow: bool = True) -> tuple[str, ...]:
    """:func:`graph`, each module's source given by ``read`` (a path of this folder to its text); ``lazy``: modules
    loaded when first needed are allowed (else refused), and ``follow``ed after the rest."""
    order: list[str] = []
    visiting: list[str] = []
    later: list[str] = []

    def visit(path: str) -> None:
        if path in order:
            return
        if path in visiting:
            raise ModuleError(f"an import cycle: {' -> '.join([*visiting[visiting.index(path) :], path])}")
        visiting.append(path)
        for target, names in imports(path, read(path), lazy=lazy):
            visit(target)
            missing = {name for name, _ in names} - set(exports(target, read(target)))
            if missing:
                raise ModuleError(f"{path}: {target} does not export {', '.join(sorted(missing))}")
        if lazy:
            later.extend(lazy_imports(path, read(path)))
        visiting.pop()
        order.append(path)

    visit(entry)
    while follow and later:
        visit(later.pop(0))
    return tuple(order)


def _variable(path: str) -> str:
    return "__module_" + re.sub(r"\W", "_", path.removesuffix(".js"))


def _constant(names: list[tuple[str, str]], module: str) -> str:
    """An import as a constant: ``const { a, b: c } = __module_m;``."""
    taken = ", ".join(name if alias == name else f"{name}: {alias}" for name, alias in names)
    return f"const {{ {taken} }} = {module};"


@cache
def inline_script(entry: str) -> str:
    """``entry`` and the modules it needs as one classic script, for a page that loads nothing (the replay viewer)."""
    return inline(entry, text)


def inline(entry: str, read: Callable[[str], str]) -> str:
    """:func:`inline_script`, each module's source given by ``read``.

    Each module's body runs in a function of its own, in the order of :func:`graph`, and returns what it exports;
    an import becomes a constant read from a module before it (``import { a, b as c } from "./m.js";`` becomes
    ``const { a, b: c } = __module_m;``).  Strict, as modules are.  The lines that are only comments are left out
    (a third of the modules' bytes: their docs and JSDoc types, which the page is sent each time)."""
    paths = modules_of(entry, read)
    variables = {path: _variable(path) for path in paths}
    if len(set(variables.values())) != len(paths):
        raise ModuleError(f"two modules of {entry} would share a name: {sorted(variables)}")
    parts = ['"use strict";']
    for path in paths:
        source = read(path)
        pieces, last = [], 0
        for match, (target, names) in zip(IMPORT.finditer(source), imports(path, source), strict=True):
            pieces += [source[last : match.start()], _constant(names, variables[target])]
            last = match.end()
        body = EXPORT.sub(lambda match: f"{match.group(1)} {match.group(2)}", "".join([*pieces, source[last:]]))
        body = _COMMENT_LINES.sub("", body).rstrip()
        exported = ", ".join(exports(path, source))
        parts.append(f"// {path}\nconst {variables[path]} = (() => {{\n{body}\nreturn {{ {exported} }};\n}})();")
    return "\n".join(parts) + "\n"


@dataclass(frozen=True, slots=True)
class Asset:
    """A file served under a version: its bytes, its type and its entity tag (a digest of its bytes, unquoted)."""

    body: bytes
    content_type: str
    etag: str


@dataclass(frozen=True, slots=True)
class Bundle:
    """The files a page loads by address: their version (a digest of them all) and each by its path."""

    version: str
    files: dict[str, Asset]
    modules: tuple[str, ...]
    #: The modules the page loads at once (it preloads them); the others are loaded when first needed.
    preloaded: tuple[str, ...] = ()

    def prefix(self, root: str) -> str:
        """The address the files are under, ``root`` (``/play/static``) and the version."""
        return f"{root}/{self.version}"


@cache
def bundle(entry: str, *styles: str) -> Bundle:
    """``entry``'s modules and the ``styles``, read once."""
    modules = graph(entry)
    files = {}
    everything = hashlib.sha256()
    for path in (*modules, *styles):
        body = text(path).encode("utf-8")
        digest = hashlib.sha256(body).hexdigest()
        files[path] = Asset(body, TYPES[posixpath.splitext(path)[1]], digest[:32])
        everything.update(f"{path}\0{digest}\0".encode())
    return Bundle(everything.hexdigest()[:20], files, modules, first_load(entry))


#: /play's entry module and style sheets (the core's first).
PLAY_ENTRY = "play/main.js"
PLAY_STYLES = ("core/base.css", "play/play.css")
#: The replay viewer's entry module and style sheets, put inside its page.
VIEWER_ENTRY = "viewer/main.js"
VIEWER_STYLES = ("core/base.css", "viewer/viewer.css")


def play() -> Bundle:
    """/play's files (``play/main.js``, every module it imports, its style sheets)."""
    return bundle(PLAY_ENTRY, *PLAY_STYLES)
