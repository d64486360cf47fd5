#!/usr/bin/env python3
"""The project's two front doors: ``python3 dev.py run`` and ``python3 dev.py test``.

Both make (or refresh) a virtual environment in ``.venv`` with the project and
its test tools installed, so a fresh machine needs nothing but Python 3.11+.
The environment is rebuilt only when ``pyproject.toml`` changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".red7-installed"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")


def ensure_env() -> Path:
    """The venv's python, with the project installed for the current pyproject.toml."""
    if sys.version_info < (3, 11):  # noqa: UP036 (this file runs before the environment exists)
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    python = BIN / ("python.exe" if os.name == "nt" else "python")
    if not python.exists():
        print("dev.py: creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    if not STAMP.exists() or STAMP.read_text() != wanted:
        print("dev.py: installing the project and its test tools into .venv ...", flush=True)
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, "-e", f"{ROOT}[test]"], check=True)
        STAMP.write_text(wanted)
    return python


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "help"
    rest = argv[1:]
    if command == "run":
        python = ensure_env()
        return subprocess.call([str(BIN / "red7"), "serve", "--embedded", *rest])
    if command == "test":
        python = ensure_env()
        lint = subprocess.call([str(python), "-m", "ruff", "check", "."], cwd=ROOT)
        tests = subprocess.call([str(python), "-m", "pytest", *rest], cwd=ROOT)
        return tests or lint
    if command == "env":
        print(ensure_env())
        return 0
    print(__doc__)
    return 0 if command == "help" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
