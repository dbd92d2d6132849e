// @ts-check
// Replay (operator): the table at any version, every hand shown, with the event that made
// it, in words. A scrubber over the versions; ← and → step back and forward.

import { api, operatorToken } from "./api.js";
import { drawAuction, drawDetails, drawTable, namer } from "./board.js";
import { announce, h, replace } from "./dom.js";
import { explainEvent } from "./explain.js";

/** @param {HTMLElement} main @param {string} table */
export async function replayPage(main, table) {
  const token = operatorToken();
  const heading = h("h1", null, "Replay of table ", h("span", { class: "id" }, table.slice(0, 8)));
  if (!token) {
    replace(main, heading, h("p", null, "The replay shows every hand: sign in as the operator (above) to see it."));
    return;
  }
  const first = await api(`/tables/${table}/replay?version=1`, { token });
  let latest = first.latest;
  let version = latest;
  let seq = 0;
  const scrubber = h("input", { id: "scrubber", type: "range", min: 1, max: latest, value: latest, step: 1 });
  const back = h("button", { type: "button", id: "back", "aria-label": "One event back" }, "← Back");
  const forward = h("button", { type: "button", id: "forward", "aria-label": "One event forward" }, "Forward →");
  // Each step is said once, by announce(): the position and the words are not live
  // regions of their own (an output is one by default), or it was said three times.
  const where = h("output", { id: "where", for: "scrubber", "aria-live": "off" }, "");
  const said = h("p", { id: "said", class: "said" }, "");
  const message = h("p", { class: "message", role: "alert" });
  const board = h("div", { class: "board" });
  const side = h("div", { class: "side" });
  replace(
    main,
    heading,
    h("p", { class: "sub" }, h("a", { href: `/console/tables/${table}` }, "Back to the live table"), " · ← and → step through the events"),
    h("div", { class: "scrub" }, back, h("label", { for: "scrubber" }, "Version"), scrubber, forward, where),
    message,
    said,
    board,
    side,
  );

  let shown = 0; // the version on the page; `version` is the one last asked for
  /** @param {number} target */
  async function show(target) {
    version = Math.min(Math.max(1, target), latest);
    /** @type {HTMLInputElement} */ (scrubber).value = String(version);
    const mine = ++seq;
    let step;
    try {
      step = await api(`/tables/${table}/replay?version=${version}`, { token });
    } catch (error) {
      if (mine === seq) {
        // The scrubber and the next step go back to what the page shows.
        version = shown;
        /** @type {HTMLInputElement} */ (scrubber).value = String(shown);
      }
      throw error;
    }
    if (mine !== seq) return; // a later step was asked for meanwhile
    message.textContent = "";
    shown = version;
    latest = step.latest;
    scrubber.setAttribute("max", String(latest));
    where.textContent = `${version} of ${latest}`;
    const words = explainEvent(step.event.event, namer(step.table));
    said.textContent = `${version}: ${words}`;
    said.dataset.type = step.event.event.type;
    replace(board, drawTable(step.table));
    replace(side, drawAuction(step.table), drawDetails(step.table));
    document.body.dataset.version = String(version);
    document.body.dataset.rendered = String(version);
    announce(words);
  }

  /** A step asked for on the page: one that fails is said, and the page stays where it
   * was. @param {number} target */
  const go = (target) =>
    show(target).catch((error) => {
      const why = error instanceof Error ? error.message : String(error);
      message.textContent = `Version ${target} could not be read (${why}); this is still version ${shown}.`;
    });
  scrubber.addEventListener("input", () => go(Number(/** @type {HTMLInputElement} */ (scrubber).value)));
  back.addEventListener("click", () => go(version - 1));
  forward.addEventListener("click", () => go(version + 1));
  /** @param {KeyboardEvent} event */
  const keys = (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    if (target === scrubber || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
    if (event.key === "ArrowLeft") go(version - 1);
    else if (event.key === "ArrowRight") go(version + 1);
    else return;
    event.preventDefault();
  };
  document.addEventListener("keydown", keys);
  await show(version);
  return () => document.removeEventListener("keydown", keys);
}
