"""deploy/ checked offline: no Docker engine here, so the files are validated statically."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml
from dockerfile_parse import DockerfileParser

from service.http.spec import spec
from service.settings import VARIABLES

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def test_compose_file_is_valid_against_the_compose_spec() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.compose-spec",
            str(DEPLOY / "compose.yaml"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_runs_the_service_beside_postgres_and_redis() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"cardroom", "postgres", "redis"} <= services.keys()
    app = services["cardroom"]
    assert set(app["environment"]) <= set(VARIABLES)
    assert {"CARDROOM_DATABASE_URL", "CARDROOM_REDIS_URL"} <= set(app["environment"])
    for dependency in ("postgres", "redis"):
        assert app["depends_on"][dependency]["condition"] == "service_healthy"
        assert "healthcheck" in services[dependency]
    assert (ROOT / app["build"]["dockerfile"]).is_file()


def test_dockerfile_builds_from_the_project_and_runs_unprivileged() -> None:
    parser = DockerfileParser(path=str(DEPLOY / "Dockerfile"))
    instructions = parser.structure
    froms = [i["value"] for i in instructions if i["instruction"] == "FROM"]
    assert all(re.match(r"python:3\.(1[1-9])", f) for f in froms), froms
    for copy in (i["value"] for i in instructions if i["instruction"] == "COPY"):
        if "--from" not in copy:
            for source in copy.split()[:-1]:
                assert (ROOT / source).exists(), f"COPY source {source} is missing"
    users = [i["value"] for i in instructions if i["instruction"] == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert any(i["instruction"] == "HEALTHCHECK" for i in instructions)
    assert '"cardroom", "serve"' in parser.cmd
    assert "8000" in [i["value"] for i in instructions if i["instruction"] == "EXPOSE"]


def test_kubernetes_manifests_probe_real_endpoints_with_known_settings() -> None:
    documents = list(yaml.safe_load_all((DEPLOY / "k8s" / "cardroom.yaml").read_text()))
    kinds = {d["kind"]: d for d in documents}
    assert {"Secret", "Deployment", "Service"} <= kinds.keys()
    assert set(kinds["Secret"]["stringData"]) <= set(VARIABLES)
    container = kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    paths = spec()["paths"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] in paths


def test_env_example_names_only_known_settings() -> None:
    names = {
        line.split("=", 1)[0]
        for line in (DEPLOY / "env.example").read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert names <= set(VARIABLES)


def test_readme_documents_every_setting() -> None:
    readme = (ROOT / "README.md").read_text()
    missing = [name for name in VARIABLES if name not in readme]
    assert not missing, missing
