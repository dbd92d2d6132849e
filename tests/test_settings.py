"""When ``cardroom serve`` may start embedded servers (CARDROOM_EMBEDDED), and how it
refuses to start when it may not."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service.settings import (
    Embedding,
    SettingsError,
    container_evidence,
    embedded_servers,
    from_env,
    operator_token_generated,
)
from service.tools.cli import main, parser

DB = "postgresql://db/cardroom"
REDIS = "redis://redis:6379/0"
BOTH = Embedding(postgres=True, redis=True)
NEITHER = Embedding(postgres=False, redis=False)


def decide(container: str | None = None, **env: str) -> Embedding:
    return embedded_servers(from_env(env), container)


def test_the_default_embeds_on_a_bare_machine_with_nothing_configured() -> None:
    """The README's first command: `pip install -e . && cardroom serve`."""
    assert from_env({}).embedded == "auto"
    assert decide() == BOTH


def test_configured_servers_are_used_whatever_the_switch() -> None:
    for switch in ("auto", "1", "0"):
        for container in (None, "KUBERNETES_SERVICE_HOST"):
            urls = {"CARDROOM_DATABASE_URL": DB, "CARDROOM_REDIS_URL": REDIS}
            assert decide(container, CARDROOM_EMBEDDED=switch, **urls) == NEITHER


@pytest.mark.parametrize("container", ["KUBERNETES_SERVICE_HOST"])
def test_auto_refuses_in_a_container(container: str) -> None:
    with pytest.raises(SettingsError) as refused:
        decide(container)
    message = str(refused.value)
    assert "CARDROOM_DATABASE_URL" in message and "CARDROOM_REDIS_URL" in message
    assert container in message


def test_auto_refuses_half_a_configuration() -> None:
    """One URL set: the other was forgotten, not meant to be a private server."""
    with pytest.raises(SettingsError, match="CARDROOM_REDIS_URL is not set"):
        decide(CARDROOM_DATABASE_URL=DB)
    with pytest.raises(SettingsError, match="CARDROOM_DATABASE_URL is not set"):
        decide(CARDROOM_REDIS_URL=REDIS)


def test_one_embeds_whatever_is_missing_even_in_a_container() -> None:
    assert decide("KUBERNETES_SERVICE_HOST", CARDROOM_EMBEDDED="1") == BOTH
    assert decide(CARDROOM_EMBEDDED="true", CARDROOM_DATABASE_URL=DB) == Embedding(
        postgres=False, redis=True
    )


def test_zero_never_embeds() -> None:
    with pytest.raises(SettingsError, match="CARDROOM_EMBEDDED=0") as refused:
        decide(CARDROOM_EMBEDDED="0")
    assert "CARDROOM_DATABASE_URL" in str(refused.value)
    with pytest.raises(SettingsError, match="CARDROOM_REDIS_URL is not set"):
        decide(CARDROOM_EMBEDDED="off", CARDROOM_DATABASE_URL=DB)


def test_an_unknown_switch_is_refused_by_name() -> None:
    with pytest.raises(SettingsError, match="CARDROOM_EMBEDDED"):
        from_env({"CARDROOM_EMBEDDED": "sometimes"})


def test_container_evidence_is_a_pod_not_a_marker_file() -> None:
    """A developer's container (a devcontainer, a CI sandbox with /.dockerenv) still runs
    the README's first command; a Kubernetes pod does not embed by itself."""
    assert container_evidence({}) is None
    pod = {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}
    assert container_evidence(pod) == "KUBERNETES_SERVICE_HOST"


def _serve(**env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "service.tools.cli", "serve", "--port", "1"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return result, time.monotonic() - started


def test_serve_without_a_database_fails_at_once_naming_the_variable() -> None:
    """What the image does (CARDROOM_EMBEDDED=0) when no database is configured."""
    result, seconds = _serve(CARDROOM_EMBEDDED="0")
    assert result.returncode != 0
    assert seconds < 10
    assert "CARDROOM_DATABASE_URL" in result.stderr
    assert "Traceback" not in result.stderr
    assert not result.stdout  # nothing started, so no banner


def test_serve_in_a_pod_without_a_database_fails_at_once() -> None:
    result, seconds = _serve(KUBERNETES_SERVICE_HOST="10.0.0.1", CARDROOM_REDIS_URL=REDIS)
    assert result.returncode != 0 and seconds < 10
    assert "CARDROOM_DATABASE_URL is not set" in result.stderr


def test_an_empty_operator_token_is_generated_and_so_printed() -> None:
    """An empty CARDROOM_OPERATOR_TOKEN is no token: a random one is made, and ``serve``
    prints it as when the variable is unset (before, it made one and printed nothing)."""
    settings = from_env({"CARDROOM_OPERATOR_TOKEN": ""})
    assert len(settings.operator_token) >= 32
    assert operator_token_generated({"CARDROOM_OPERATOR_TOKEN": ""})
    assert operator_token_generated({})
    assert not operator_token_generated({"CARDROOM_OPERATOR_TOKEN": "secret"})
    assert from_env({"CARDROOM_OPERATOR_TOKEN": "secret"}).operator_token == "secret"


def test_an_operator_token_is_read_without_the_white_space_around_it() -> None:
    """A Secret made from a file ends in a newline that no Authorization header carries:
    the server started, and the operator was never recognised."""
    assert from_env({"CARDROOM_OPERATOR_TOKEN": "ops-token-1\n"}).operator_token == "ops-token-1"
    assert operator_token_generated({"CARDROOM_OPERATOR_TOKEN": " \n"})


def test_serve_in_a_pod_of_a_shared_database_without_an_operator_token_fails_at_once() -> None:
    """Every pod made up a token of its own and printed it to its log: the operator's
    calls worked on one pod of the Deployment and were refused (401) by the others."""
    pod = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "CARDROOM_REDIS_URL": REDIS}
    database = "postgresql://cardroom@db:5432/cardroom"
    for token in ({}, {"CARDROOM_OPERATOR_TOKEN": ""}):
        result, seconds = _serve(**pod, CARDROOM_DATABASE_URL=database, **token)
        assert result.returncode == 2 and seconds < 10
        assert "CARDROOM_OPERATOR_TOKEN is not set" in result.stderr
        assert "Traceback" not in result.stderr and not result.stdout


def test_openapi_outside_a_checkout_says_where_to_write_instead_of_a_traceback(
    tmp_path: Path,
) -> None:
    """Its defaults are the repository's api_spec/; in the image it raised a bare
    FileNotFoundError."""
    result = subprocess.run(
        [sys.executable, "-m", "service.tools.cli", "openapi"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "cannot write api_spec/openapi.json" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_placeholder_operator_token_of_deploy_is_refused() -> None:
    """deploy/ ships ``change-me`` where each operator puts his own token; a server left
    with it gave the operator's powers to anyone who had read those files."""
    with pytest.raises(SettingsError, match="CARDROOM_OPERATOR_TOKEN is still the placeholder"):
        from_env({"CARDROOM_OPERATOR_TOKEN": "change-me"})
    result, seconds = _serve(CARDROOM_OPERATOR_TOKEN="change-me", CARDROOM_EMBEDDED="0")
    assert result.returncode == 2 and seconds < 10
    assert "CARDROOM_OPERATOR_TOKEN is still the placeholder" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_of_the_image_outside_kubernetes_without_an_operator_token_fails_at_once() -> None:
    """The image sets CARDROOM_EMBEDDED=0; under docker run, ECS or Nomad no pod variable
    is set, and every container made up a token of its own."""
    image = {"CARDROOM_EMBEDDED": "0", "CARDROOM_REDIS_URL": REDIS}
    result, seconds = _serve(**image, CARDROOM_DATABASE_URL="postgresql://cardroom@db/cardroom")
    assert result.returncode == 2 and seconds < 10
    assert "CARDROOM_OPERATOR_TOKEN is not set" in result.stderr
    assert "CARDROOM_EMBEDDED=0" in result.stderr
    assert "Traceback" not in result.stderr and not result.stdout


def test_an_unknown_log_level_is_refused_by_name_before_anything_starts() -> None:
    with pytest.raises(SettingsError, match="CARDROOM_LOG_LEVEL"):
        from_env({"CARDROOM_LOG_LEVEL": "verbose"})
    assert from_env({"CARDROOM_LOG_LEVEL": "WARNING"}).log_level == "warning"
    result, seconds = _serve(CARDROOM_LOG_LEVEL="verbose", CARDROOM_EMBEDDED="0")
    assert result.returncode == 2 and seconds < 10
    assert "CARDROOM_LOG_LEVEL must be one of" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CARDROOM_POOL_MIN", "abc"),
        ("CARDROOM_POOL_MAX", "1"),  # fewer than the least, 2
        ("CARDROOM_POOL_MAX", "0"),
        ("CARDROOM_IDEMPOTENCY_HOURS", "abc"),
        ("CARDROOM_REQUEST_SECONDS", "1,5"),
        ("CARDROOM_SEND_TIMEOUT_SECONDS", "thirty"),
        ("CARDROOM_SHUTDOWN_SECONDS", "nan"),
        ("CARDROOM_SHUTDOWN_SECONDS", "-5"),
        ("CARDROOM_RELAY", "disabled"),
        ("CARDROOM_RATE_LIMITS", "2"),
        ("CARDROOM_RATE_CREATE", "30 per minute"),
        ("CARDROOM_TRUSTED_PROXIES", "proxy.internal"),
        ("CARDROOM_DATABASE_URL", "notaurl"),
        ("CARDROOM_REDIS_URL", "redis://redis:port/0"),
    ],
)
def test_a_malformed_setting_is_refused_by_its_name(name: str, value: str) -> None:
    """Not a bare "could not convert string to float", a switch read as on, or a
    traceback once the server has started: the variable to fix, before anything starts."""
    with pytest.raises(SettingsError, match=name):
        from_env({name: value})


def test_a_malformed_setting_stops_serve_before_anything_starts() -> None:
    result, seconds = _serve(CARDROOM_REDIS_URL="notaurl", CARDROOM_DATABASE_URL=DB)
    assert result.returncode == 2 and seconds < 10
    assert "CARDROOM_REDIS_URL must be a Redis URL" in result.stderr
    assert "Traceback" not in result.stderr
    assert not result.stdout


def test_switches_read_the_usual_spellings() -> None:
    assert not from_env({"CARDROOM_RELAY": "Off"}).relay
    assert from_env({"CARDROOM_RELAY": "yes"}).relay
    assert from_env({"CARDROOM_RELAY": ""}).relay  # empty: the default
    assert from_env({"CARDROOM_SHUTDOWN_SECONDS": "0"}).shutdown_seconds == 0


@pytest.mark.parametrize(
    "argv", [["serve", "--port", "70000"], ["serve", "--port", "-1"], ["serve", "--workers", "0"]]
)
def test_serve_refuses_a_port_or_a_worker_count_out_of_range(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Port 70000 was taken as 4464 (the kernel keeps 16 bits), and --workers 0 as 1."""
    with pytest.raises(SystemExit) as refused:
        main(argv)
    assert refused.value.code == 2
    assert "is not a" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["migrate", "relay", "timekeeper", "retention", "project"])
def test_a_command_without_a_database_url_exits_2_naming_it(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CARDROOM_DATABASE_URL", raising=False)
    assert main([command]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardroom: ") and "CARDROOM_DATABASE_URL" in err
    assert len(err.splitlines()) == 1


def test_a_database_that_does_not_answer_is_said_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        url = f"postgresql://postgres@127.0.0.1:{closed.getsockname()[1]}/cardroom"
    monkeypatch.setenv("CARDROOM_DATABASE_URL", url)
    assert main(["migrate"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cardroom: the database (CARDROOM_DATABASE_URL) does not answer: ")
    assert len(err.splitlines()) == 1


def test_verify_reads_no_setting_of_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It runs offline, on a file: the placeholder token of deploy/env.example, or a
    malformed pool size, in the auditor's environment is none of its business."""
    monkeypatch.setenv("CARDROOM_OPERATOR_TOKEN", "change-me")
    monkeypatch.setenv("CARDROOM_POOL_MIN", "x")
    export = tmp_path / "export.jsonl"
    export.write_text("not an export\n")
    assert main(["verify", str(export)]) == 1
    assert "RESULT: FAILED" in capsys.readouterr().out


def test_bot_takes_a_seat_token_from_the_environment_not_only_from_its_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A command's arguments are readable by every user of the machine (``ps``)."""
    monkeypatch.setenv("CARDROOM_SEAT_TOKEN", "a-seat-token")
    args = parser().parse_args(["bot", "--table", "t", "--seat", "0"])
    assert args.token == "a-seat-token"
    given = parser().parse_args(["bot", "--table", "t", "--seat", "0", "--token", "other"])
    assert given.token == "other"


@pytest.mark.parametrize("level", ["trace", "debug", "info", "warning", "error", "critical"])
def test_every_documented_log_level_configures_a_process(level: str) -> None:
    """``trace`` is uvicorn's level below DEBUG, named only once uvicorn's config is
    imported: before, a process configured with it refused its own logging and exited."""
    result, _ = _serve(CARDROOM_LOG_LEVEL=level, CARDROOM_EMBEDDED="0")
    assert "Unable to configure" not in result.stderr
    assert "CARDROOM_DATABASE_URL" in result.stderr  # it got as far as its real refusal
