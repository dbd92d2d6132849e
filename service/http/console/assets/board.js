// @ts-check
// A table view drawn as a card table: seats around the felt with their names, the dealer
// button, whose turn it is, their hands and reserves, the trick in the middle, then the
// auction, the scores and whatever else the game's view holds. It draws exactly the view
// it is given: what that audience may see, nothing more.

import { cardPicture, cardRow, cardText, isCard } from "./cards.js";
import { h, named } from "./dom.js";
import { denomination } from "./explain.js";

// The fields drawn in their own place; every other field of a view is listed as it is.
const DRAWN = new Set([
  "game", "id", "version", "status", "phase", "seats", "you", "deadline", "clock", "paused",
  "result", "dealer", "to_act", "hand", "hands", "legal_actions", "deal", "scores", "options",
  "hand_sizes", "auction", "trick", "last_trick", "tricks_won", "reserve", "reserves",
  "reserve_sizes", "trump", "contract",
]);

/** The seats' names, each a seat's own: a name that two seats share (every computer is
 * "Computer") says which seat it is; an empty seat is "Seat n".
 * @param {(string | null | undefined)[]} names @returns {string[]} */
export function namesApart(names) {
  return names.map((name, seat) => {
    if (!name) return `Seat ${seat + 1}`;
    return names.filter((other) => other === name).length > 1 ? `${name} (seat ${seat + 1})` : name;
  });
}

/** @param {any} view @returns {(seat: number) => string} */
export function namer(view) {
  const names = namesApart((view.seats || []).map((/** @type {any} */ info) => info && info.name));
  return (seat) => names[seat] || `Seat ${seat + 1}`;
}

/** Seconds as m:ss. @param {number} seconds */
function minutes(seconds) {
  const left = Math.max(0, Math.round(seconds));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

/** Seconds left until an RFC 3339 instant, as m:ss. @param {string} deadline */
export function countdown(deadline) {
  return minutes((Date.parse(deadline) - Date.now()) / 1000);
}

/** @param {any} value */
function isCardList(value) {
  return Array.isArray(value) && value.length > 0 && value.every(isCard);
}

/** JSON with card codes written as cards. @param {string} key @param {any} v */
function cards(key, v) {
  return isCard(v) ? cardText(v) : v;
}

// Fields that hold a seat number, or a list of them: shown as the seats' players.
const SEAT_FIELDS = new Set(["high_bidder", "pitcher", "declarer", "non_dealer", "bidder", "maker", "leader", "seat", "soloist", "dix_exchanged_by"]);
const SEAT_LISTS = new Set(["active", "conceded", "winners", "losers"]);

/** Records (melds, honours): objects, none of them a list. @param {any} value */
function isRecords(value) {
  return Array.isArray(value) && value.every((v) => v && typeof v === "object" && !Array.isArray(v));
}

/** The partnerships, by their players' names. @param {any} view */
function sideNames(view) {
  const who = namer(view);
  return Array.isArray(view.sides) ? view.sides.map((/** @type {number[]} */ side) => side.map(who).join(" & ")) : [];
}

/** A field's value in words or pictures. @param {any} value @param {any} view @param {string} label @param {string} key */
function show(value, view, label, key) {
  const who = namer(view);
  if (typeof value === "number" && SEAT_FIELDS.has(key)) return who(value);
  if (SEAT_LISTS.has(key) && Array.isArray(value) && value.every((v) => typeof v === "number")) return value.map(who).join(", ");
  if (key === "sides" && Array.isArray(value)) return sideNames(view).join(" · ");
  if (isCardList(value)) return cardRow(value, label, "small");
  if (Array.isArray(value) && value.length === view.seats.length && value.every((v) => v === null || typeof v !== "object" || isCardList(v) || isRecords(v))) {
    // One value a seat: a number, cards, or records such as a seat's claimed melds.
    /** @param {any} v @param {number} seat */
    const each = (v, seat) => {
      if (isCardList(v)) return cardRow(v, `${label}, ${who(seat)}`, "small");
      if (isRecords(v)) return v.length ? v.map((/** @type {any} */ r) => recordWords(r, view, key)).join(" · ") : "none";
      return v === null ? "–" : String(v);
    };
    return h("ul", { class: "per-seat" }, value.map((v, seat) => h("li", null, h("span", { class: "who" }, `${who(seat)}: `), each(v, seat))));
  }
  if (Array.isArray(value) && value.length && value.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
    // Records (declared honours, melds): one line each, in words.
    return h("ul", { class: "per-seat" }, value.map((v) => h("li", null, inWords(v, view, key))));
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    // A record (a score sheet, a contract): its fields in words.
    return h("span", null, inWords(value, view, key));
  }
  const text = JSON.stringify(value, cards);
  return h("code", null, text.length > 400 ? `${text.slice(0, 400)}…` : text);
}

/** A record in words; a meld (or any record of a kind and its cards) as "royal marriage
 * K♣ Q♣". @param {any} record @param {any} view @param {string} key @returns {string} */
function recordWords(record, view, key) {
  if (typeof record.kind === "string" && isCardList(record.cards)) return `${record.kind.replaceAll("_", " ")} ${record.cards.map(cardText).join(" ")}`;
  return inWords(record, view, key);
}

/** A value in words: seats by name, cards by rank and suit, records as "field value; …".
 * @param {any} value @param {any} view @param {string} key @returns {string} */
function inWords(value, view, key) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "number" && SEAT_FIELDS.has(key)) return namer(view)(value);
  if (isCard(value)) return cardText(value);
  if (Array.isArray(value)) return `[${value.map((v) => inWords(v, view, key)).join(", ")}]`;
  if (typeof value === "object") {
    return Object.entries(value)
      .filter(([, v]) => v !== null && !(Array.isArray(v) && v.length === 0))
      .map(([k, v]) => `${k.replaceAll("_", " ")} ${inWords(v, view, k)}`)
      .join("; ");
  }
  return String(value);
}

/** @param {string} key */
function title(key) {
  const words = key.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * @param {any} view
 * @param {number} seat
 * @param {number} at  its place round the table, 0 at the bottom
 */
function seatBox(view, seat, at) {
  const who = namer(view);
  const info = view.seats[seat] || {};
  const acting = (view.to_act || []).includes(seat) && !view.paused;
  const tags = [];
  if (view.dealer === seat) tags.push(h("span", { class: "tag dealer", title: "dealer" }, "Dealer"));
  if (acting) tags.push(h("span", { class: "tag acting" }, view.status === "playing" ? "To act" : ""));
  if (info.computer) tags.push(h("span", { class: "tag" }, "Computer"));
  if (info.absent) tags.push(h("span", { class: "tag" }, "Absent"));
  if (info.vacant) tags.push(h("span", { class: "tag" }, "Vacant"));
  if (view.you === seat) tags.push(h("span", { class: "tag you" }, "You"));
  if (acting && view.deadline) tags.push(h("span", { class: "tag clock", "data-deadline": view.deadline }, countdown(view.deadline)));
  // Paused: the time the stopped turn gets back on resume, standing still.
  const frozen = view.paused && view.clock && view.clock.paused_left ? view.clock.paused_left[seat] : null;
  if (frozen != null) tags.push(h("span", { class: "tag clock", title: "time left, stopped by the pause" }, `${minutes(frozen)} paused`));

  const parts = [];
  const hand = view.hands ? view.hands[seat] : null;
  const size = view.hand_sizes ? view.hand_sizes[seat] : hand ? hand.length : 0;
  if (hand) parts.push(cardRow(hand, `${who(seat)}'s hand`, "small"));
  else if (view.you === seat && view.hand?.length) parts.push(h("p", { class: "note" }, `${view.hand.length} cards, below`));
  else if (size) parts.push(cardRow(Array(Math.min(size, 16)).fill(null), `${who(seat)}'s hand: ${size} cards face down`, "small backs"));
  const reserve = view.reserves ? view.reserves[seat] : view.you === seat ? view.reserve : null;
  const reserveSize = view.reserve_sizes ? view.reserve_sizes[seat] : 0;
  if (reserve && reserve.length) parts.push(h("div", { class: "reserve" }, "Reserve ", cardRow(reserve, `${who(seat)}'s reserve`, "small")));
  else if (reserveSize) parts.push(h("div", { class: "reserve" }, "Reserve ", cardRow(Array(reserveSize).fill(null), `${who(seat)}'s reserve: ${reserveSize} cards face down`, "small backs")));
  const facts = [];
  if (view.tricks_won && view.tricks_won.length === view.seats.length) facts.push(`tricks ${view.tricks_won[seat]}`);
  if (view.scores && view.scores.length === view.seats.length) facts.push(`score ${view.scores[seat]}`);

  const box = h(
    "section",
    { class: `seat${acting ? " acting" : ""}${view.you === seat ? " mine" : ""}`, "aria-label": `Seat ${seat + 1}: ${who(seat)}`, "data-seat": seat },
    h("h3", null, who(seat), " ", tags),
    facts.length ? h("p", { class: "facts" }, facts.join(" · ")) : null,
    parts,
  );
  const n = view.seats.length;
  const angle = (2 * Math.PI * at) / n;
  const x = 50 - 40 * Math.sin(angle);
  // A seat far off the middle near the top or the bottom (at five seats) comes in from
  // the rim, where the oval has curved in under its outer corner; nearer the middle (at
  // seven) it stays, clear of the seats at the sides.
  const round = 50 + 36 * Math.cos(angle);
  const y = Math.abs(x - 50) > 20 ? Math.min(Math.max(round, 25), 75) : round;
  box.style.top = `${y}%`;
  // A seat at either side of the oval is held to that edge of the felt, growing inwards:
  // centred on its place it would stick out of the table by half its width. One nearer
  // the top or the bottom stays centred on its place, where the oval curves in.
  const side = y > 25 && y < 75;
  if (side && x < 35) {
    box.classList.add("west");
    box.style.left = `${sideInset(y)}%`;
  } else if (side && x > 65) {
    box.classList.add("east");
    box.style.right = `${sideInset(y)}%`;
  } else box.style.left = `${x}%`;
  return box;
}

// The felt's corners are quarter ellipses (its border-radius, 48% / 42%), and a seat's
// box reaches about 8% of the felt's height above and below its place.
const CORNER_X = 48;
const CORNER_Y = 42;
const HALF_HEIGHT = 8;

/**
 * How far in from the felt's side edge a side seat's box stands, in % of its width: 2%,
 * and as much again as the oval's curve has come in at the box's top or bottom edge
 * (without it, a seat low or high on the side, at three, five or seven seats, stuck out
 * over the rim). @param {number} y  the seat's place, in % of the felt's height
 */
function sideInset(y) {
  const fromRim = Math.min(y, 100 - y) - HALF_HEIGHT;
  const into = Math.min(1, Math.max(0, CORNER_Y - fromRim) / CORNER_Y);
  return 2 + CORNER_X * (1 - Math.sqrt(1 - into * into));
}

/** The cards of a trick, each with who played it. @param {any} trick @param {any} view @param {string} label @param {string} [extra] */
function trickCards(trick, view, label, extra = "") {
  const who = namer(view);
  return h(
    "ul",
    { class: `cards trick ${extra}`.trim(), "aria-label": label },
    (trick.cards || []).map((/** @type {any} */ played) =>
      h("li", null, cardPicture(played.card), h("span", { class: "who" }, who(played.seat))),
    ),
  );
}

/** @param {any} view */
function centre(view) {
  const who = namer(view);
  const lines = [];
  const status = view.paused ? "paused" : view.status;
  lines.push(h("p", { class: "status" }, `${title(view.game)} · ${status}${view.phase && view.phase !== view.status ? ` · ${view.phase.replaceAll("_", " ")}` : ""}${view.deal ? ` · hand ${view.deal}` : ""}`));
  if (view.trump) lines.push(h("p", null, `Trumps: ${denomination(view.trump)}`));
  if (view.contract) {
    const c = view.contract;
    lines.push(h("p", null, "Contract: ", named(who(c.declarer)), ` ${c.amount}${c.denomination ? ` ${denomination(c.denomination)}` : ""}${c.doubling && c.doubling !== "none" ? ` ${c.doubling}` : ""}`));
  }
  if (view.trick && view.trick.cards && view.trick.cards.length) lines.push(trickCards(view.trick, view, "The trick in play"));
  if (view.last_trick && view.last_trick.cards) {
    const won = typeof view.last_trick.winner === "number" ? ` (${who(view.last_trick.winner)})` : "";
    lines.push(h("div", { class: "last" }, h("span", null, `Last trick${won}`), trickCards(view.last_trick, view, "The last trick", "small")));
  }
  if ((view.to_act || []).length && view.status === "playing" && !view.paused) lines.push(h("p", { class: "turn" }, `${view.to_act.map(who).join(", ")} to act`));
  if (view.result) {
    const winners = view.result.winners || [];
    // No winner: a draw when time was up level, nobody at all when every side forfeited.
    const nobody = { aborted: "", forfeit: " — nobody won" }[String(view.result.reason)];
    const won = winners.length ? ` — ${winners.map(who).join(", ")} won` : nobody ?? " — a draw";
    lines.push(h("p", { class: "result" }, `Result: ${view.result.reason}${won}`));
  }
  return h("div", { class: "centre" }, lines);
}

/**
 * The whole table.
 * @param {any} view
 * @returns {HTMLElement}
 */
export function drawTable(view) {
  const n = view.seats.length;
  const bottom = typeof view.you === "number" ? view.you : 0;
  const seats = [];
  for (let at = 0; at < n; at += 1) seats.push(seatBox(view, (bottom + at) % n, at));
  // Its heading is for those who find their way by headings: the seats' names under it.
  return h("div", { class: `felt seats-${n}`, role: "group", "aria-label": "The card table" }, h("h2", { class: "visually-hidden" }, "The card table"), seats, centre(view));
}

/** The auction so far. @param {any} view */
export function drawAuction(view) {
  if (!Array.isArray(view.auction) || !view.auction.length) return null;
  const who = namer(view);
  return h(
    "section",
    { class: "box", "aria-label": "Auction" },
    h("h2", null, "Auction"),
    h(
      "ol",
      { class: "auction" },
      view.auction.map((/** @type {any} */ call) => {
        const rest = Object.entries(call).filter(([k, v]) => !["seat", "call", "amount"].includes(k) && v !== null && v !== false);
        return h("li", null, named(who(call.seat)), `: ${String(call.call || call.type || "").replaceAll("_", " ")}${call.amount !== null && call.amount !== undefined ? ` ${call.amount}` : ""}${rest.map(([k, v]) => ` ${k} ${typeof v === "object" ? JSON.stringify(v) : v}`).join("")}`);
      }),
    ),
  );
}

/** Scores and every field the board does not draw itself. @param {any} view */
export function drawDetails(view) {
  const who = namer(view);
  const rows = [];
  if (Array.isArray(view.scores)) {
    const sides = sideNames(view);
    const names = view.scores.map((/** @type {number} */ _, /** @type {number} */ i) => (view.scores.length === n(view) ? who(i) : sides[i] || `Side ${i + 1}`));
    rows.push(h("dt", null, "Scores"), h("dd", null, view.scores.map((/** @type {number} */ s, /** @type {number} */ i) => [i ? " · " : "", named(names[i]), ` ${s}`])));
  }
  if (view.clock) rows.push(h("dt", null, "Clock"), h("dd", null, `${view.clock.action_seconds} s a turn; bank left `, view.clock.bank.map((/** @type {number} */ b, /** @type {number} */ i) => [i ? ", " : "", named(who(i)), ` ${Math.round(b)} s`])));
  for (const [key, value] of Object.entries(view)) {
    if (DRAWN.has(key) || value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    rows.push(h("dt", null, title(key)), h("dd", null, show(value, view, title(key), key)));
  }
  if (view.options && Object.keys(view.options).length) rows.push(h("dt", null, "Options"), h("dd", null, Object.entries(view.options).map(([k, v]) => `${k.replaceAll("_", " ")}: ${optionText(v)}`).join(" · ")));
  return h("section", { class: "box", "aria-label": "Scores and details" }, h("h2", null, "Scores and details"), h("dl", { class: "details" }, rows));
}

/**
 * An option's value as a player reads it: `null` leaves it to the rules, a chips
 * schedule reads "from 250, 1 chip; from 400, 4 chips".
 * @param {unknown} value
 * @returns {string}
 */
function optionText(value) {
  if (value === null) return "as in the rules";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.map(optionText).join("; ");
  if (typeof value === "object") {
    const step = /** @type {{bid?: number, chips?: number}} */ (value);
    if (step.bid !== undefined && step.chips !== undefined) return `from ${step.bid}, ${step.chips} chip${step.chips === 1 ? "" : "s"}`;
    return Object.entries(value).map(([k, v]) => `${k.replaceAll("_", " ")} ${optionText(v)}`).join(", ");
  }
  return String(value).replaceAll("_", " ");
}

/** @param {any} view */
function n(view) {
  return view.seats.length;
}
