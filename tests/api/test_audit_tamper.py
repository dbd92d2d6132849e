"""Tampered exports fail ``verify`` at the event that was tampered with.

Each tampering is tried twice: on the file as it is (the hash chain breaks at the event),
and re-chained — versions renumbered and every hash recomputed, as a forger who knows the
format would — where only the rules can tell. The export is a complete Forty-Five game
played through the service, so it holds real seeds, commitments, batches and hashes.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import msgspec
import pytest
from httpx import AsyncClient
from litestar import Litestar

from domain import RULES_ENGINE_VERSION
from service.audit.render import render
from service.audit.verify import Failure, verify_lines
from tests.support.audit import (
    complete_game,
    document_of,
    export,
    lines_of,
    new_game,
    other_seed,
    rechain,
)

Lines = list[dict[str, Any]]
ALNUM = b"0123456789abcdefghijklmnopqrstuvwxyzCDHS"


@pytest.fixture(scope="module")
async def finished(client: AsyncClient, app: Litestar) -> bytes:
    table_id = await complete_game(client, app.state.service, "forty-five", seed=11)
    return await export(client, table_id)


def failure(document: bytes | Lines) -> Failure:
    """The verifier's failure; its report names the same version."""
    raw = document if isinstance(document, bytes) else document_of(document)
    report = verify_lines(raw.splitlines())
    assert report.failure is not None, "the tampered export verified"
    where = "the header" if report.failure.version is None else f"version {report.failure.version}"
    assert f"RESULT: FAILED at {where}" in render(report)
    return report.failure


def of_type(lines: Lines, *types: str) -> list[int]:
    return [v for v, line in enumerate(lines) if v and line["data"]["type"] in types]


def test_the_untouched_export_verifies_also_re_encoded(finished: bytes) -> None:
    assert verify_lines(finished.splitlines()).ok
    # Key order and spacing are not part of what the hashes cover.
    assert verify_lines(document_of(lines_of(finished)).splitlines()).ok
    assert verify_lines(document_of(rechain(lines_of(finished))).splitlines()).ok


def test_one_changed_byte_of_a_payload_fails_at_its_event(finished: bytes) -> None:
    raw = finished.splitlines()
    rng = random.Random(5)
    rechained = 0
    for version in rng.sample(range(1, len(raw)), 60):
        line = raw[version]
        start, end = line.index(b',"data":') + 8, line.index(b',"hash":')
        spots = [i for i in range(start, end) if chr(line[i]).isalnum()]
        spot = rng.choice(spots)
        new = rng.choice([c for c in ALNUM if c != line[spot]])
        tampered = line[:spot] + bytes([new]) + line[spot + 1 :]
        lines = [*raw[:version], tampered, *raw[version + 1 :]]
        assert failure(b"\n".join(lines)).version == version, (version, tampered)
        try:
            forged = lines_of(b"\n".join(lines))
        except msgspec.DecodeError:
            continue  # no longer JSON: nothing to re-chain
        if version == 1:
            continue  # table_created against the unhashed header: see the header test
        assert failure(rechain(forged)).version == version, (version, tampered)
        rechained += 1
    assert rechained >= 30


def test_a_dropped_event_fails_where_it_was(finished: bytes) -> None:
    lines = lines_of(finished)
    last = len(lines) - 1
    kinds = ("seed_revealed", "trick_won", "hand_scored", "cards_dealt", "game_won")
    chosen = {1, 2, last, *random.Random(7).sample(range(1, last + 1), 40)}
    chosen |= {of_type(lines, kind)[0] for kind in kinds}
    for version in sorted(chosen):
        dropped = copy.deepcopy(lines)
        del dropped[version]
        assert failure(dropped).version == version, version
        if lines[version]["data"]["type"] == "seat_taken":
            continue  # who sat down when is checked only once the game needs every seat
        assert failure(rechain(dropped)).version == version, version


def test_swapped_events_fail_at_the_first_of_them(finished: bytes) -> None:
    lines = lines_of(finished)
    last = len(lines) - 1
    rng = random.Random(9)
    pairs = {(v, v + 1) for v in rng.sample(range(1, last), 40)}
    pairs |= {tuple(sorted(rng.sample(range(1, last + 1), 2))) for _ in range(20)}
    for first, second in sorted(pairs):
        swapped = copy.deepcopy(lines)
        swapped[first], swapped[second] = swapped[second], swapped[first]
        assert failure(swapped).version == first, (first, second)
        # The same swap with each line keeping its place's version number.
        renumbered = copy.deepcopy(swapped)
        renumbered[first]["version"], renumbered[second]["version"] = first, second
        assert failure(renumbered).version == first, (first, second)
        if second != first + 1 or {lines[first]["data"]["type"], lines[second]["data"]["type"]} == {
            "seat_taken"
        }:
            # Seats may be taken in any order: re-chained, such a swap is a true history. A
            # far swap may bring an identical or equally legal event to the first place,
            # so the rules can object only later; the anchored head catches it at once.
            continue
        assert failure(rechain(swapped)).version == first, (first, second)


def test_a_replaced_seed_fails_at_its_reveal(finished: bytes) -> None:
    lines = lines_of(finished)
    reveals = of_type(lines, "seed_revealed")
    assert len(reveals) >= 5
    for version in reveals:
        for seed in (other_seed(lines[version]["data"]["seed"]), "00" * 31, "not hex"):
            replaced = copy.deepcopy(lines)
            replaced[version]["data"]["seed"] = seed
            assert failure(replaced).version == version
            found = failure(rechain(replaced))
            assert found.version == version, found
    assert "matches neither the commitment" in failure(rechain(replaced_seed(lines))).message


def replaced_seed(lines: Lines) -> Lines:
    replaced = copy.deepcopy(lines)
    version = of_type(lines, "seed_revealed")[-1]
    replaced[version]["data"]["seed"] = other_seed(lines[version]["data"]["seed"])
    return replaced


def test_an_altered_commitment_is_blamed_on_its_deal(finished: bytes) -> None:
    """The revealed seed deals exactly the exported cards, so the commitment is the lie."""
    lines = lines_of(finished)
    for version in of_type(lines, "cards_dealt", "dealer_drawn"):
        altered = copy.deepcopy(lines)
        altered[version]["data"]["commitment"] = "0" * 64
        found = failure(rechain(altered))
        assert found.version == version and "though that seed deals" in found.message


def test_an_altered_command_fails_at_its_batch(finished: bytes) -> None:
    lines = lines_of(finished)
    for version in of_type(lines, "bid_made", "card_played")[::15]:
        if lines[version]["command"] is None:
            continue
        altered = copy.deepcopy(lines)
        command = altered[version]["command"]
        if command["type"] == "bid":
            command["amount"] += 5
        else:
            command["card"] = "2C" if command["card"] != "2C" else "3C"
        assert failure(rechain(altered)).version == version


def test_a_changed_header_fails_at_the_header(finished: bytes) -> None:
    lines = lines_of(finished)
    last = len(lines) - 1
    for field, value in (
        ("game", "pitch"),
        ("options", {"x": 1}),
        ("rules_version", "0.9.0"),
        ("seats", 5),
        ("players", [{"seat": s, "name": "Mallory"} for s in range(4)]),
        # The right names, at the wrong seats: only the names in seat order were checked.
        ("players", [{**p, "seat": 0} for p in lines[0]["players"]]),
        ("players", [{**p, "seat": p["seat"] + 10} for p in lines[0]["players"]]),
    ):
        changed = copy.deepcopy(lines)
        changed[0][field] = value
        assert failure(changed).version is None, field
        assert failure(changed).line in (None, 1), field  # the header's line, if any
    changed = copy.deepcopy(lines)
    changed[0]["head"] = "0" * 64
    assert failure(changed).version == last
    changed = copy.deepcopy(lines)
    changed[0]["table"] = "00000000-0000-4000-8000-000000000000"
    assert failure(changed).version == 1
    assert failure(b"").version is None
    assert failure(finished.splitlines()[0] + b"\n").version == 1


def test_a_table_opened_by_someone_who_may_not_open_it_fails_at_table_created(
    finished: bytes,
) -> None:
    """Every later batch's actor was checked against what the service records, but not
    the opening's: a table "opened" by a seat, the clock or the computer verified."""
    lines = lines_of(finished)
    assert lines[1]["actor"] == "anonymous" and lines[1]["data"]["tournament"] is None
    for actor in ("seat:7", "computer:0", "clock", "system", "retention", "director", "tournament"):
        changed = copy.deepcopy(lines)
        changed[1]["actor"] = actor
        found = failure(rechain(changed))
        assert found.version == 1, actor
        assert actor in found.message, found.message


async def test_only_the_operator_opens_a_table_with_its_decks_or_its_dealer(
    client: AsyncClient,
) -> None:
    table_id, _, _ = await new_game(client, "pitch", first_dealer=1)
    lines = lines_of(await export(client, table_id))
    assert lines[1]["actor"] == "operator"
    assert verify_lines(document_of(rechain(lines)).splitlines()).ok
    lines[1]["actor"] = "anonymous"
    found = failure(rechain(lines))
    assert found.version == 1 and "only the operator" in found.message, found


def test_the_rules_engine_a_table_was_played_under_is_reported(finished: bytes) -> None:
    lines = lines_of(finished)
    assert lines[0]["rules_version"] == lines[1]["data"]["rules_version"] == RULES_ENGINE_VERSION
    lines[0]["rules_version"] = lines[1]["data"]["rules_version"] = "0.9.0"
    report = verify_lines(document_of(rechain(lines)).splitlines())
    assert report.ok  # the rules have not changed since: every event still follows
    assert any("played under rules engine 0.9.0" in note for note in report.notes)
    assert f"engine 0.9.0 (verifier {RULES_ENGINE_VERSION})" in render(report)


@pytest.mark.parametrize(
    ("claimed", "said"),
    [
        ("1.1.²", "is no rules engine version"),
        ("1.1-x", "is no rules engine version"),
        ("", "is no rules engine version"),
        ("9.0.0", "newer than this verifier's"),
    ],
)
def test_a_rules_engine_the_verifier_cannot_run_fails_at_table_created(
    finished: bytes, claimed: str, said: str
) -> None:
    """Not a crash, and never a quiet fall-back to an older engine's checks."""
    lines = lines_of(finished)
    lines[0]["rules_version"] = lines[1]["data"]["rules_version"] = claimed
    found = failure(rechain(lines))
    assert found.version == 1 and said in found.message


def test_an_anchored_head_catches_a_re_chained_history(finished: bytes) -> None:
    """Cut short at a batch boundary and re-chained, an export is a true earlier history
    that the rules accept; the head published when the game ended tells it apart."""
    lines = lines_of(finished)
    head = lines[0]["head"]
    assert verify_lines(finished.splitlines(), head=head).ok
    boundary = next(
        v
        for v in range(len(lines) // 2, len(lines))
        if lines[v]["command"] is not None and lines[v]["actor"].startswith("seat:")
    )
    cut = rechain(copy.deepcopy(lines[:boundary]))
    cut[0]["status"] = "playing"
    assert verify_lines(document_of(cut).splitlines()).ok
    report = verify_lines(document_of(cut).splitlines(), head=head)
    assert report.failure is not None and report.failure.version == boundary - 1
    assert "not at the published head" in report.failure.message
    assert head in report.failure.message  # in full: a head copied short shows why


def test_with_the_head_a_re_chained_forgery_is_named_at_its_first_bad_event(
    finished: bytes,
) -> None:
    """An illegal change re-chained was named at its event without the head, but at the
    last version with it: the stronger check hid what the rules found."""
    lines = lines_of(finished)
    version = of_type(lines, "card_played")[5]
    altered = copy.deepcopy(lines)
    altered[version]["command"]["card"] = altered[version]["data"]["card"] = (
        "2C" if altered[version]["data"]["card"] != "2C" else "3C"
    )
    forged = rechain(altered)
    plain = failure(forged)
    anchored = verify_lines(document_of(forged).splitlines(), head=lines[0]["head"]).failure
    # The first event the rules refuse: the altered play, or a later event that no longer
    # follows from it when the play itself was one the seat could make; never the last.
    assert anchored is not None and anchored.version == plain.version
    assert plain.version is not None and version <= plain.version < len(lines) - 1


# --- a deal still in play: its seed not revealed yet -----------------------------------------


@pytest.fixture(scope="module")
async def turned_up(client: AsyncClient, app: Litestar) -> bytes:
    """A complete game of three-handed Pinochle, whose deals end with a turned-up trump."""
    table_id = await complete_game(client, app.state.service, "pinochle-three", seed=4)
    return await export(client, table_id)


def second_deal_in_play(document: bytes) -> Lines:
    """The export cut short, and re-chained, right after its second deal's batch: a true
    earlier history in which that deal is in play, its seed not revealed yet."""
    lines = lines_of(document)
    second = of_type(lines, "cards_dealt")[1]
    end = next(v for v in range(second + 1, len(lines)) if lines[v]["command"] is not None)
    cut = rechain(copy.deepcopy(lines[:end]))
    cut[0]["status"] = "playing"
    assert [line["data"]["type"] for line in cut[second:]] == ["cards_dealt", "trump_turned_up"]
    assert cut[second]["data"]["shuffle"] not in {
        line["data"]["shuffle"] for line in cut[1:] if line["data"]["type"] == "seed_revealed"
    }
    return cut


def test_a_deal_in_play_is_dealt_again_from_its_own_cards(turned_up: bytes) -> None:
    report = verify_lines(document_of(second_deal_in_play(turned_up)).splitlines())
    assert report.ok, render(report)
    assert "1 deal in play, dealt again from its own cards" in render(report)


def test_an_event_slipped_in_after_a_deal_in_play_fails_there(turned_up: bytes) -> None:
    lines = second_deal_in_play(turned_up)
    forged = copy.deepcopy(lines[-1])
    forged["data"] = {"type": "deal_thrown_in", "deal": 2}
    found = failure(rechain([*lines, forged]))
    assert found.version == len(lines)
    assert "which the rules end before it" in found.message


def test_an_altered_turn_up_of_a_deal_in_play_fails_at_it(turned_up: bytes) -> None:
    lines = second_deal_in_play(turned_up)
    dealer = lines[-2]["data"]["dealer"]
    turned = lines[-1]["data"]
    other = next(c for c in lines[-2]["data"]["hands"][dealer] if c != turned["card"])
    turned["card"] = other
    found = failure(rechain(lines))
    assert found.version == len(lines) - 1
    assert "trump_turned_up differs from what the rules give" in found.message


def test_a_deal_in_play_must_deal_as_the_rules_do(turned_up: bytes) -> None:
    lines = second_deal_in_play(turned_up)
    version = len(lines) - 2
    hands = lines[version]["data"]["hands"]
    moved = copy.deepcopy(lines)
    moved[version]["data"]["hands"][1].append(moved[version]["data"]["hands"][0].pop())
    assert "the rules deal hands of [16, 16, 16] cards" in failure(rechain(moved)).message
    swapped = copy.deepcopy(lines)
    swapped[version]["data"]["hands"][0][0] = hands[0][1] if hands[0][1] != hands[0][0] else "9C"
    found = failure(rechain(swapped))
    assert found.version == version and "not exactly the pack" in found.message


def test_text_from_the_file_cannot_forge_the_report_on_a_terminal(finished: bytes) -> None:
    """A name is the file's text: a newline in it made a line of its own (a forged
    "RESULT: OK") and an escape sequence reached the terminal (``ESC [8m`` hides what
    follows, the real verdict included)."""
    lines = lines_of(finished)
    lines[0]["players"][0]["name"] = "X\n\nRESULT: OK \u2014 intact\x1b[8m\u202e"
    text = render(verify_lines(document_of(lines).splitlines()))
    assert [line for line in text.splitlines() if "RESULT" in line][-1] == (
        "RESULT: FAILED at the header"
    )
    assert "\x1b" not in text and "\u202e" not in text
    assert "0: X\\n\\nRESULT: OK \u2014 intact\\x1b[8m\\u202e  1:" in text
