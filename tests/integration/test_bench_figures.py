"""The bench's newest figures run, tiny, against the real Postgres and Redis: the stack's
floor beside every command figure (``bench all``), the players' ramp (``bench players``)
and the store-size figure (``bench store``). Shapes and sanity only: on a shared machine
no timing is asserted."""

from __future__ import annotations

from typing import Any

import pytest

from service.tools.bench import players, store_size, suite
from tests.support import services

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_every_command_figure_is_a_ratio_to_the_stack_floor() -> None:
    result = suite.run(services.admin_database_url(), services.redis_url(), 0.5, 1, levels=(1, 4))

    floor = result["stack_floor"]
    for level in ("1", "4"):
        assert floor[level]["requests"] > 0
        assert floor[level]["failures"] == 0
        assert floor[level]["latency"]["p99_ms"] > 0
        assert floor[level]["cpu_seconds_per_1000"]["server"] > 0
        figures = result["commands"][level]
        assert figures["failures"] == 0
        expected = round(figures["per_second"] / floor[level]["per_second"], 3)
        assert figures["ratio_to_stack_floor"] == expected > 0


def test_players_ramp_reports_what_it_sustained_or_why_not() -> None:
    ramp = players.Ramp(seconds=4.5, most=8, spectators=1, processes=2)
    result: dict[str, Any] = players.run(
        services.admin_database_url(), services.redis_url(), 1, ramp
    )

    steps = result["steps"]
    assert [s["players"] for s in steps] in ([8], [8, 8]), "a second try after a missed limit"
    step = steps[-1]
    assert step["tables"] == 2 and step["spectators"] == 2
    assert set(step["cores_busy"]) == {"server", "postgres", "load_generator"}
    assert step["failures"] == 0, step["failure_reason"]
    # Seated players think 1-3 s before a move: in 4.5 s each table's first to act has
    # moved (2.5 s once left both tables' first moves unmeasured, on a busy machine).
    assert step["action_latency"]["count"] > 0
    # A move is a request itself, and the long polls it answers are more.
    assert step["requests_per_action"] > 1
    assert set(step["cpu_ms_per_action"]) == {"server", "postgres", "load_generator"}
    assert step["server_cpu_ms_per_request"] > 0
    if step["failure_reason"] is None:
        assert result["sustained_players"] == 8
        assert step["wake_latency"]["count"] > 0
        assert result["stopped_by"] == "--max 8 reached"
    else:  # a latency limit missed on a busy machine: said, and nothing sustained
        assert result["sustained_players"] == 0
        assert result["stopped_by"] == step["failure_reason"]


def _measured(verdicts: dict[int, list[str | None]]) -> Any:
    """A stand-in for a step's measurement: each try at a rung takes its next verdict."""

    def measure(players: int) -> dict[str, Any]:
        verdict = verdicts[players].pop(0)
        failed = 1 if verdict and verdict.startswith("1 failed") else 0
        return {"players": players, "failure_reason": verdict, "failures": failed}

    return measure


def test_a_rung_that_misses_a_latency_limit_once_is_measured_again() -> None:
    steps: list[dict[str, Any]] = []
    measure = _measured({40: [None], 100: ["action p99 154 ms > 100 ms", None], 200: [None]})
    assert players.climb([40, 100, 200], measure, steps) == (200, None)
    assert [(s["players"], s.get("second_try", False)) for s in steps] == [
        (40, False),
        (100, False),
        (100, True),
        (200, False),
    ]


def test_the_ramp_stops_at_a_rung_missed_twice_or_at_a_failed_request() -> None:
    steps: list[dict[str, Any]] = []
    twice = _measured({40: [None], 100: ["wake p99 300 ms > 250 ms", "action p99 120 ms"]})
    assert players.climb([40, 100, 200], twice, steps) == (40, "action p99 120 ms")
    assert [s["players"] for s in steps] == [40, 100, 100]
    steps.clear()
    broken = _measured({40: ["1 failed requests, e.g. 500"]})
    assert players.climb([40, 100], broken, steps) == (0, "1 failed requests, e.g. 500")
    assert len(steps) == 1, "a failed request is not a stall: no second try"


def test_the_ramp_steps_up_to_the_most_asked_for() -> None:
    assert list(players.ladder(8)) == [8]
    assert list(players.ladder(100)) == [40, 100]
    assert list(players.ladder(1000)) == [40, 100, 200, 400, 800, 1000]
    assert list(players.ladder(3200)) == [40, 100, 200, 400, 800, 1600, 3200]


def test_store_figure_compares_a_bulk_loaded_store_with_the_empty_one() -> None:
    # Two short games (217 and 333 commands) to copy: the test's time goes to the figures.
    result = store_size.run(
        services.admin_database_url(), services.redis_url(), 1.0, 1, 20_000, templates=2
    )

    for phase in ("empty", "full"):
        commands = result[phase]["commands"]
        assert commands["commands"] > 0 and commands["failures"] == 0
        assert commands["latency"]["p99_ms"] > 0
        for where in ("at_head", "from_start"):
            read = result[phase]["global_read"][where]
            assert read["count"] > 0 and read["p50_ms"] > 0
            # Either read starts a batch or more behind the head: a whole batch is there.
            assert read["events_per_read"] == store_size.READ_BATCH
    loaded = result["loaded"]
    assert loaded["events"] >= 20_000 and loaded["template_games"] == 2
    assert loaded["events_in_store"] >= loaded["events"]
    assert loaded["total_megabytes"]["events"] > 0
    assert set(loaded["events_megabytes"]) >= {"heap_and_toast", "events_pkey"}
    # Loaded tables, exported by the server and checked by the verifier, hold.
    assert result["full"]["loaded_tables_verified"] == {
        "tables": store_size.SAMPLED,
        "ok": True,
        "failures": [],
    }
    expected = round(
        result["full"]["commands"]["per_second"] / result["empty"]["commands"]["per_second"], 3
    )
    assert result["commands_full_over_empty"] == expected
    assert result["aim_met"] == (expected >= result["aim"])
