// @ts-check
// Cards as pictures: SVG drawn here (suit shapes as paths, so no font is needed for them).

const SVG = "http://www.w3.org/2000/svg";

/** @type {Record<string, string>} */
export const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
/** @type {Record<string, string>} */
export const SUIT_SIGNS = { S: "♠", H: "♥", D: "♦", C: "♣" };
/** @type {Record<string, string>} */
const RANK_NAMES = {
  A: "ace", K: "king", Q: "queen", J: "jack", T: "ten", "9": "nine", "8": "eight",
  "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three", "2": "two",
};

// Each shape fills a 10 × 10 box.
/** @type {Record<string, string>} */
const SHAPES = {
  H: "M5 9.6C5 9.6 0 6 0 3C0 1.3 1.3 0 2.8 0C3.8 0 4.6 .6 5 1.5C5.4 .6 6.2 0 7.2 0C8.7 0 10 1.3 10 3C10 6 5 9.6 5 9.6Z",
  D: "M5 0L9 5L5 10L1 5Z",
  S: "M5 0C5 0 0 3.6 0 6.2C0 7.8 1.2 8.8 2.6 8.8C3.5 8.8 4.2 8.3 4.6 7.7L4 10H6L5.4 7.7C5.8 8.3 6.5 8.8 7.4 8.8C8.8 8.8 10 7.8 10 6.2C10 3.6 5 0 5 0Z",
  C: "M5 0A2.4 2.4 0 0 0 3.2 4A2.4 2.4 0 1 0 4.5 7.6L4 10H6L5.5 7.6A2.4 2.4 0 1 0 6.8 4A2.4 2.4 0 0 0 5 0Z",
};

/** "QS" → "queen of spades". @param {string} code */
export function cardName(code) {
  const rank = RANK_NAMES[code.slice(0, -1)] || code.slice(0, -1);
  const suit = SUIT_NAMES[code.slice(-1)] || code.slice(-1);
  return `${rank} of ${suit}`;
}

/** "QS" → "Q♠", for sentences. @param {string} code */
export function cardText(code) {
  const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
  return rank + (SUIT_SIGNS[code.slice(-1)] || code.slice(-1));
}

// A hand is shown by suit, the colours alternating, and high to low within a suit (in
// Pinochle the ten ranks next below the ace); the view keeps the order dealt.
const SUIT_ORDER = "SHCD";
const RANKS = "AKQJT98765432";
const PINOCHLE_RANKS = "ATKQJ9";

/** A hand in the order a player holds it. @param {string[]} codes @param {string} game */
export function sortedHand(codes, game) {
  const ranks = game.startsWith("pinochle") ? PINOCHLE_RANKS : RANKS;
  /** @param {string} code */
  const place = (code) => SUIT_ORDER.indexOf(code.slice(-1)) * 100 + ranks.indexOf(code.slice(0, -1));
  return [...codes].sort((a, b) => place(a) - place(b));
}

/** Whether a value looks like a card code. @param {unknown} value @returns {value is string} */
export function isCard(value) {
  return typeof value === "string" && /^(10|[2-9TJQKA])[SHDC]$/.test(value);
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @returns {SVGElement}
 */
function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

/** @param {string} suit @param {number} x @param {number} y @param {number} size */
function pip(suit, x, y, size) {
  const path = svg("path", { d: SHAPES[suit] || "", class: `suit-${suit}` });
  path.setAttribute("transform", `translate(${x} ${y}) scale(${size / 10})`);
  return path;
}

/**
 * A card face up (a code) or face down (null): an SVG picture with a text alternative.
 * @param {string | null} code
 * @returns {SVGElement}
 */
export function cardPicture(code) {
  const picture = svg("svg", { viewBox: "0 0 60 84", class: "card", role: "img" });
  const title = svg("title", {});
  // The short form first: it is the text the picture shows (a button's name must hold it).
  title.textContent = code ? `${cardText(code)}, ${cardName(code)}` : "a card face down";
  picture.append(title);
  picture.setAttribute("aria-label", title.textContent);
  if (!code) {
    picture.classList.add("back");
    picture.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, class: "back-edge" }));
    picture.append(svg("rect", { x: 5, y: 5, width: 50, height: 74, rx: 3, class: "back-pattern" }));
    return picture;
  }
  const suit = code.slice(-1);
  const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
  picture.dataset.card = code;
  picture.classList.add(suit === "H" || suit === "D" ? "red" : "black");
  picture.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, class: "face" }));
  const corner = svg("text", { x: 5, y: 17, class: "rank" });
  corner.textContent = rank;
  picture.append(corner, pip(suit, 5, 21, 9));
  const low = pip(suit, 5, 21, 9);
  low.setAttribute("transform", `rotate(180 30 42) translate(5 21) scale(0.9)`);
  picture.append(low);
  picture.append(pip(suit, 18, 30, 24));
  return picture;
}

/**
 * A row of cards; face-down ones for a count.
 * @param {(string | null)[]} cards
 * @param {string} label
 * @param {string} [extra]
 */
export function cardRow(cards, label, extra = "") {
  const row = document.createElement("ul");
  row.className = `cards ${extra}`.trim();
  row.setAttribute("aria-label", label);
  for (const code of cards) {
    const item = document.createElement("li");
    item.append(cardPicture(code));
    row.append(item);
  }
  return row;
}
