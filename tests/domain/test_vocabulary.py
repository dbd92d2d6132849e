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


# Each game's events in the order of its event union: the decoders and the OpenAPI document
# list them so, and the document must not change when the lists are built differently.
PINOCHLE_EVENTS = """dealer_drawn cards_dealt bid_made passed auction_won deal_thrown_in
    widow_turned_up trump_named melds_claimed cards_buried deal_conceded trump_turned_up
    dix_exchanged card_played trick_won hand_scored chips_settled target_raised game_won"""
EVENT_ORDER = {
    "forty-five": """dealer_drawn cards_dealt bid_made passed held auction_won deal_thrown_in
        trump_named cards_exchanged card_played trick_won hand_scored game_won""",
    "pitch": """dealer_drawn cards_dealt bid_made passed held auction_won deal_thrown_in
        trump_named card_played trick_won hand_scored game_won pitch_chips_settled""",
    "reserve-bridge": """dealer_drawn cards_dealt stage_dealt bid_made slam_bid_made bid_stood
        passed auction_won deal_thrown_in denomination_named contra_called recontra_called
        denomination_changed contract_settled honours_announced reserve_laid card_played
        trick_won hand_scored partie_won rubber_won game_won""",
    "pinochle": PINOCHLE_EVENTS,
    "pinochle-three": PINOCHLE_EVENTS,
    "pinochle-widow": PINOCHLE_EVENTS,
    "pinochle-four": PINOCHLE_EVENTS,
}


def test_every_game_lists_its_events_in_their_union_order() -> None:
    assert EVENT_ORDER.keys() == GAMES.keys()
    for game_id, game in GAMES.items():
        assert [tag_of(cls) for cls in game.event_types] == EVENT_ORDER[game_id].split(), game_id


def test_every_legal_action_tag_is_a_command_tag() -> None:
    commands = {tag_of(c) for c in PlayerCommand.__args__}
    actions = {tag_of(a) for a in LegalAction.__args__}
    assert actions <= commands


def test_every_game_has_a_view_tagged_with_its_id() -> None:
    for game_id, game in GAMES.items():
        info = msgspec.inspect.type_info(game.view_type)
        assert isinstance(info, msgspec.inspect.StructType)
        assert info.tag_field == "game" and info.tag == game_id
