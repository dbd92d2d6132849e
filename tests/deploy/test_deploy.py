"""deploy/ checked offline: no Docker engine here, so the files are validated statically."""

from __future__ import annotations

import inspect
import ipaddress
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from dockerfile_parse import DockerfileParser

from service.http import ops
from service.http.spec import spec
from service.http.throttle import trusted_networks
from service.settings import VARIABLES, from_env
from service.write import migrate

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def assert_valid_against_the_compose_spec(compose_file: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.compose-spec",
            str(compose_file),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_file_is_valid_against_the_compose_spec() -> None:
    assert_valid_against_the_compose_spec(DEPLOY / "compose.yaml")


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
    # A number: Kubernetes cannot check runAsNonRoot against a name.
    assert users and re.fullmatch(r"[1-9][0-9]*(:[0-9]+)?", users[-1]), users
    assert any(i["instruction"] == "HEALTHCHECK" for i in instructions)
    assert '"cardroom", "serve"' in parser.cmd
    assert "8000" in [i["value"] for i in instructions if i["instruction"] == "EXPOSE"]


K8S = DEPLOY / "k8s"


def manifests() -> dict[str, list[dict[str, Any]]]:
    """Every Kubernetes document of the base variant (deploy/k8s/base and the example
    Secret beside it), by file name."""
    return {
        path.name: [d for d in yaml.safe_load_all(path.read_text()) if d]
        for path in sorted([*K8S.glob("*.yaml"), *(K8S / "base").glob("*.yaml")])
    }


def the(kind: str) -> dict[str, Any]:
    (found,) = [d for docs in manifests().values() for d in docs if d["kind"] == kind]
    return found


def pod_templates() -> dict[str, dict[str, Any]]:
    """The pod spec of every workload that runs the image (the Deployment, the Job)."""
    return {
        d["kind"]: d["spec"]["template"]["spec"]
        for docs in manifests().values()
        for d in docs
        if d["kind"] in ("Deployment", "Job")
    }


def server_container() -> dict[str, Any]:
    (container,) = the("Deployment")["spec"]["template"]["spec"]["containers"]
    return container  # type: ignore[no-any-return]


def package_version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def dockerfile_uid() -> int:
    parser = DockerfileParser(path=str(DEPLOY / "Dockerfile"))
    users = [i["value"] for i in parser.structure if i["instruction"] == "USER"]
    return int(users[-1].split(":")[0])


def test_the_build_context_leaves_out_local_state_but_nothing_copied() -> None:
    """Without a .dockerignore every build sent the virtualenv, the embedded servers' data
    and the npm packages (some 650 MB here) as its context."""
    ignored = [
        line.strip().rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert {".venv", ".cardroom", "**/node_modules", ".git"} <= set(ignored)
    parser = DockerfileParser(path=str(DEPLOY / "Dockerfile"))
    copied = [
        source
        for i in parser.structure
        if i["instruction"] == "COPY" and "--from" not in i["value"]
        for source in i["value"].split()[:-1]
    ]
    for source in copied:
        assert not any(Path(source).match(pattern) for pattern in ignored), source
    named = re.findall(r"deploy/[\w./-]+\w", (DEPLOY / "Dockerfile").read_text())
    assert named and all((ROOT / path).exists() for path in named), named


def test_kubernetes_manifests_probe_real_endpoints_with_known_settings() -> None:
    kinds = {d["kind"] for docs in manifests().values() for d in docs}
    assert {"Secret", "Deployment", "Service", "Job"} <= kinds
    assert set(the("Secret")["stringData"]) <= set(VARIABLES)
    container = server_container()
    assert {e["name"] for e in container.get("env", [])} <= set(VARIABLES)
    paths = spec()["paths"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] in paths, probe


def test_the_pods_read_the_client_address_their_proxy_forwards() -> None:
    """The Service is internal, so every client comes through an Ingress: with no trusted
    proxy, all of them counted as it and shared one address budget (30 tables a minute
    for the whole site)."""
    assert the("Service")["spec"].get("type", "ClusterIP") == "ClusterIP"
    env = {e["name"]: e.get("value") for e in server_container()["env"]}
    trusted = trusted_networks(env["CARDROOM_TRUSTED_PROXIES"].split(","))
    assert any(ipaddress.ip_address("10.42.0.7") in network for network in trusted)


def test_the_secret_has_a_file_of_its_own() -> None:
    """The Deployment can be shared, reviewed and applied without carrying secrets."""
    holding = {
        name for name, docs in manifests().items() if any(d["kind"] == "Secret" for d in docs)
    }
    assert holding == {"secret.yaml"}
    assert {d["kind"] for d in manifests()["secret.yaml"]} == {"Secret"}
    name = the("Secret")["metadata"]["name"]
    for kind, pod in pod_templates().items():
        for container in pod["containers"]:
            refs = [
                e["secretRef"]["name"] for e in container.get("envFrom", []) if "secretRef" in e
            ]
            assert refs == [name], kind


def test_images_are_named_by_version_or_digest_never_latest() -> None:
    for kind, pod in pod_templates().items():
        for container in pod["containers"]:
            image = container["image"]
            if "@sha256:" in image:
                continue
            repository, _, tag = image.rpartition(":")
            assert repository and "/" not in tag, f"{kind}: {image} names no tag"
            assert tag == package_version(), f"{kind}: {image} is not the package's version"
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    own = compose["services"]["cardroom"]["image"]
    assert own.rpartition(":")[2] == package_version(), own
    for name, service in compose["services"].items():
        image = service.get("image", "")
        assert ":" in image and not image.endswith(":latest"), f"{name}: {image}"


def test_pods_run_unprivileged_on_a_read_only_root() -> None:
    for kind, pod in pod_templates().items():
        context = pod["securityContext"]
        assert context["runAsNonRoot"] is True, kind
        assert context["runAsUser"] == dockerfile_uid() != 0, kind
        assert context["seccompProfile"]["type"] == "RuntimeDefault", kind
        assert pod.get("automountServiceAccountToken") is False, kind
        scratch = {v["name"] for v in pod["volumes"] if "emptyDir" in v}
        for container in pod["containers"]:
            own = container["securityContext"]
            assert own["allowPrivilegeEscalation"] is False, kind
            assert own["readOnlyRootFilesystem"] is True, kind
            assert own["capabilities"]["drop"] == ["ALL"], kind
            assert "add" not in own["capabilities"], kind
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            assert mounts.get("/tmp") in scratch, f"{kind}: /tmp is not an emptyDir"


def test_every_container_has_resource_requests_and_limits() -> None:
    for kind, pod in pod_templates().items():
        for container in pod["containers"]:
            resources = container["resources"]
            assert {"cpu", "memory"} <= resources["requests"].keys(), kind
            assert {"cpu", "memory"} <= resources["limits"].keys(), kind


def test_probes_answer_within_their_timeouts_and_startup_has_its_own() -> None:
    container = server_container()
    assert container["readinessProbe"]["timeoutSeconds"] == 1
    # /readyz bounds its checks below the readiness probe's timeout.
    assert container["readinessProbe"]["timeoutSeconds"] > ops.CHECK_SECONDS
    assert container["livenessProbe"]["timeoutSeconds"] >= 1
    startup = container["startupProbe"]
    # Start-up (migrations included) gets a minute or more before liveness may kill it.
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 60


def test_the_grace_period_outlasts_the_graceful_stop() -> None:
    pod = pod_templates()["Deployment"]
    container = server_container()
    env = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
    stop = from_env(env).shutdown_seconds
    pause = 0
    pre_stop = container.get("lifecycle", {}).get("preStop", {})
    if pre_stop:
        assert pre_stop["exec"]["command"][0] == "sleep"
        pause = int(pre_stop["exec"]["command"][1])
    assert pod["terminationGracePeriodSeconds"] >= pause + stop + 10
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["cardroom"]
    compose_stop = from_env(compose["environment"]).shutdown_seconds
    assert int(compose["stop_grace_period"].removesuffix("s")) > compose_stop


def test_a_job_runs_the_migrations_which_take_a_lock() -> None:
    job = the("Job")
    pod = job["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["command"] == ["cardroom", "migrate"]
    assert pod["restartPolicy"] in ("Never", "OnFailure")
    assert container["image"] == server_container()["image"]
    # The servers migrate at start-up too: safe only because migrations take a lock.
    assert "pg_advisory_lock" in inspect.getsource(migrate)
    # The Job's pods are not the server's: no Service or budget counts them.
    selector = the("Deployment")["spec"]["selector"]["matchLabels"]
    assert not selector.items() <= job["spec"]["template"]["metadata"]["labels"].items()


def test_a_disruption_budget_and_an_autoscaler_cover_the_deployment() -> None:
    deployment = the("Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    budget = the("PodDisruptionBudget")
    assert budget["spec"]["selector"]["matchLabels"].items() <= labels.items()
    autoscaler = the("HorizontalPodAutoscaler")
    target = autoscaler["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert autoscaler["spec"]["minReplicas"] >= 2
    assert autoscaler["spec"]["maxReplicas"] >= autoscaler["spec"]["minReplicas"]
    # A count in the Deployment would undo the autoscaler's on every apply.
    assert "replicas" not in deployment["spec"]
    # The budget never blocks every drain: one pod may always go.
    assert budget["spec"]["minAvailable"] < autoscaler["spec"]["minReplicas"]
    for container in deployment["spec"]["template"]["spec"]["containers"]:
        assert "cpu" in container["resources"]["requests"], "the autoscaler scales on CPU"


def test_the_most_pods_fit_in_postgres_default_connections() -> None:
    """Each server process holds its pool, a connection listening for commits and one for
    each leader role (a standby keeps one to ask for the lock); the autoscaler's most pods,
    a rolling update's surge pod and the old pod still stopping (a terminating pod is not
    counted by the rollout, so it holds its connections beside the surge) must fit in
    what a default Postgres (100 connections, 3 kept for superusers) lets them have."""
    env = {e["name"]: e["value"] for e in server_container().get("env", []) if "value" in e}
    pool = from_env(env).pool_max
    leaders = sum(
        "\nLEADER_LOCK = " in path.read_text()
        for path in (ROOT / "service" / "workers").glob("*.py")
    )
    assert leaders == 6
    deployment = the("Deployment")
    # One old pod stopping at a time: the next goes only once a new pod has been ready
    # for longer than the old one may take to exit.
    grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert deployment["spec"]["minReadySeconds"] > grace
    pods = the("HorizontalPodAutoscaler")["spec"]["maxReplicas"]
    pods += deployment["spec"]["strategy"]["rollingUpdate"]["maxSurge"] + 1
    assert (pool + 1 + leaders) * pods <= 97


def test_no_image_starts_a_private_database() -> None:
    parser = DockerfileParser(path=str(DEPLOY / "Dockerfile"))
    assert parser.envs.get("CARDROOM_EMBEDDED") == "0"
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["cardroom"]
    assert compose["environment"].get("CARDROOM_EMBEDDED") == "0"
    env = {e["name"]: e.get("value") for e in server_container().get("env", [])}
    assert env.get("CARDROOM_EMBEDDED", "0") == "0"


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


SCALE = DEPLOY / "k8s" / "scale"


def test_the_scaled_compose_file_is_valid_against_the_compose_spec() -> None:
    assert_valid_against_the_compose_spec(DEPLOY / "compose.scale.yaml")


def test_the_scaled_compose_runs_two_servers_on_a_replica_and_a_redis_cluster() -> None:
    """DESIGN 13: the servers read from the streaming replica and use the cluster."""
    services = yaml.safe_load((DEPLOY / "compose.scale.yaml").read_text())["services"]
    servers = [s for s in services.values() if s.get("image", "").startswith("cardroom:")]
    assert len(servers) >= 2
    nodes = [n for n, s in services.items() if "--cluster-enabled" in s.get("command", [])]
    assert len(nodes) >= 3
    replica = services["postgres-replica"]
    assert "pg_basebackup" in replica["entrypoint"][-1] and "-R" in replica["entrypoint"][-1]
    init = services["postgres"]["volumes"][-1].split(":")[0]
    assert (DEPLOY / init).is_file(), "the primary's replication script is missing"
    for server in servers:
        env = server["environment"]
        assert set(env) <= set(VARIABLES)
        settings = from_env({k: str(v) for k, v in env.items()})
        assert settings.redis_cluster == "1"
        assert [u.split("@")[1].split(":")[0] for u in settings.replica_urls] == [
            "postgres-replica"
        ]
        assert settings.redis_url and settings.redis_url.split("//")[1].split(":")[0] in nodes
        for dependency in ("postgres", "postgres-replica"):
            assert server["depends_on"][dependency]["condition"] == "service_healthy"
        assert server["depends_on"]["redis-cluster-create"]["condition"] == (
            "service_completed_successfully"
        )
    assert services["redis-cluster-create"]["restart"] == "no"


def scale_manifests() -> list[dict[str, Any]]:
    return [
        d
        for path in sorted(SCALE.glob("*.yaml"))
        for d in yaml.safe_load_all(path.read_text())
        if d
    ]


KUSTOMIZATIONS = [K8S / "base", SCALE]


def kustomized(directory: Path) -> list[dict[str, Any]]:
    """The documents ``kubectl apply -k directory`` would apply, as kustomize builds them."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed: kustomize cannot build the variants here")
    built = subprocess.run(
        ["kubectl", "kustomize", str(directory)], capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stderr
    return [d for d in yaml.safe_load_all(built.stdout) if d]


@pytest.mark.parametrize("directory", KUSTOMIZATIONS, ids=lambda d: d.name)
def test_each_variant_builds_with_kustomize_and_applies_no_secret(directory: Path) -> None:
    """An overlay inside its own base is refused by kustomize (a cycle); and a Secret in
    a kustomization would overwrite, at every apply, the one the operator made from his
    secret store with the placeholders of these files."""
    config = yaml.safe_load((directory / "kustomization.yaml").read_text())
    for entry in config["resources"]:
        resource = (directory / entry).resolve()
        assert resource.exists(), entry
        assert not directory.resolve().is_relative_to(resource), f"{entry} holds the overlay"
    documents = kustomized(directory)
    kinds = [d["kind"] for d in documents]
    assert "Deployment" in kinds and "Job" in kinds
    assert "Secret" not in kinds


def test_the_scaled_kubernetes_variant_builds_on_the_base() -> None:
    overlay = yaml.safe_load((SCALE / "kustomization.yaml").read_text())
    assert "../base" in overlay["resources"]
    documents = scale_manifests()
    kinds = [d["kind"] for d in documents]
    assert kinds.count("StatefulSet") == 3  # primary, replica, Redis nodes
    (secret,) = [
        d for d in documents if d["kind"] == "Secret" and d["metadata"]["name"] == "cardroom"
    ]
    values = secret["stringData"]
    assert set(values) <= set(VARIABLES)
    settings = from_env({**values, "CARDROOM_OPERATOR_TOKEN": "the operator's own"})
    assert settings.redis_cluster == "1" and settings.replica_urls
    services = {d["metadata"]["name"]: d for d in documents if d["kind"] == "Service"}
    sets = {d["metadata"]["name"]: d for d in documents if d["kind"] == "StatefulSet"}
    for url in settings.replica_urls:
        host = url.split("@")[1].split(":")[0]
        pod, _, service = host.partition(".")
        assert services[service]["spec"]["clusterIP"] == "None", "a replica is one pod"
        assert pod.rsplit("-", 1)[0] in sets
    clone = sets["postgres-replica"]["spec"]["template"]["spec"]["initContainers"][0]
    assert "pg_basebackup" in clone["command"][-1] and " -R " in clone["command"][-1]
    nodes = sets["redis-cluster"]
    assert nodes["spec"]["replicas"] >= 3
    assert (
        "--cluster-enabled yes" in nodes["spec"]["template"]["spec"]["containers"][0]["command"][-1]
    )
    (create,) = [d for d in documents if d["kind"] == "Job"]
    assert "--cluster create" in create["spec"]["template"]["spec"]["containers"][0]["command"][-1]
