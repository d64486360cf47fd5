"""``rediss+cluster://``: the stores on a Redis Cluster that speaks only TLS, as managed clusters with encryption in
transit do.  A real one here: redis-server with ``tls-cluster yes``, its certificate signed by a CA of the test's own."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.exceptions import RedisClusterException

from service.common.config import Settings
from service.http.app import create_app
from service.runtime import build_runtime
from service.storage.connections import CLUSTER_TRANSACTIONS, BadRedisUrl, cluster_client, parse_locations
from tests.harness.deployment import REDIS_SERVER, RedisServer, free_cluster_port, wait_until
from workers import context
from workers.runner import drain

OPENSSL = shutil.which("openssl")

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(not (REDIS_SERVER and OPENSSL), reason="needs redis-server (built with TLS) and openssl"),
    pytest.mark.skipif(not CLUSTER_TRANSACTIONS, reason="the service runs on a cluster from redis-py 6.1 on"),
]


def _certificates(directory: Path) -> Path:
    """A CA, and a certificate for 127.0.0.1 it signed; the CA's path."""

    def openssl(*args: str) -> None:
        assert OPENSSL is not None
        subprocess.run([OPENSSL, *args], cwd=directory, check=True, capture_output=True, timeout=60)

    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=red7 test CA",
    )
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr", "-subj", "/CN=127.0.0.1")
    (directory / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl(
        "x509",
        "-req",
        "-in",
        "node.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "node.pem",
        "-days",
        "2",
        "-extfile",
        "san.cnf",
    )
    return directory / "ca.pem"


class TlsClusterNode:
    """A one-node cluster holding all 16384 slots, reachable only over TLS."""

    def __init__(self, directory: Path) -> None:
        self.directory, self.port = directory, free_cluster_port()
        self.ca = _certificates(directory)
        self.process: subprocess.Popen[bytes] | None = None

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, ssl=True, ssl_ca_certs=str(self.ca), socket_timeout=2)

    def start(self) -> None:
        assert REDIS_SERVER is not None
        d = self.directory
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                "0",
                "--tls-port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(d),
                "--tls-cert-file",
                str(d / "node.pem"),
                "--tls-key-file",
                str(d / "node.key"),
                "--tls-ca-cert-file",
                str(self.ca),
                "--tls-auth-clients",
                "no",
                "--tls-cluster",
                "yes",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                str(d / "nodes.conf"),
                "--save",
                "",
                "--appendonly",
                "no",
                "--logfile",
                str(d / "redis.log"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def answers() -> bool:
            try:
                return bool(self.client().ping())
            except redis.RedisError:
                return False

        wait_until(answers, 20, "the TLS node answers", every=0.1)
        self.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        wait_until(lambda: self.client().cluster("info").get("cluster_state") == "ok", 20, "the cluster is ok", every=0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture(scope="module")
def tls_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsClusterNode]:
    node = TlsClusterNode(tmp_path_factory.mktemp("tls-cluster"))
    try:
        node.start()
    except Exception:
        node.stop()
        if "tls" in (node.directory / "redis.log").read_text(errors="replace").lower():
            pytest.skip("this redis-server was built without TLS")
        raise
    yield node
    node.stop()


@pytest.fixture
def queue_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, appendfsync="everysec")
    server.start()
    yield server
    server.stop()


def test_an_all_ai_game_plays_to_its_end_with_the_stores_on_a_tls_cluster(tls_node, queue_server):
    url = f"rediss+cluster://127.0.0.1:{tls_node.port}?ssl_ca_certs={tls_node.ca}"
    runtime = build_runtime(Settings(redis_url=url, queue_url=queue_server.url, key_prefix="tls:"))
    context.install(runtime)
    client = create_app(runtime).test_client()
    token = client.post("/v1/players", json={"name": "Ana"}).get_json()["token"]
    seats = [{"kind": "ai", "level": "greedy"}, {"kind": "ai", "level": "random"}]
    created = client.post("/v1/games", json={"seats": seats, "action_rules": True}, headers={"Authorization": f"Bearer {token}"})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    drain(runtime)
    view = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert view["status"] == "finished"
    stored = tls_node.client().get(f"tls:game:{{{game_id}}}:version")
    assert stored is not None and int(stored) == view["version"], "the game is on the TLS cluster"


def test_a_cluster_whose_certificate_the_service_cannot_trust_is_refused_at_start_saying_why(tls_node):
    with pytest.raises(RedisClusterException, match="CERTIFICATE_VERIFY_FAILED"):
        cluster_client(f"rediss+cluster://127.0.0.1:{tls_node.port}", 10)  # no ssl_ca_certs: the system's CAs


def test_a_plain_cluster_url_does_not_talk_to_a_tls_port(tls_node):
    started = time.monotonic()
    with pytest.raises(RedisClusterException, match="cannot be connected"):
        cluster_client(f"redis+cluster://127.0.0.1:{tls_node.port}", 10, socket_timeout=2, socket_connect_timeout=2)
    assert time.monotonic() - started < 30


def test_a_tls_cluster_url_keeps_its_options_apart_from_its_hosts():
    where = parse_locations(
        "rediss+cluster://pw@a:7000,b:7001?ssl_ca_certs=/etc/ca.pem&ssl_cert_reqs=required", "rediss+cluster://"
    )
    assert where.hosts == (("a", 7000), ("b", 7001)) and where.password == "pw"
    assert where.query == {"ssl_ca_certs": "/etc/ca.pem", "ssl_cert_reqs": "required"}


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis+cluster://a:7000?ssl_ca_certs=/etc/ca.pem", "need a rediss\\+cluster://"),
        ("rediss+cluster://a:7000?tls=yes", "takes no tls"),
        ("rediss+cluster://a:7000?ssl_cert_reqs=maybe", "ssl_cert_reqs is one of"),
    ],
)
def test_tls_options_that_cannot_work_are_refused_at_start(url, says):
    with pytest.raises(BadRedisUrl, match=says):
        cluster_client(url, 10)
