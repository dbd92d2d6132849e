// @ts-check
// Events and commands in words: "Ann bids 20", "Bob plays Q♠".

import { cardText, isCard, SUIT_NAMES } from "./cards.js";

/** @param {any} value */
function cards(value) {
  if (!Array.isArray(value)) return "";
  return value.map((c) => (isCard(c) ? cardText(c) : "?")).join(" ");
}

/** A trump suit or contract denomination in words ("H": hearts, "NT": no trumps).
 * @param {string | null | undefined} code */
export function denomination(code) {
  if (!code) return "";
  if (code === "N" || code === "NT") return "no trumps";
  return SUIT_NAMES[code] || code.toLowerCase();
}

/**
 * @param {any} event  one event as the API gives it (`type` and its fields)
 * @param {(seat: number) => string} who
 * @returns {string}
 */
export function explainEvent(event, who) {
  const s = typeof event.seat === "number" ? who(event.seat) : "";
  const list = (/** @type {number[]} */ seats) => (seats || []).map(who).join(" and ");
  switch (event.type) {
    case "table_created":
      return `The table is opened for ${event.game} with ${event.seats} seats.`;
    case "seat_taken":
      return `${event.name} takes seat ${event.seat + 1}${event.computer ? " (computer)" : ""}.`;
    case "dealer_drawn":
      return event.dealer === null || event.dealer === undefined
        ? `Cards are drawn for the deal: ${cards(event.cards.filter(Boolean))}.`
        : `${who(event.dealer)} draws the deal.`;
    case "seed_revealed":
      return event.supplied ? "The supplied deck is revealed." : "The shuffle's seed is revealed.";
    case "cards_dealt":
      return `${who(event.dealer)} deals hand ${event.deal}.`;
    case "stage_dealt":
      return "More cards are dealt.";
    case "deal_thrown_in":
      return `Hand ${event.deal} is thrown in.`;
    case "bid_made":
      return `${s} bids ${event.amount}.`;
    case "slam_bid_made":
      return `${s} bids a slam${event.amount ? ` (${event.amount})` : ""}.`;
    case "passed":
      return `${s} passes.`;
    case "held":
      return `${s} holds at ${event.amount}.`;
    case "bid_stood":
      return `${s} stands.`;
    case "auction_won":
      return `${s} wins the auction at ${event.amount}.`;
    case "contract_settled":
      return `The contract is settled${typeof event.seat === "number" ? ` for ${s}` : ""}.`;
    case "contra_called":
      return `${s} doubles.`;
    case "recontra_called":
      return `${s} redoubles.`;
    case "denomination_named":
    case "denomination_changed":
      return `${s} names ${denomination(event.denomination)}.`;
    case "trump_named":
      return `${s} names ${denomination(event.suit)} trumps.`;
    case "trump_turned_up":
      return `${isCard(event.card) ? cardText(event.card) : "A card"} is turned up for trumps.`;
    case "widow_turned_up":
      return `The widow is turned up: ${cards(event.cards)}.`;
    case "cards_exchanged":
      return `${s} exchanges ${event.count} card${event.count === 1 ? "" : "s"}.`;
    case "cards_buried":
      return `${s} buries cards.`;
    case "dix_exchanged":
      return `${s} exchanges the dix.`;
    case "reserve_laid":
      return `${s} lays a reserve${Array.isArray(event.cards) ? `: ${cards(event.cards)}` : ""}.`;
    case "melds_claimed":
      return `${s} melds${event.points !== undefined ? ` ${event.points} points` : ""}.`;
    case "honours_announced":
      return `${s} announces honours.`;
    case "card_played":
      return `${s} plays ${isCard(event.card) ? cardText(event.card) : event.card}.`;
    case "trick_won":
      return `${s} wins trick ${event.trick}.`;
    case "hand_scored":
      return `Hand ${event.deal} is scored: ${event.scores.join(" – ")}.`;
    case "deal_conceded":
      return `${s} concedes the rest of the hand.`;
    case "target_raised":
      return "The target is raised.";
    case "game_won":
      return `${list(event.winners)} win${event.winners.length === 1 ? "s" : ""} the game.`;
    case "partie_won":
    case "rubber_won":
      return `${s || "A side"} wins the ${event.type === "rubber_won" ? "rubber" : "partie"}.`;
    case "chips_settled":
    case "pitch_chips_settled":
      return "The chips are settled.";
    case "clock_set":
      return event.deadline ? `The clock runs until ${new Date(event.deadline).toLocaleTimeString()}.` : "The clock stops.";
    case "clock_expired":
      return `${s}'s time runs out.`;
    case "seat_marked_absent":
      return `${s} is marked absent; the computer plays the seat.`;
    case "seat_returned":
      return `${s} is back.`;
    case "seat_left":
      return `${s} leaves the table.`;
    case "seat_replaced":
      return `${event.name} takes over seat ${event.seat + 1}.`;
    case "game_resigned":
      return `${s} resigns.`;
    case "game_forfeited":
      // Seats out of time at the same instant all forfeit: nobody wins.
      return Array.isArray(event.winners) && event.winners.length === 0
        ? `${list(event.losers)} forfeit the game: nobody wins.`
        : `${s} forfeits the game.`;
    case "time_called":
      return "Time is called.";
    case "game_timed":
      return "The game ends on time.";
    case "table_aborted":
      return `The table is aborted: ${event.reason}.`;
    case "table_expired":
      return "The table expires unfilled.";
    case "table_paused":
      return "The table is paused.";
    case "table_resumed":
      return "The table resumes.";
    default:
      return `${s ? `${s}: ` : ""}${String(event.type).replaceAll("_", " ")}.`;
  }
}

/** A meld claimed, in words: "aces around A♠ A♥ A♦ A♣". @param {any} meld */
export function meldText(meld) {
  return `${String(meld.kind).replaceAll("_", " ")} ${cards(meld.cards)}`;
}

/**
 * A legal action as a button's label.
 * @param {any} action
 * @returns {string}
 */
export function actionLabel(action) {
  const rest = Object.entries(action).filter(([key]) => key !== "type");
  const name = String(action.type).replaceAll("_", " ");
  const words = rest.map(([key, value]) => {
    if (isCard(value)) return cardText(value);
    if (key === "suit" || key === "denomination") return denomination(String(value));
    if (key === "melds" && Array.isArray(value)) return value.length ? value.map(meldText).join(", ") : "nothing";
    if (Array.isArray(value)) return cards(value);
    if (value && typeof value === "object") return "";
    return String(value);
  });
  const text = [name, ...words].join(" ").trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}
