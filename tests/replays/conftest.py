from tests.service.conftest import api, app, runtime, settings  # noqa: F401 (fixtures)
