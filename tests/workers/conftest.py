"""Workers are tested against the same apps as the API (see tests/service/conftest.py)."""

from tests.service.conftest import api, app, runtime, settings  # noqa: F401 (fixtures)
