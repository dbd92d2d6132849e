"""Every event and command tag has one shape across all games (domain/events.py)."""

from __future__ import annotations

import msgspec

from domain.commands import LegalAction, PlayerCommand
from domain.registry import GAMES
from domain.table import TABLE_EVENTS


def tag_of(cls: type) -> str:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType) and info.tag is not None, cls
    return str(info.tag)


def test_no_two_event_classes_share_a_tag() -> None:
    by_tag: dict[str, type] = {}
    for cls in [*TABLE_EVENTS, *(c for g in GAMES.values() for c in g.event_types)]:
        tag = tag_of(cls)
        assert by_tag.setdefault(tag, cls) is cls, f"{tag!r}: {by_tag[tag]} and {cls}"


def test_event_tags_are_snake_case_past_tense_facts() -> None:
    for game in GAMES.values():
        for cls in game.event_types:
            tag = tag_of(cls)
            assert tag == tag.lower() and " " not in tag and "-" not in tag, tag


def test_every_legal_action_tag_is_a_command_tag() -> None:
    commands = {tag_of(c) for c in PlayerCommand.__args__}
    actions = {tag_of(a) for a in LegalAction.__args__}
    assert actions <= commands


def test_every_game_has_a_view_tagged_with_its_id() -> None:
    for game_id, game in GAMES.items():
        info = msgspec.inspect.type_info(game.view_type)
        assert isinstance(info, msgspec.inspect.StructType)
        assert info.tag_field == "game" and info.tag == game_id
