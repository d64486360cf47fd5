"""docker-compose.yml and the Dockerfile, checked without a Docker engine.

No container runs here; these tests check what can go wrong on paper: the
YAML, the three services and their wiring, Redis persistence, healthchecks,
and that every command the containers run names something this package
really provides (the WSGI target imports, the console script and its
subcommand exist, the image installs the ``deploy`` extra).
"""

from __future__ import annotations

import importlib
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.harness.documents import block, commands

yaml = pytest.importorskip("yaml", reason="PyYAML reads docker-compose.yml (add pyyaml to the test extra)")

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def services(compose) -> dict[str, dict[str, Any]]:
    return compose["services"]


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def argv(command: str | list[str] | None) -> list[str]:
    """A compose ``command``/``test`` (string or list) as an argument list."""
    if command is None:
        return []
    return shlex.split(command) if isinstance(command, str) else [str(part) for part in command]


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def option(args: list[str], name: str) -> str | None:
    """The value of ``--name value`` or ``--name=value`` in a command line."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def depends_on_healthy(service: dict[str, Any], other: str) -> bool:
    depends = service.get("depends_on") or {}
    return isinstance(depends, dict) and (depends.get(other) or {}).get("condition") == "service_healthy"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_compose_is_valid_yaml_with_the_three_services(services):
    assert {"redis", "api", "worker"} <= set(services)
    for name, service in services.items():
        assert isinstance(service, dict), name
        assert service.get("image") or service.get("build"), f"{name} has neither an image nor a build"


def test_redis_persists_with_aof_on_a_volume(compose, services):
    redis = services["redis"]
    assert str(redis["image"]).split(":")[0] == "redis" and str(redis["image"]).split(":")[1].startswith("7")
    args = argv(redis.get("command"))
    assert args and args[0] == "redis-server", args
    assert option(args, "--appendonly") == "yes", args
    # every acknowledged move survives a host crash (docs/durability.md); everysec may lose the last second
    assert option(args, "--appendfsync") == "always", args
    mounts = [str(v) if isinstance(v, str) else f"{v.get('source')}:{v.get('target')}" for v in redis.get("volumes", [])]
    data = [m for m in mounts if m.split(":")[1:2] == ["/data"]]
    assert data, f"no volume on /data (where redis:7 keeps its AOF): {mounts}"
    named = data[0].split(":")[0]
    if not named.startswith((".", "/")):
        assert named in (compose.get("volumes") or {}), f"volume {named} is not declared"


def test_the_queue_is_a_redis_of_its_own_fsynced_every_second(compose, services):
    """What the queue holds is found again from the stores if it is lost (docs/durability.md): `everysec`."""
    queue = services["queue"]
    args = argv(queue.get("command"))
    assert str(queue["image"]).startswith("redis:7") and args[:1] == ["redis-server"], queue
    assert option(args, "--appendonly") == "yes" and option(args, "--appendfsync") == "everysec", args
    (mount,) = queue["volumes"]
    volume, target = str(mount).split(":")
    assert target == "/data" and volume in (compose.get("volumes") or {}) and volume != "redis-data", mount
    assert "redis-cli" in argv(queue["healthcheck"]["test"])
    for name in ("api", "worker"):
        assert environment(services[name]).get("RED7_QUEUE_URL") == "redis://queue:6379/0", name
        assert depends_on_healthy(services[name], "queue"), f"{name} must wait for a healthy queue"


def test_every_service_has_a_healthcheck_or_depends_on_one(services):
    redis_check = argv(services["redis"]["healthcheck"]["test"])
    assert "redis-cli" in redis_check and "ping" in redis_check, redis_check
    api_check = " ".join(argv(services["api"]["healthcheck"]["test"]))
    assert "/readyz" in api_check and ":8000" in api_check, api_check
    assert argv(services["api"]["healthcheck"]["test"])[0] in ("CMD", "CMD-SHELL")
    for name in ("api", "worker"):
        assert depends_on_healthy(services[name], "redis"), f"{name} must wait for a healthy redis"


def test_the_api_healthcheck_runs_in_the_image(services):
    """python:3.11-slim has no curl or wget: the check must use what the image has."""
    check = argv(services["api"]["healthcheck"]["test"])
    tool = check[1] if check[0] == "CMD" else shlex.split(check[1])[0]
    assert tool in ("python", "python3"), f"{tool} is not in python:3.11-slim"
    if check[0] == "CMD" and tool.startswith("python") and "-c" in check:
        compile(check[check.index("-c") + 1], "healthcheck", "exec")


def test_the_api_runs_gunicorn_with_gevent_workers_on_an_importable_wsgi_app(services, monkeypatch):
    api = services["api"]
    args = argv(api.get("command")) or dockerfile_cmd()
    assert args[0] == "gunicorn", args
    assert args == dockerfile_cmd(), "compose and the image serve the API the same way"
    config = option(args, "--config") or option(args, "-c")
    assert config == "python:service.processes.gunicorn_config", args
    monkeypatch.delenv("RED7_BIND", raising=False)
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    settings = importlib.import_module(config.removeprefix("python:"))
    assert settings.bind == "0.0.0.0:8000" and settings.workers == 2
    worker = settings.worker_class  # gevent's worker (waits hold greenlets, not threads), answering in problem+json
    module, _, name = worker.rpartition(".")
    from gunicorn.workers.ggevent import GeventWorker

    assert issubclass(getattr(importlib.import_module(module), name), GeventWorker), worker
    assert settings.worker_connections >= 1000
    target = args[-1]
    assert target == "service.processes.wsgi:app", target
    module_name, _, attribute = target.partition(":")
    monkeypatch.delenv("REDIS_URL", raising=False)  # the import builds the app: the embedded store is enough here
    app = getattr(importlib.import_module(module_name), attribute)
    assert callable(app) and hasattr(app, "wsgi_app")
    assert "8000" in " ".join(str(p) for p in api.get("ports", []))


def test_api_and_worker_use_the_redis_service(services):
    for name in ("api", "worker"):
        assert environment(services[name]).get("REDIS_URL") == "redis://redis:6379/0", name


def test_the_worker_command_is_a_console_script_of_this_package(services, pyproject, capsys):
    args = argv(services["worker"]["command"])
    script, subcommand = args[0], args[1]
    scripts = pyproject["project"]["scripts"]
    assert script in scripts, f"{script} is not in [project.scripts]: {scripts}"
    module_name, _, function = scripts[script].partition(":")
    main = getattr(importlib.import_module(module_name), function)
    assert module_name == "service.processes.cli"
    with pytest.raises(SystemExit) as exit_:
        main([subcommand, "--help"])  # argparse exits 0 for a known subcommand's help, 2 for an unknown one
    assert exit_.value.code == 0, capsys.readouterr().err
    assert f"usage: {script} {subcommand}" in capsys.readouterr().out


def test_the_worker_scales(services):
    worker = services["worker"]
    assert "container_name" not in worker and "ports" not in worker, "a fixed name or port stops --scale worker=3"
    assert "hostname" not in worker


def test_the_documented_compose_commands_name_these_files_and_a_worker_that_scales():
    """docs/running.md's two commands, on paper: each file they name is here and runs the API on port 8000 and a
    ``worker`` service that ``--scale`` can multiply."""
    for command in commands(block("docs/running.md", "With Docker Compose", "sh")):
        args = shlex.split(command)
        assert args[:2] == ["docker", "compose"] and "up" in args, command
        named = ROOT / (option(args, "-f") or "docker-compose.yml")
        services = yaml.safe_load(named.read_text())["services"]
        assert "8000:8000" in services["api"]["ports"], named
        scale = option(args, "--scale")
        assert scale is None or (scale.split("=")[0] == "worker" and "container_name" not in services["worker"]), command
        assert "ports" not in services["worker"], named


def test_api_and_worker_run_the_same_image(services):
    api, worker = services["api"], services["worker"]
    assert worker.get("image") == api.get("image") or worker.get("build") == api.get("build")
    assert api.get("build"), "the api is built from the Dockerfile"
    context = api["build"] if isinstance(api["build"], str) else api["build"].get("context", ".")
    dockerfile = "Dockerfile" if isinstance(api["build"], str) else api["build"].get("dockerfile", "Dockerfile")
    assert (ROOT / context / dockerfile).resolve() == DOCKERFILE


def dockerfile_cmd() -> list[str]:
    import json

    cmds = [rest for word, rest in dockerfile_instructions() if word == "CMD"]
    return json.loads(cmds[-1]) if cmds and cmds[-1].startswith("[") else shlex.split(cmds[-1]) if cmds else []


def test_the_dockerfile_installs_the_deploy_extra_on_python_311_slim(pyproject):
    instructions = dockerfile_instructions()
    froms = [rest for word, rest in instructions if word == "FROM"]
    assert froms and froms[0].split()[0] == "python:3.11-slim", froms
    runs = " ".join(rest for word, rest in instructions if word == "RUN")
    assert re.search(r"""pip install\s+(?:[-\w]+\s+)*["']?\.\[deploy\]["']?""", runs), runs
    assert "gunicorn" in " ".join(pyproject["project"]["optional-dependencies"]["deploy"])
    copied = " ".join(rest for word, rest in instructions if word in ("COPY", "ADD"))
    assert "pyproject.toml" in copied
    # Every package the build includes must be in the image (COPY . also counts).
    for pattern in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]:
        package = pattern.rstrip("*")
        if (ROOT / package).is_dir():
            assert re.search(rf"(^|\s)\.?/?{package}/?(\s|$)", copied) or re.search(r"(^|\s)\.\s", copied), package
    readme = pyproject["project"].get("readme")
    if readme:
        assert readme in copied, f"pyproject names {readme} as the readme: the build needs it"


def test_the_dockerfile_cmd_matches_the_api_command(services):
    assert dockerfile_cmd() == argv(services["api"]["command"])


# --- docker-compose.cluster.yml: the stores on a Redis Cluster, the queue on a Redis of its own -------------------

CLUSTER_COMPOSE = ROOT / "docker-compose.cluster.yml"


@pytest.fixture(scope="module")
def scaled() -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(CLUSTER_COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


def cluster_nodes(services: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """The services that run a cluster node, with their redis-server command lines."""
    nodes = {}
    for name, service in services.items():
        args = argv(service.get("command"))
        if args[:1] == ["redis-server"] and option(args, "--cluster-enabled") == "yes":
            nodes[name] = args
    return nodes


def test_the_cluster_has_three_primaries_with_a_replica_each_made_once(scaled):
    services = scaled["services"]
    nodes = cluster_nodes(services)
    assert len(nodes) == 6, sorted(nodes)
    init = services["cluster-init"]
    script = " ".join(argv(init["command"]))
    assert "--cluster create" in script and option(script.split(), "--cluster-replicas") == "1" and "--cluster-yes" in script
    assert all(f"getent hosts {name} " in script for name in nodes), script  # every node joins, by its address
    assert "cluster_state:ok" in script, "a cluster made before (its layout kept in the nodes' volumes) is left as it is"
    for name in nodes:
        assert depends_on_healthy(init, name), f"cluster-init must wait for {name}"
    assert init.get("restart") == "no"


def test_every_node_and_the_queue_persist_on_a_volume_of_their_own(scaled):
    services = scaled["services"]
    volumes = []
    for name in [*cluster_nodes(services), "queue"]:
        service = services[name]
        args = argv(service["command"])
        assert str(service["image"]).startswith("redis:7"), name
        # the stores keep every acknowledged write; the queue what the stores find again (docs/durability.md)
        fsync = "everysec" if name == "queue" else "always"
        assert option(args, "--appendonly") == "yes" and option(args, "--appendfsync") == fsync, (name, args)
        assert "redis-cli" in argv(service["healthcheck"]["test"]), name
        (mount,) = service["volumes"]
        volume, target = str(mount).split(":")
        assert target == "/data" and volume in (scaled.get("volumes") or {}), (name, mount)
        volumes.append(volume)
    assert len(set(volumes)) == len(volumes), "each Redis has its own data"
    for name, args in cluster_nodes(services).items():
        # a failing primary's slots only go dark; the others keep serving; clients are sent to names, not addresses
        assert option(args, "--cluster-require-full-coverage") == "no", name
        assert option(args, "--cluster-announce-hostname") == name, name


def test_api_and_workers_use_the_cluster_for_the_stores_and_the_queue_redis_for_rq(scaled):
    from service.common.config import Settings
    from service.storage.connections import is_cluster, parse_locations

    services = scaled["services"]
    for name in ("api", "worker"):
        env = environment(services[name])
        settings = Settings.from_env(env)
        assert is_cluster(settings.redis_url), name
        hosts = parse_locations(settings.redis_url, "redis+cluster://").hosts
        assert {host for host, _ in hosts} <= set(cluster_nodes(services)) and all(port == 6379 for _, port in hosts)
        assert settings.queue_url == "redis://queue:6379/0", name
        assert settings.wait_replicas == 1, "the promoted replica must hold every acknowledged move"
        assert services[name]["depends_on"]["cluster-init"]["condition"] == "service_completed_successfully", name
        assert depends_on_healthy(services[name], "queue"), name


def test_the_cluster_files_api_and_worker_run_as_the_main_files_do(scaled, services):
    cluster = scaled["services"]
    for name in ("api", "worker"):
        assert argv(cluster[name]["command"]) == argv(services[name]["command"]), name
        assert cluster[name]["build"] == services[name]["build"] and cluster[name].get("image") == services[name].get("image")
    assert argv(cluster["api"]["healthcheck"]["test"]) == argv(services["api"]["healthcheck"]["test"])
    assert "container_name" not in cluster["worker"] and "ports" not in cluster["worker"], "--scale worker=N"


# --- docker-compose.shards.yml: the queue on two Redis servers, each game's jobs on one ------------------------------

SHARDS_COMPOSE = ROOT / "docker-compose.shards.yml"


@pytest.fixture(scope="module")
def sharded() -> dict[str, Any]:
    data = yaml.safe_load(SHARDS_COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


def test_the_sharded_files_queue_is_two_redis_servers_each_persisted_on_a_volume_of_its_own(sharded):
    services = sharded["services"]
    volumes = []
    for name in ("redis", "queue-0", "queue-1"):
        service = services[name]
        args = argv(service["command"])
        assert str(service["image"]).startswith("redis:7") and args[:1] == ["redis-server"], name
        fsync = "always" if name == "redis" else "everysec"  # the stores keep every acknowledged write (docs/durability.md)
        assert option(args, "--appendonly") == "yes" and option(args, "--appendfsync") == fsync, (name, args)
        assert "redis-cli" in argv(service["healthcheck"]["test"]), name
        (mount,) = service["volumes"]
        volume, target = str(mount).split(":")
        assert target == "/data" and volume in (sharded.get("volumes") or {}), (name, mount)
        volumes.append(volume)
    assert len(set(volumes)) == len(volumes), "each Redis has its own data"


def test_the_sharded_files_api_and_workers_name_both_shards_and_wait_for_them(sharded):
    from service.common.config import Settings

    services = sharded["services"]
    for name in ("api", "worker"):
        settings = Settings.from_env(environment(services[name]))
        assert settings.redis_url == "redis://redis:6379/0", name
        assert settings.queue_urls == ("redis://queue-0:6379/0", "redis://queue-1:6379/0"), name
        for other in ("redis", "queue-0", "queue-1"):
            assert depends_on_healthy(services[name], other), f"{name} must wait for a healthy {other}"


def test_the_sharded_files_api_and_worker_run_as_the_main_files_do(sharded, services):
    shards = sharded["services"]
    for name in ("api", "worker"):
        assert argv(shards[name]["command"]) == argv(services[name]["command"]), name
        assert shards[name]["build"] == services[name]["build"] and shards[name].get("image") == services[name].get("image")
    assert argv(shards["api"]["healthcheck"]["test"]) == argv(services["api"]["healthcheck"]["test"])
    assert "container_name" not in shards["worker"] and "ports" not in shards["worker"], "--scale worker=N"


# --- the analysts: decision analyses on workers of their own ------------------------------------------------------------


@pytest.mark.parametrize("path", [COMPOSE, ROOT / "docker-compose.cluster.yml", SHARDS_COMPOSE], ids=lambda p: p.name)
def test_games_and_analyses_run_on_workers_of_their_own_kind_that_scale(path, capsys):
    from service.processes.cli import main

    services = yaml.safe_load(path.read_text())["services"]
    worker, analyst = services["worker"], services["analyst"]
    assert argv(worker["command"]) == ["red7", "worker", "--kind", "games"]
    assert argv(analyst["command"]) == ["red7", "worker", "--kind", "analyses"]
    assert analyst.get("build") == worker.get("build") and analyst.get("image") == worker.get("image")
    assert environment(analyst) == environment(worker), "the same stores and queue"
    assert "container_name" not in analyst and "ports" not in analyst, "--scale analyst=N"
    assert analyst["deploy"]["replicas"] >= 2, "one player's running analysis leaves another's an analyst"
    for kind in ("games", "analyses"):
        with pytest.raises(SystemExit) as exit_:
            main(["worker", "--kind", kind, "--help"])
        assert exit_.value.code == 0, capsys.readouterr().err
