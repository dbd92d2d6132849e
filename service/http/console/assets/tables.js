// @ts-check
// The tables list, live (read again every two seconds while the page is shown), with
// filters kept in the address (they hold no secret).

import { api, operatorToken, Problem } from "./api.js";
import { grid, h, keepFresh, keyed, replace } from "./dom.js";

const GAMES = ["", "forty-five", "pitch", "pinochle", "pinochle-three", "pinochle-widow", "pinochle-four", "reserve-bridge"];
const STATUSES = ["", "waiting", "playing", "finished", "aborted", "expired"];

/** The query without one parameter. @param {URLSearchParams} params @param {string} key */
function without(params, key) {
  const rest = new URLSearchParams(params);
  rest.delete(key);
  return rest;
}

/** @param {HTMLElement} main */
export async function tablesPage(main) {
  const params = new URLSearchParams(location.search);
  /** @param {string} id @param {string} label @param {string[]} values */
  const select = (id, label, values) => [
    h("label", { for: id }, label),
    h("select", { id, name: id }, values.map((v) => h("option", { value: v, selected: params.get(id) === v }, v || "any"))),
  ];
  const tournament = h("input", { id: "tournament", name: "tournament", type: "text", value: params.get("tournament") || "", size: 36, placeholder: "the tournament's whole id" });
  const form = h("form", { class: "filters", method: "get", action: "/console", "aria-label": "Filters" }, select("game", "Game", GAMES), select("status", "Status", STATUSES), h("label", { for: "tournament" }, "Tournament"), tournament, h("button", { type: "submit" }, "Filter"));
  const list = h("div", { id: "tables" }, h("p", null, "Loading…"));
  // The list is read every 2 s and drawn again only when it changed: a keyboard user
  // keeps the link in focus, a phone the columns scrolled into view, and the alert of a
  // refusal is said once.
  const drawList = keyed();
  const staleness = h("p", { class: "message", role: "status" });
  replace(main, h("h1", null, "Tables"), form, staleness, list);
  // The operator (or a tournament's director) is shown the tables closed to spectators.
  const token = operatorToken();

  async function load() {
    const query = new URLSearchParams();
    for (const key of ["game", "status", "tournament", "cursor"]) if (params.get(key)) query.set(key, String(params.get(key)));
    query.set("limit", "50");
    let page;
    try {
      page = await api(`/tables?${query}`, { token });
    } catch (error) {
      // A filter the service refuses: say so under the form, which stays to be corrected.
      if (!(error instanceof Problem && error.status === 400)) throw error;
      const said = `The filter was refused: ${error.message}`;
      drawList(list, said, () => h("p", { class: "message", role: "alert" }, said));
      return;
    }
    drawList(list, { tables: page.tables, next: page.next }, () => {
      const rows = page.tables.map((/** @type {any} */ t) => [
        h("a", { href: `/console/tables/${t.id}` }, t.id.slice(0, 8)),
        t.game,
        t.status,
        (t.players || []).map((/** @type {string | null} */ p) => p || "–").join(", "),
        t.tournament ? h("a", { href: `/console/tournaments/${t.tournament}` }, t.tournament.slice(0, 8)) : "",
        String(t.version),
      ]);
      // Fifty a page: the service's cursor leads to the older ones, the filters kept.
      const older = new URLSearchParams(params);
      if (page.next) older.set("cursor", page.next);
      const pages = h(
        "p",
        { class: "pages" },
        params.get("cursor") ? h("a", { href: `/console?${without(params, "cursor")}` }, "Newest tables") : null,
        params.get("cursor") && page.next ? " · " : null,
        page.next ? h("a", { href: `/console?${older}`, id: "older" }, "Older tables") : null,
      );
      const caption = `${rows.length} tables, newest first${params.get("cursor") ? ", after the newer ones" : ""}`;
      return rows.length ? [grid(caption, ["Table", "Game", "Status", "Players", "Tournament", "Version"], rows), pages] : h("p", null, "No table matches.");
    });
  }
  return keepFresh(load, 2000, (why) => {
    const said = why ? `The list could not be read again (${why}); it shows what it last had, and is tried again.` : "";
    if (staleness.textContent !== said) staleness.textContent = said;
  });
}
