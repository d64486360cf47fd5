"""The operator's files (docs/operations/, issue 41): the alert rules and the Grafana dashboard name only metrics the
service exports; the rules are well formed (as ``promtool check rules`` would see them: parsed, since promtool is
not installed here); the compose file's ``monitoring`` profile runs pinned Prometheus and Grafana with these files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.registry import CollectorRegistry

import service.http.metrics
import service.jobqueue.metrics
import service.outbound.metrics
import workers.metrics
from service.jobqueue.metrics import BacklogCollector, QueueCollector

yaml = pytest.importorskip("yaml", reason="PyYAML reads the rules and docker-compose.yml")

ROOT = Path(__file__).resolve().parent.parent
OPERATIONS = ROOT / "docs" / "operations"
#: A metric's name inside a PromQL expression (ours all start red7_).
NAME = re.compile(r"\bred7_[a-z0-9_]+")
#: The series names each kind of family exposes.
#: The modules that define the service's metrics (a new one goes here, and on the dashboard).
METRIC_MODULES = (service.http.metrics, service.jobqueue.metrics, service.outbound.metrics, workers.metrics)
SUFFIXES = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_count", "_sum", "_created"), "gauge": ("",)}


def exported() -> set[str]:
    """Every ``red7_`` series name the service's processes expose: the API's, the jobs', the deliveries', the queues'
    (the metrics of the modules that define them, not whatever else this test process registered)."""
    registry = CollectorRegistry()
    for module in METRIC_MODULES:
        for metric in vars(module).values():
            if isinstance(metric, MetricWrapperBase):
                registry.register(metric)
    registry.register(QueueCollector(lambda: []))
    registry.register(BacklogCollector(lambda: []))
    names = set()
    for family in registry.collect():
        names |= {family.name + suffix for suffix in SUFFIXES.get(family.type, ("",))}
    return names


def expressions(node: Any) -> list[str]:
    """Every ``expr`` in a dashboard (at any depth)."""
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "expr"] + [e for v in node.values() for e in expressions(v)]
    if isinstance(node, list):
        return [e for v in node for e in expressions(v)]
    return []


@pytest.fixture(scope="module")
def rules() -> list[dict[str, Any]]:
    loaded = yaml.safe_load((OPERATIONS / "alerts.yml").read_text())
    return [rule for group in loaded["groups"] for rule in group["rules"]]


def test_every_alert_is_well_formed_and_names_only_exported_metrics(rules):
    names = exported()
    assert len(rules) >= 5
    for rule in rules:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
        assert re.fullmatch(r"Red7[A-Za-z0-9]+", rule["alert"]) and re.fullmatch(r"\d+[smh]", rule["for"]), rule
        assert rule["labels"]["severity"] in ("page", "ticket") and rule["annotations"]["summary"], rule
        expr = rule["expr"]
        assert expr.count("(") == expr.count(")") and expr.count("{") == expr.count("}"), rule["alert"]
        used = set(NAME.findall(expr))
        assert used or "up{" in expr, rule["alert"]
        assert used <= names, (rule["alert"], used - names)


def test_the_alerts_cover_what_the_issue_names(rules):
    used = {name for rule in rules for name in NAME.findall(rule["expr"])}
    for metric in (
        "red7_ai_turn_delay_seconds_bucket",
        "red7_queue_oldest_seconds",
        "red7_http_requests_total",
        "red7_deadlines_overdue",
        "red7_ratings_behind_seconds",
        "red7_compaction_backlog_games",
        "red7_matchmaker_pass_seconds_bucket",
    ):
        assert metric in used


def test_the_dashboard_charts_only_exported_metrics_and_every_one_of_them():
    dashboard = json.loads((OPERATIONS / "grafana" / "red7.json").read_text())
    names = exported()
    used = {name for expr in expressions(dashboard) for name in NAME.findall(expr)}
    assert used <= names, used - names
    families = {re.sub(r"_(total|bucket|count|sum|created)$", "", n) for n in names}
    charted = {re.sub(r"_(total|bucket|count|sum|created)$", "", n) for n in used}
    assert charted == families, families - charted
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids)) and all(p["datasource"]["uid"] == "red7-prometheus" for p in dashboard["panels"])


def test_the_monitoring_profile_runs_pinned_prometheus_and_grafana_with_these_files():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    for name, image in (("prometheus", "prom/prometheus:"), ("grafana", "grafana/grafana:")):
        service = services[name]
        assert service["profiles"] == ["monitoring"]
        assert re.fullmatch(re.escape(image) + r"v?\d+\.\d+\.\d+", service["image"]), service["image"]
        for volume in service["volumes"]:
            source = volume.split(":")[0]
            if source.startswith("./"):
                assert (ROOT / source).is_file(), source
    assert not any("monitoring" in s.get("profiles", []) for n, s in services.items() if n not in ("prometheus", "grafana"))
    scrape = yaml.safe_load((OPERATIONS / "prometheus.yml").read_text())
    assert scrape["rule_files"] == ["/etc/prometheus/alerts.yml"]
    port = str(services["api"]["environment"]["RED7_METRICS_PORT"]).split(":-")[-1].rstrip("}")
    targets = [t for job in scrape["scrape_configs"] for c in job.get("static_configs", []) for t in c["targets"]]
    assert targets == [f"api:{port}"]
    found = [c for job in scrape["scrape_configs"] for c in job.get("dns_sd_configs", [])]
    assert found and found[0]["port"] == int(port) and set(found[0]["names"]) == {"worker", "analyst"}
