// @ts-check
// Tournaments: the list, and one tournament's standings, rounds with each table's score
// sheet, the duplicate-deal comparison, and (operator) the export and its verification.

import { api, entryToken, follow, NetworkFailure, newKey, operatorToken, Problem, retryable } from "./api.js";
import { namesApart } from "./board.js";
import { grid, h, keepFresh, keyed, named, replace } from "./dom.js";

/** @param {HTMLElement} main */
export async function tournamentsPage(main) {
  const list = h("div", null, h("p", null, "Loading…"));
  replace(main, h("h1", null, "Tournaments"), list);
  const drawList = keyed(); // only when it changed: focus and scrolling stay
  // Fifty a page: the service's cursor, kept in the address, leads to the older ones.
  const cursor = new URLSearchParams(location.search).get("cursor");
  async function load() {
    const page = await api(`/tournaments?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    drawList(list, { tournaments: page.tournaments, next: page.next }, () => {
      const rows = page.tournaments.map((/** @type {any} */ t) => [
        h("a", { href: `/console/tournaments/${t.id}` }, t.name || t.id.slice(0, 8)),
        t.game,
        t.format,
        t.status,
        new Date(t.created_at).toLocaleString(),
      ]);
      const pages = h(
        "p",
        { class: "pages" },
        cursor ? h("a", { href: "/console/tournaments" }, "Newest tournaments") : null,
        cursor && page.next ? " · " : null,
        page.next ? h("a", { href: `/console/tournaments?cursor=${encodeURIComponent(page.next)}`, id: "older" }, "Older tournaments") : null,
      );
      return rows.length ? [grid(`Tournaments, newest first${cursor ? ", after the newer ones" : ""}`, ["Name", "Game", "Format", "Status", "Opened"], rows), pages] : h("p", null, "No tournament yet.");
    });
  }
  return keepFresh(load, 3000);
}

/** @param {HTMLElement} main @param {string} id */
export async function tournamentPage(main, id) {
  const token = operatorToken();
  const head = h("div");
  const standings = h("section", { class: "box", id: "standings", "aria-label": "Standings" });
  const rounds = h("section", { class: "box", id: "rounds", "aria-label": "Rounds" });
  const duplicate = h("section", { class: "box", id: "duplicate", "aria-label": "Duplicate deals" });
  const audit = h("section", { class: "box", id: "audit", "aria-label": "Export and verification" });
  const director = h("section", { class: "box", id: "director", "aria-label": "Director", hidden: true });
  // A player's page, opened from the entry's link: where the entry plays each round.
  const entry = entryToken(id);
  // Live: a player waiting for the round to be paired hears where to sit.
  const mine = h("section", { class: "box", id: "mine", "aria-label": "Your seat", "aria-live": "polite", hidden: !entry });
  replace(main, head, mine, director, standings, rounds, duplicate, audit);
  // The director's controls, for the operator and this tournament's director only: asked
  // of GET /me with the page's draws until it answers (the page is drawn meanwhile).
  /** @type {boolean | null} */
  let inCharge = token ? null : false;
  /** @type {((t: any, entries: any[]) => void) | null} */
  let showDirector = null;
  const drawMine = keyed(); // only when it changed: a focused link stays focused
  // Each section is drawn again only when what it shows changed: a hand scored at one
  // table redraws the score sheets, not the standings a reader is going through.
  const drawHead = keyed();
  const drawStandings = keyed();
  const drawRounds = keyed();
  const drawDuplicate = keyed();
  let asking = false;
  /** Whether the token is the operator's or this tournament's director's, asked aside
   * (the page does not wait for it) and again with a later draw if no answer came. */
  function askWhoIsIn() {
    if (inCharge !== null || asking) return;
    asking = true;
    api("/me", { token })
      .then(
        (holder) => {
          inCharge = holder.kind === "operator" || (holder.kind === "director" && holder.tournament === id);
          load();
        },
        (error) => {
          if (error instanceof Problem && !retryable(error)) inCharge = false; // refused: not in charge
        },
      )
      .finally(() => {
        asking = false;
      });
  }
  let loading = false;
  let again = false;

  async function load() {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      do {
        again = false;
        await draw();
      } while (again);
    } finally {
      loading = false;
    }
  }

  /** What the page shows, as last drawn (without the projections' global positions,
   * which move with every other table): the page is drawn again only when it changes,
   * so a reader's focus and a verification result stay put. */
  let shown = "";
  let audited = false;
  let dealsRefused = false;

  async function draw() {
    const [t, table, entries] = await Promise.all([
      api(`/tournaments/${id}`),
      api(`/tournaments/${id}/standings`),
      api(`/tournaments/${id}/entries`),
    ]);
    const rounds = [];
    for (let n = 1; n <= t.round; n += 1) {
      const r = await api(`/tournaments/${id}/rounds/${n}`);
      const sheets = await Promise.all(r.tables.map((/** @type {any} */ p) => sheetOf(p.table)));
      rounds.push({ r, sheets });
    }
    const loose = t.round ? [] : await Promise.all(t.tables.map(sheetOf));
    // The comparison is the operator's, or this tournament's director's: any other token
    // is told so rather than shown an empty report.
    // Any other failure (an unknown token, the service unavailable) is said as it is.
    // A token refused the comparison stays refused: not asked again every few seconds.
    const deals = !token ? null : dealsRefused ? "refused" : await api(`/tournaments/${id}/deals`, { token }).catch((error) => (error instanceof Problem && error.status === 403 ? "refused" : { failed: error instanceof Error ? error.message : String(error) }));
    dealsRefused = deals === "refused";
    const ranked = table.standings || {};
    // The entry's way in this round, re-read with the page: a round paired, or the seat
    // handed on, changes it.
    const me = entry ? await api(`/tournaments/${id}/me`, { token: entry }).catch((error) => ({ failed: error instanceof Error ? error.message : String(error) })) : null;
    askWhoIsIn();
    const data = { t, entries: table.entries, standings: ranked.players, partnerships: ranked.partnerships, names: entries.entries, rounds, loose, deals, me, inCharge };
    const signature = JSON.stringify(data);
    if (signature === shown) return;
    shown = signature;
    render(data);
    document.body.dataset.rendered = String(Date.now());
    document.body.dataset.status = t.status;
  }

  /** @param {string} table */
  async function sheetOf(table) {
    // The operator's (or director's) token: a duplicate event's tables are closed to
    // spectators until it is over.
    const path = `/tables/${table}/scoresheet`;
    // Another tournament's director token is refused here: such a table's sheet is then
    // asked for as anyone would (a finished event's tables are open to all).
    /** @param {unknown} error */
    const refused = (error) => ({ sheet: null, refused: error instanceof Problem && error.status !== 404 ? error.message : null });
    // An unknown token (401) is asked again without it too: what anyone may see is shown.
    const found = await api(path, { token }).catch((error) =>
      error instanceof Problem && [401, 403].includes(error.status) && token ? api(path).catch(refused) : refused(error),
    );
    return { table, sheet: found.sheet, refused: found.refused };
  }

  /** @param {any} data */
  function render(data) {
    const { t } = data;
    const sub = `${t.game} · ${t.format} · ${t.status} · round ${t.round}${t.rounds ? ` of ${t.rounds}` : ""}`;
    drawHead(head, [t.name, sub], () => [h("h1", null, t.name || "Tournament"), h("p", { class: "sub" }, sub)]);
    if (inCharge) (showDirector ||= drawDirector(t))(t, data.names);
    if (data.me) drawMine(mine, data.me, () => [h("h2", null, "Your seat"), yourSeat(data.me)]);

    drawStandings(standings, [t.format, data.entries, data.standings, data.partnerships], () => standingsOf(data));
    drawRounds(rounds, [data.rounds, data.loose, data.names], () => roundsOf(data));
    if (token) {
      drawDuplicate(duplicate, data.deals, () => [h("h2", null, "Duplicate deals"), comparison(data.deals)]);
      if (!audited) drawAudit();
      audited = true;
    } else {
      replace(duplicate, h("h2", null, "Duplicate deals"), h("p", null, "Sign in as the operator to compare the deals table by table."));
      replace(audit, h("h2", null, "Export"), h("p", null, "Sign in as the operator to download the export and verify it."));
    }
  }

  /** The standings section's content. @param {any} data */
  function standingsOf(data) {
    const { t } = data;
    const tie = t.format === "duplicate" ? ["Matchpoints", "%"] : ["swiss", "round-robin"].includes(t.format) ? ["Buchholz", "S-B"] : [];
    const rows = (data.entries || []).map((/** @type {any} */ e) => [
      String(e.rank),
      e.withdrawn ? `${e.name} (withdrawn)` : e.name,
      String(e.points),
      `${e.wins}–${e.losses}–${e.draws}`,
      String(e.score),
      ...(t.format === "duplicate" ? [String(e.matchpoints), String(e.percentage)] : tie.length ? [String(e.buchholz), String(e.sonneborn_berger)] : []),
    ]);
    if (rows.length) return [h("h2", null, "Standings"), grid("Entries ranked", ["Rank", "Entry", "Points", "W–L–D", "Score", ...tie], rows), csvButton()];
    if (t.format !== "open") return [h("h2", null, "Standings"), h("p", null, "No entry yet.")];
    // An open tournament ranks its players from the score sheets.
    /** @param {any[]} ranked */
    const lines = (ranked) => ranked.map((/** @type {any} */ p) => [p.name, String(p.played), String(p.won), String(p.score)]);
    const partnerships = data.partnerships || [];
    return [
      h("h2", null, "Standings"),
      grid("Players ranked", ["Player", "Played", "Won", "Score"], lines(data.standings || [])),
      partnerships.length ? grid("Partnerships ranked", ["Partnership", "Played", "Won", "Score"], lines(partnerships)) : null,
      csvButton(),
    ];
  }

  /** The rounds section's content: each round's tables and their score sheets. @param {any} data */
  function roundsOf(data) {
    /** @type {Map<string, string>} */
    const names = new Map(data.names.map((/** @type {any} */ e) => [e.entry, e.names.join(" & ")]));
    const tables = [];
    for (const { r, sheets } of data.rounds) {
      // A timed round (round_minutes): when the timekeeper calls time at its tables.
      const called = r.deadline && r.status === "playing" ? ` · time is called at ${new Date(r.deadline).toLocaleTimeString()}` : "";
      tables.push(h("h3", null, `Round ${r.round} · ${r.status}${called}`));
      r.tables.forEach((/** @type {any} */ pairing, /** @type {number} */ i) => {
        // A partnership holds two seats: each side is named once.
        const sides = [...new Set(pairing.seats)].map((/** @type {any} */ e) => names.get(e) || e);
        tables.push(scoreSheet(pairing.table, sides, sheets[i].sheet, sheets[i].refused));
      });
      if (r.byes.length) tables.push(h("p", null, `Byes: ${r.byes.map((/** @type {string} */ e) => names.get(e) || e).join(", ")}`));
    }
    // Tables of no round stand beside the rounds, a heading of the same level each.
    for (const { table, sheet, refused } of data.loose) tables.push(scoreSheet(table, sheet ? namesApart(sheet.players) : [], sheet, refused, "h3"));
    return [h("h2", null, "Tables and score sheets"), tables.length ? tables : h("p", null, "No table yet.")];
  }

  /** The duplicate deals compared table by table, or why not. @param {any} report */
  function comparison(report) {
    if (report === "refused") return h("p", null, "Comparing the deals is for the operator, or this tournament's director.");
    if (report && report.failed) return h("p", { class: "bad" }, `The deals could not be compared: ${report.failed}`);
    if (report && report.deals.length) return report.deals.map(dealCompared);
    return h("p", null, "No deal was played at more than one table.");
  }

  /** Where the entry plays the round in play, with the link to play its seat. @param {any} me */
  function yourSeat(me) {
    if (me.failed) return h("p", { class: "bad", role: "alert" }, `This entry's link does not work: ${me.failed}`);
    if (me.status === "finished") return h("p", null, "The tournament is over: see the standings.");
    if (!me.round) return h("p", null, "You are entered. Your table shows here as soon as round 1 is paired.");
    if (me.bye || !me.table) return h("p", null, `Round ${me.round}: you sit this round out${me.bye ? " (a bye)" : ""}. The next round shows here once it is paired.`);
    if (!me.token) return h("p", null, `Round ${me.round}: your seat was given up, or handed to another player.`);
    const partner = me.partner_seat !== null && me.partner_seat !== undefined ? `, your partner at seat ${me.partner_seat + 1}` : "";
    return h("p", null, `Round ${me.round}: seat ${me.seat + 1}${partner}. `, h("a", { href: `/console/tables/${me.table}#token=${encodeURIComponent(me.token)}`, id: "play-seat", class: "action" }, "Play your seat"));
  }

  /**
   * The director's box, drawn once (what is typed in it survives the page's redrawing):
   * enter a player, a partnership or the computer, pair the next round, end the
   * tournament (an open tournament's: only end it, its tables being opened by hand).
   * Each answer, or refusal, is said under it; a new entry's links are shown, to hand to
   * its players. One command at a time: the box is disabled while one is on its way, and
   * the same command sent again after a lost answer goes with the same Idempotency-Key,
   * so that it is done once (an entry twice would be paired with nobody behind it).
   * Returns what brings it up to date with `t` and its entries.
   * @param {any} t
   */
  function drawDirector(t) {
    const open = t.format === "open";
    const pairs = t.entry === "pair";
    const said = h("div", { id: "director-said", role: "status", "aria-live": "polite" });
    const first = h("input", { id: "entry-name", autocomplete: "off", size: 14, maxlength: 40 });
    const second = pairs ? h("input", { id: "entry-partner", autocomplete: "off", size: 14, maxlength: 40 }) : null;
    const enter = h("form", { id: "enter-form", "aria-label": "Enter players" }, h("label", { for: "entry-name" }, pairs ? "Players" : "Player"), first, second ? [h("label", { for: "entry-partner", class: "visually-hidden" }, "Partner"), second] : null, h("button", { type: "submit" }, "Enter"));
    const computer = h("button", { type: "button", id: "enter-computer" }, "Enter the computer");
    const pair = h("button", { type: "button", class: "action", id: "pair-round" });
    const finish = h("button", { type: "button", id: "finish-tournament" }, "End the tournament…");

    let sending = false;
    // The commands not answered for sure (the network failed, the service was unavailable
    // or stopping: each may have been done), with their keys, kept for the tab's life:
    // sent again, even after other commands or a reload, each goes with its key.
    const KEYS = `cardroom.unanswered.${id}`;
    /** @returns {Record<string, string>} */
    const unanswered = () => JSON.parse(sessionStorage.getItem(KEYS) || "{}");
    /** @param {string} command @param {string | null} key */
    function remember(command, key) {
      const all = unanswered();
      if (key) all[command] = key;
      else delete all[command];
      sessionStorage.setItem(KEYS, JSON.stringify(all));
    }
    /** Send one of the director's commands; say its answer. @param {string} path @param {unknown} body @param {(answer: any) => any} saying */
    async function send(path, body, saying) {
      if (sending) return;
      // The controls are disabled while it goes, which takes the focus from the one in
      // use: it is given back, so that a keyboard user enters the next name at once.
      const focused = /** @type {HTMLElement | null} */ (document.activeElement);
      const command = `${path} ${JSON.stringify(body)}`;
      const key = unanswered()[command] || newKey();
      remember(command, key); // before it goes: a reload meanwhile keeps it too
      sending = true;
      update();
      replace(said, h("p", null, "Sending…"));
      try {
        const answer = await api(`/tournaments/${id}/${path}`, { method: "POST", body, token, key });
        remember(command, null);
        replace(said, saying(answer));
        load();
      } catch (error) {
        const why = error instanceof NetworkFailure ? "No answer came: the network failed." : error instanceof Error ? error.message : String(error);
        if (error instanceof Problem && !retryable(error)) {
          remember(command, null); // refused: nothing was done
          replace(said, h("p", { class: "bad", role: "alert" }, `Not done: ${why}`));
        } else {
          replace(said, h("p", { class: "bad", role: "alert" }, `${why} It may have been done: send it again as it is, and the service does it once and answers as it did.`));
        }
      } finally {
        sending = false;
        update();
        if (focused && focused !== document.body && focused.isConnected && document.activeElement === document.body) focused.focus();
      }
    }
    // A field left empty is said, beside it and to a screen reader (WCAG 3.3.1), and
    // keeps the focus: the form used to do nothing at all.
    const fields = /** @type {HTMLInputElement[]} */ ([first, second].filter(Boolean));
    for (const el of fields) {
      el.addEventListener("input", () => {
        el.removeAttribute("aria-invalid");
        el.removeAttribute("aria-describedby");
      });
    }
    enter.addEventListener("submit", (event) => {
      event.preventDefault();
      const names = fields.map((el) => el.value.trim());
      const empty = fields.find((el) => !el.value.trim());
      if (empty) {
        replace(said, h("p", { class: "bad", role: "alert", id: "entry-missing" }, pairs ? "Type both players' names." : "Type the player's name."));
        empty.setAttribute("aria-invalid", "true");
        empty.setAttribute("aria-describedby", "entry-missing");
        empty.focus();
        return;
      }
      send("entries", pairs ? { names } : { name: names[0] }, (answer) => {
        for (const el of fields) el.value = "";
        const tokens = [answer.token, answer.partner_token].filter(Boolean);
        /** @param {string} token */
        const link = (token) => `${location.origin}/console/tournaments/${id}#entry=${encodeURIComponent(token)}`;
        return h(
          "div",
          { class: "entered" },
          h("p", null, `${names.join(" & ")} entered. Hand ${tokens.length > 1 ? "each player their" : "the player this"} link: it opens their seat every round. (The token alone finds it too, through GET /tournaments/${id}/me.)`),
          h("ul", null, tokens.map((token, i) => h("li", null, tokens.length > 1 ? `${names[i]}: ` : "", h("code", { class: "token" }, link(token))))),
        );
      });
    });
    // Each computer entered gets a number of its own: standings and pairings of several
    // entries all called "Computer" could not be told apart.
    let computers = 0;
    computer.addEventListener("click", () => {
      const name = `Computer ${computers + 1}`;
      send("entries", { computer: true, name }, () => h("p", null, `${name} is entered.`));
    });
    pair.addEventListener("click", () => send("rounds", {}, (answer) => h("p", null, `Round ${answer.round} is paired: ${answer.tables.length} table${answer.tables.length === 1 ? "" : "s"}${answer.byes.length ? `, ${answer.byes.length} bye${answer.byes.length === 1 ? "" : "s"}` : ""}.`)));
    finish.addEventListener("click", () => {
      if (confirm("End the tournament now? No round follows, and the standings are final.")) send("finish", {}, () => h("p", null, "The tournament is over."));
    });
    replace(director, h("h2", null, "Director"), open ? null : enter, h("div", { class: "actions" }, open ? null : [computer, pair], finish), said);
    let status = t.status;
    function update() {
      const off = sending || status === "finished";
      for (const el of [first, second, computer, pair, finish, enter.querySelector("button")]) if (el) /** @type {HTMLButtonElement} */ (el).disabled = off;
    }
    return (/** @type {any} */ now, /** @type {any[]} */ entries) => {
      status = now.status;
      computers = entries.filter((e) => e.computer).length;
      director.hidden = now.status === "finished" && !said.textContent;
      pair.textContent = `Pair round ${now.round + 1}`;
      // The last round is in play: there is no next one to pair.
      pair.hidden = Boolean(now.rounds) && now.round >= now.rounds;
      update();
    };
  }

  /**
   * Fetch `path` and save it as `filename`; a refusal or failure is said in `result`.
   * @param {string} path
   * @param {Record<string, string>} headers
   * @param {string} filename
   * @param {string} what
   * @param {HTMLElement} result
   */
  async function save(path, headers, filename, what, result) {
    replace(result);
    /** @type {Record<string, string>} */
    const asked = token ? { ...headers, Authorization: `Bearer ${token}` } : headers;
    const response = await fetch(path, { headers: asked }).catch(() => null);
    if (!response || !response.ok) {
      // A refusal (another tournament's director) or a failure: said, never saved.
      const problem = response ? await response.json().catch(() => null) : null;
      const why = (problem && (problem.detail || problem.title)) || (response ? `HTTP ${response.status}` : "the network failed");
      replace(result, h("p", { class: "bad", role: "alert" }, `${what} could not be downloaded: ${why}`));
      return;
    }
    const link = h("a", { href: URL.createObjectURL(await response.blob()), download: filename });
    link.click();
    // Revoked once the browser has surely started saving it.
    setTimeout(() => URL.revokeObjectURL(link.getAttribute("href") || ""), 10000);
  }

  /** The standings as CSV, for a spreadsheet: the same table as the page's. */
  function csvButton() {
    const said = h("div", { "aria-live": "polite" });
    const button = h("button", { type: "button", class: "action", id: "standings-csv" }, "Download the standings (CSV)");
    button.addEventListener("click", () => save(`/tournaments/${id}/standings`, { Accept: "text/csv" }, `standings-${id}.csv`, "The standings", said));
    return h("div", { class: "actions" }, button, said);
  }

  function drawAudit() {
    const result = h("div", { id: "verification", "aria-live": "polite" });
    const download = h("button", { type: "button", class: "action", id: "download" }, "Download the export");
    download.addEventListener("click", () => save(`/tournaments/${id}/export`, {}, `tournament-${id}.ndjson`, "The export", result));
    const verify = h("button", { type: "button", class: "action", id: "verify" }, "Verify the export");
    verify.addEventListener("click", async () => {
      replace(result, h("p", null, "Verifying…"));
      try {
        const report = await api(`/tournaments/${id}/verification`, { token, patient: true });
        replace(result, h("p", { class: report.ok ? "ok" : "bad", id: "verdict" }, report.ok ? "Intact: the export verifies." : "FAILED"), h("pre", { class: "report", tabindex: 0, "aria-label": "The verifier's report" }, report.report));
      } catch (error) {
        replace(result, h("p", { class: "bad" }, error instanceof Error ? error.message : String(error)));
      }
    });
    replace(audit, h("h2", null, "Export and verification"), h("p", null, `The tournament's stream and every table's, as \`cardroom verify\` reads them. A tournament still running verifies as far as it has gone.`), h("div", { class: "actions" }, download, verify), result);
  }

  await load();
  const stream = follow(`/tournaments/${id}/stream`, {
    onEvent: () => load(),
    after: 0,
    // The service ends the stream after tournament_finished: nothing more will come.
    over: async () => (await api(`/tournaments/${id}`)).status === "finished",
  });
  const timer = setInterval(() => {
    if (document.visibilityState === "visible") load().catch(() => {});
  }, 5000);
  return () => {
    stream.stop();
    clearInterval(timer);
  };
}

/**
 * A table's score sheet: a row per scored deal; without one, why (`refused`: what the
 * service said when it would not show it), headed by a link to the table at `level`, one
 * below the heading it stands under.
 * @param {string} table @param {string[]} players @param {any} sheet @param {string | null} [refused] @param {string} [level]
 */
export function scoreSheet(table, players, sheet, refused = null, level = "h4") {
  const link = h(level, null, h("a", { href: `/console/tables/${table}` }, players.join(" v ") || table.slice(0, 8)));
  if (!sheet && refused) return h("div", { class: "sheet" }, link, h("p", null, `Not shown: ${refused}.`));
  if (!sheet || !sheet.rows || !sheet.rows.length) return h("div", { class: "sheet" }, link, h("p", null, "No deal scored yet."));
  const seated = namesApart(sheet.players);
  const units = sheet.units.map((/** @type {number[]} */ seats) => seats.map((s) => seated[s]).join(" & "));
  const rows = sheet.rows.map((/** @type {any} */ row) => [
    String(row.deal),
    row.contract ? [named(seated[row.contract.seat]), ` ${row.contract.amount} ${row.contract.made ? "made" : "set"}`] : "",
    ...row.changes.map((/** @type {number} */ c, /** @type {number} */ i) => `${c > 0 ? "+" : ""}${c} → ${row.totals[i]}`),
  ]);
  const ended = sheet.result ? h("p", null, `Ended: ${sheet.result.reason}`) : null;
  return h("div", { class: "sheet" }, link, grid(`Score sheet of ${players.join(" v ")}`, ["Deal", "Contract", ...units], rows), ended);
}

/** One deck as it went at each table. @param {any} deal */
function dealCompared(deal) {
  const rows = deal.tables.map((/** @type {any} */ at) => [
    h("a", { href: `/console/tables/${at.table}` }, (at.players || []).map((/** @type {string | null} */ p) => p || "–").join(", ")),
    at.contract ? [named(String(at.declarer || at.contract.seat)), ` ${at.contract.amount} ${at.contract.made ? "made" : "set"}`] : String(at.outcome || "").replaceAll("_", " "),
    at.changes.join(" / "),
    at.scores.join(" / "),
  ]);
  return h("div", { class: "compare" }, grid(`Deal ${deal.deal} (deck ${deal.commitment.slice(0, 10)}…), table by table`, ["Table", "Contract", "Points", "Totals"], rows));
}
