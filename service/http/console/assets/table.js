// @ts-check
// A table's page: a spectator without a token, a seat with `#token=…`, the operator once
// signed in. Live over the table's event stream; a seat plays by clicking its legal
// actions; the operator has the intervention buttons.

import { api, follow, forgetSeat, NetworkFailure, operatorToken, Problem, retryable, retryDelay, seatToken } from "./api.js";
import { countdown, drawAuction, drawDetails, drawTable, namer, namesApart } from "./board.js";
import { cardName, cardPicture, cardText, isCard, sortedHand } from "./cards.js";
import { announce, h, keyed, replace } from "./dom.js";
import { actionLabel, explainEvent, meldText } from "./explain.js";
import { scoreSheet } from "./tournament.js";

// What a page that gave up its seat says after it reloads as a watcher's.
const NOTE_KEY = "cardroom.note";

/** @param {HTMLElement} main @param {string} table */
export async function tablePage(main, table) {
  const seat = seatToken(table);
  const note = sessionStorage.getItem(NOTE_KEY);
  sessionStorage.removeItem(NOTE_KEY);
  // A tournament director's token (typed in as the operator's) is refused at any other
  // table: there the page watches as a spectator does.
  let operator = operatorToken();
  let token = seat || operator;
  async function firstView() {
    try {
      return await api(`/tables/${table}`, { token });
    } catch (error) {
      if (!(error instanceof Problem && error.status === 403 && !seat && operator)) throw error;
      operator = null;
      token = null;
      return api(`/tables/${table}`);
    }
  }
  /** @type {any} */
  let first = null;
  /** @type {unknown} */
  let refused = null;
  try {
    first = await firstView();
  } catch (error) {
    refused = error;
  }
  const audience = seat ? "seat" : operator ? "operator" : "spectator";
  /** @type {any} */
  let view = null;
  let refreshing = false;
  let again = false;
  let retrying = false;
  // One pending retry at most, however many reads failed meanwhile: a rate-limited page
  // must not multiply its own requests.
  let retryTimer = 0;
  let stopped = false; // the page is starting again (watchInstead)
  const log = h("ol", { class: "log", "aria-label": "What happened", tabindex: 0 });
  const board = h("div", { class: "board" });
  const mine = h("div", { class: "mine" });
  const side = h("div", { class: "side" });
  const sheet = h("section", { class: "box", "aria-label": "Score sheet", tabindex: -1 });
  const live = h("span", { class: "live" }, "connecting");
  const message = h("p", { class: "message", role: "alert" });
  const notice = h("p", { class: "notice", role: "status" }, note);

  replace(
    main,
    h("h1", null, "Table ", h("span", { class: "id" }, table.slice(0, 8))),
    h(
      "p",
      { class: "sub" },
      `Watching as ${audience === "seat" ? "a seat" : audience === "operator" ? "the operator (every hand)" : "a spectator"} · `,
      live,
      operator ? [" · ", h("a", { href: `/console/tables/${table}/replay` }, "Replay")] : null,
    ),
    message,
    notice,
    board,
    mine,
    side,
    sheet,
    h("section", { class: "box" }, h("h2", null, "What happened"), log),
  );

  // Whether the game has two sides at this table, so that a seat may resign (asked once).
  let twoSides = false;
  let sidesAsked = false;

  /** @param {any} v */
  async function askSides(v) {
    sidesAsked = true;
    try {
      const game = await api(`/games/${v.game}`);
      const seating = game.seatings.find((/** @type {any} */ s) => s.seats === v.seats.length);
      twoSides = (seating && seating.partnerships ? seating.partnerships.length : v.seats.length) === 2;
      if (twoSides && view) drawOwn(view);
    } catch {
      // Without the catalogue the page offers leaving only.
    }
  }

  // The seat's own panel and the operator's are drawn again only when what they show
  // changes, so that cards being picked and words being typed there survive the other
  // seats' moves.
  const drawMineOnce = keyed();
  const drawOperatorOnce = keyed();
  const drawSheetOnce = keyed();
  // The operator's panel stays in the page between versions (taken out and put back,
  // a field being typed in would lose its focus); only what is beside it is redrawn.
  const sideInfo = h("div");
  const operatorPanel = h("div");
  replace(side, sideInfo, operator && !seat ? operatorPanel : null);

  let wasTurn = false;

  /** @param {any} v */
  function drawOwn(v) {
    // Whether this seat is to act, not who else is: in Reserve Bridge both seats lay
    // their reserves at once, and the other's doing so changes nothing here.
    // The panel's heading and its "I'm back" say whether the seat is away and whether the
    // table is paused: a change of either redraws it too.
    const drawn = [v.hand, v.legal_actions, v.to_act.includes(v.you), v.status, twoSides, isAbsent(v), v.paused];
    keepingFocus(mine, () => drawMineOnce(mine, drawn, () => drawMine(v)));
    // The turn coming round is said (the heading's change is only seen): a player who
    // cannot see the page learns it is time to move without reading it all again.
    const turn = isTurn(v);
    if (turn && !wasTurn) announce("Your turn.");
    wasTurn = turn;
  }

  /** Draws into `box`; a keyboard player whose control went with what was there stays
   * in the box (its first section, or the box itself), not back at the top of the page.
   * @param {HTMLElement} box @param {() => void} draw */
  function keepingFocus(box, draw) {
    const focused = box.contains(document.activeElement);
    draw();
    if (focused && !box.contains(document.activeElement)) (/** @type {HTMLElement | null} */ (box.querySelector("section")) || box).focus();
  }

  /** @param {any} next */
  function render(next) {
    // A version is never served with different content: drawing it again would only
    // replace the cards under the player's pointer.
    if (view && next.version <= view.version) return;
    view = next;
    document.body.dataset.version = String(view.version);
    document.body.dataset.status = view.status;
    replace(board, drawTable(view));
    if (seat) drawOwn(view);
    if (seat && !sidesAsked) askSides(view);
    if (operator && !seat) keepingFocus(operatorPanel, () => drawOperatorOnce(operatorPanel, [view.status, view.paused, view.seats], () => drawOperator(view)));
    replace(sideInfo, drawAuction(view), drawDetails(view));
    document.body.dataset.rendered = String(view.version);
  }

  async function refresh() {
    // A pending retry reads the table; a page giving up its seat reads it no more.
    if (retryTimer || leaving || stopped) return;
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      do {
        again = false;
        render(await api(`/tables/${table}`, { token }));
      } while (again);
      if (retrying) message.textContent = "";
      retrying = false;
    } catch (error) {
      fail(error);
      // The network or the service failed (not the request): try again shortly, or the
      // page would stay at a version the stream has already gone past.
      if (retryable(error)) {
        retrying = true;
        retryTimer = window.setTimeout(() => {
          retryTimer = 0;
          refresh();
        }, retryDelay(error));
      }
    } finally {
      refreshing = false;
    }
  }

  /** A new action: what was said of the last one goes. */
  function unsay() {
    message.textContent = "";
    notice.textContent = "";
  }

  /** @param {unknown} error */
  function fail(error) {
    if (error instanceof Problem && error.status === 401 && seat) {
      // The seat's own Leave, answered or not yet (its event may come first), or the
      // operator's handing the seat to someone else.
      watchInstead(leaving ? LEFT : "This seat's link no longer works: the seat was left, or handed to another player. You are watching the table.");
      return;
    }
    if (error instanceof Problem && error.code === "wrong-seat" && seat) {
      // A link whose token is another table's (or an entry's): kept, it would refuse
      // this table's page for as long as the tab lives.
      watchInstead("This link's token is not for a seat at this table. You are watching the table.");
      return;
    }
    message.textContent = error instanceof Problem ? refusal(error) : error instanceof Error ? error.message : String(error);
    // Above the board: on a phone scrolled down to the trick it would be said out of
    // sight, the tap seeming to do nothing.
    const box = message.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) message.scrollIntoView({ block: "nearest" });
  }

  /** A refusal in the page's words: the service's `detail` numbers seats from 0, as the
   * API does, where the page names them. @param {Problem} problem */
  function refusal(problem) {
    const who = view ? namer(view) : (/** @type {number} */ s) => `Seat ${s + 1}`;
    const context = problem.context;
    switch (problem.code) {
      case "not-your-turn":
        return `Not your turn: ${(context.to_act || []).map(who).join(" and ") || "another seat"} to act.`;
      case "clock-expired":
        return "Your time for this turn ran out.";
      case "card-not-held":
        return `You do not hold ${isCard(context.card) ? cardText(context.card) : "that card"}.`;
      default:
        return problem.message;
    }
  }

  /** The seat is not this page's any more: it forgets the token and starts again as a
   * watcher's page (the operator's, if signed in), saying why. @param {string} why */
  function watchInstead(why) {
    forgetSeat(table);
    sessionStorage.setItem(NOTE_KEY, why);
    stopped = true;
    location.reload();
  }

  /** The score sheet, read again until it has folded in version `atLeast` (a projection,
   * written a moment after the event that scored). @param {number} [atLeast] @param {number} [pause] */
  async function loadSheet(atLeast = 0, pause = 500) {
    /** @type {any} */
    let found = null;
    try {
      found = await api(`/tables/${table}/scoresheet`, { token });
      keepingFocus(sheet, () => drawSheetOnce(sheet, found.sheet, () => [h("h2", null, "Score sheet"), scoreSheet(table, namesApart(found.sheet.players), found.sheet, null, "h3")]));
    } catch (error) {
      if (!retryable(error)) {
        const why = error instanceof Problem && error.status !== 404 ? error.message : "No deal scored yet.";
        keepingFocus(sheet, () => drawSheetOnce(sheet, why, () => [h("h2", null, "Score sheet"), h("p", null, why)]));
        return;
      }
    }
    if (!found || found.sheet.version < atLeast) setTimeout(() => loadSheet(atLeast, Math.min(pause * 2, 5000)), pause);
  }

  // A command on its way: a second click (a double-click, an impatient tap) is not sent
  // as a command of its own, which the service would refuse as out of turn.
  let sending = false;
  // The seat's Leave is on its way: the page no longer reads the table as the seat.
  let leaving = false;
  const LEFT = "You left the table: the computer plays your seat until somebody takes it.";
  const GAVE_UP = "You gave your seat up before the game began: somebody else may take it.";
  const BACK = "You are back: the computer no longer plays your turns.";

  /** @param {any} command */
  async function send(command) {
    if (sending) return;
    sending = true;
    leaving = command.type === "leave";
    const before = view?.status; // the seat is given up, not left to the computer, while waiting
    mine.setAttribute("aria-busy", "true");
    unsay();
    try {
      const answer = await api(`/tables/${table}/actions`, { method: "POST", body: command, token: seat });
      if (leaving) {
        watchInstead(before === "waiting" ? GAVE_UP : LEFT);
        return;
      }
      render(answer.table);
      announce(command.type === "return" ? BACK : actionLabel(command));
    } catch (error) {
      fail(error);
      leaving = false;
      // A move whose answer the network lost is read about once the network is back (the
      // stream, live again, reads the table): a read now would fail too, and its word
      // would hide this one's, which says to send the move again.
      if (!(error instanceof NetworkFailure)) await refresh();
    } finally {
      sending = false;
      mine.removeAttribute("aria-busy");
    }
  }

  /** Whether the table waits for this seat. @param {any} v */
  function isTurn(v) {
    return v.to_act.includes(v.you) && v.status === "playing" && !v.paused;
  }

  /** The seat's own hand and its legal actions. @param {any} v */
  function drawMine(v) {
    const actions = v.legal_actions || [];
    /** @type {Map<string, any>} */
    const plays = new Map();
    /** @type {HTMLElement[]} */
    const buttons = [];
    /** @type {HTMLElement[]} */
    const picks = [];
    actions.forEach((/** @type {any} */ action, /** @type {number} */ index) => {
      const fields = Object.entries(action).filter(([k]) => k !== "type");
      const choice = fields.find(([, value]) => value && typeof value === "object" && Array.isArray(value.from));
      if (choice) picks.push(picker(action, choice[0], index));
      else if (fields.length === 1 && isCard(fields[0][1]) && (v.hand || []).includes(fields[0][1])) plays.set(String(fields[0][1]), { action, index });
      else buttons.push(h("button", { type: "button", class: "action", "data-action": index, onclick: () => send(action) }, actionLabel(action)));
    });
    const hand = h(
      "ul",
      { class: "cards hand", "aria-label": "Your hand" },
      sortedHand(v.hand || [], v.game).map((/** @type {string} */ code) => {
        const play = plays.get(code);
        // While some cards may be played, the others are marked so, not only by lacking
        // the hover of a button.
        if (!play && plays.size) return h("li", { class: "unplayable" }, cardPicture(code), h("span", { class: "visually-hidden" }, "not playable now"));
        if (!play) return h("li", null, cardPicture(code));
        return h("li", null, h("button", { type: "button", class: "card-button", "data-action": play.index, "aria-label": `${actionLabel(play.action).split(" ")[0]} ${cardText(code)}, the ${cardName(code)}`, onclick: () => send(play.action) }, cardPicture(code)));
      }),
    );
    const turn = isTurn(v);
    const heading = turn
      ? "Your turn"
      : v.paused
        ? "The table is paused"
        : isAbsent(v)
          ? "You are away: the computer plays your turns"
          : v.status === "playing"
            ? "Waiting for the others"
            : `The table is ${v.status}`;
    return h(
      "section",
      { class: `box yours${turn ? " turn" : ""}`, "aria-label": "Your seat", "data-actions": actions.length, tabindex: -1 },
      h("h2", null, heading),
      hand,
      picks,
      buttons.length ? h("div", { class: "actions", role: "group", "aria-label": "Your choices" }, buttons) : null,
      drawSeatCommands(v),
    );
  }

  /** Whether the seat was marked absent (its turns ran out): the computer plays it at
   * once, so it is never to act, until its player returns. @param {any} v */
  function isAbsent(v) {
    return v.status === "playing" && Boolean(v.seats[v.you]?.absent);
  }

  /** Returning, leaving and resigning: open to a seat at any time, so never in
   * legal_actions; leaving and resigning ask for confirmation first. @param {any} v */
  function drawSeatCommands(v) {
    // Before the game starts a seat may be given up (it is free again); once it plays,
    // left to the computer, or resigned where there are two sides.
    const waiting = v.status === "waiting";
    if (!waiting && v.status !== "playing") return null;
    /** @param {string} question @param {string} type */
    const confirmed = (question, type) => () => {
      if (window.confirm(question)) send({ type });
    };
    const leave = waiting
      ? "Give this seat up? Somebody else may take it."
      : "Leave this table for good? The computer plays your seat until somebody takes it.";
    return h(
      "div",
      { class: "actions seat-commands", role: "group", "aria-label": "Your seat" },
      isAbsent(v) ? h("button", { type: "button", class: "action", "data-seat-command": "return", onclick: () => send({ type: "return" }) }, "I'm back") : null,
      twoSides && !waiting
        ? h("button", { type: "button", class: "action", "data-seat-command": "resign", onclick: confirmed("Resign? Your side loses the game.", "resign") }, "Resign")
        : null,
      h("button", { type: "button", class: "action", "data-seat-command": "leave", onclick: confirmed(leave, "leave") }, "Leave the table"),
    );
  }

  /** A choice of cards, or of melds: click to pick them, then send. Picks are kept by
   * place in `from`: a Pinochle pack holds two of each card, and both may be picked.
   * @param {any} action @param {string} field @param {number} index */
  function picker(action, field, index) {
    const choice = action[field];
    /** @type {Set<number>} */
    const picked = new Set();
    const sendButton = h("button", { type: "button", class: "action send", "data-action": index, "data-min": choice.min }, "");
    const update = () => {
      const ok = picked.size >= choice.min && picked.size <= choice.max;
      sendButton.textContent = `${actionLabel({ type: action.type })}: ${picked.size} picked (${choice.min === choice.max ? choice.min : `${choice.min}–${choice.max}`})`;
      if (ok) sendButton.removeAttribute("disabled");
      else sendButton.setAttribute("disabled", "");
    };
    sendButton.addEventListener("click", () => send({ ...action, [field]: [...picked].sort((a, b) => a - b).map((i) => choice.from[i]) }));
    const items = choice.from.map((/** @type {any} */ item, /** @type {number} */ place) => {
      const button = isCard(item)
        ? h("button", { type: "button", class: "card-button pick", "aria-pressed": "false", "aria-label": `Pick ${cardText(item)}, the ${cardName(item)}`, "data-card": item }, cardPicture(item))
        : h("button", { type: "button", class: "action pick", "aria-pressed": "false", "data-meld": item.kind }, meldText(item));
      button.addEventListener("click", () => {
        if (picked.has(place)) picked.delete(place);
        else picked.add(place);
        button.setAttribute("aria-pressed", String(picked.has(place)));
        update();
      });
      return h("li", null, button);
    });
    update();
    const what = choice.from.every(isCard) ? "cards" : "melds";
    return h("div", { class: "picker", role: "group", "aria-label": `${actionLabel({ type: action.type })}: pick ${what}` }, h("p", null, `${actionLabel({ type: action.type })}: pick ${choice.min === choice.max ? choice.min : `${choice.min} to ${choice.max}`} ${field}`), h("ul", { class: what }, items), sendButton);
  }

  /**
   * Sends an intervention to the table only as the operator confirmed it. While the
   * question was open, a player may have left, another operator handed the seat on or
   * the game ended: the table is read again, and `changed` says what the question no
   * longer describes (then nothing is sent). Otherwise the request names the version
   * just read as its `If-Match`, so that nothing can come between the check and the
   * intervention; a move made in that moment only means checking again (412).
   * @param {string} path @param {unknown} body @param {(now: any) => string | null} changed
   * @returns {Promise<any>} the answer, or null when nothing was sent
   */
  async function intervene(path, body, changed) {
    for (let attempt = 1; ; attempt++) {
      const now = await api(`/tables/${table}`, { token: operator, tagged: true });
      const news = changed(now.body);
      if (news) {
        render(now.body);
        message.textContent = `${news} Nothing was done.`;
        return null;
      }
      try {
        return await api(`/tables/${table}/${path}`, { method: "POST", body, token: operator, ifMatch: now.etag });
      } catch (error) {
        if (!(error instanceof Problem && error.status === 412) || attempt === 3) throw error;
      }
    }
  }

  /** The operator's interventions, each confirmed first. @param {any} v */
  function drawOperator(v) {
    const who = namer(v);
    /** What the question said of the table's status (`v`) that `now` no longer shows.
     * @param {any} now @returns {string | null} */
    const ended = (now) => (now.status !== v.status ? `The table is ${now.status} now.` : null);
    /** The same, and whether it is paused. @param {any} now @returns {string | null} */
    const stopped = (now) => ended(now) || (now.paused !== v.paused ? `The table was ${now.paused ? "paused" : "resumed"} meanwhile.` : null);
    /** @param {string} label @param {string} question @param {string} path @param {() => any} body
     * @param {(now: any) => string | null} changed what the question no longer describes */
    const act = (label, question, path, body, changed) =>
      h("button", {
        type: "button",
        class: "action",
        onclick: async () => {
          if (!window.confirm(question)) return;
          unsay();
          try {
            if (!(await intervene(path, body(), changed))) return;
            notice.textContent = `${label.replace("…", "")}: done.`;
            await refresh();
          } catch (error) {
            fail(error);
          }
        },
      }, label);
    /** @param {any} seat @returns {string} who holds it, as far as handing it on goes */
    const holder = (seat) => JSON.stringify([seat.name, seat.computer, seat.vacant]);
    const reason = h("input", { id: "abort-reason", type: "text", value: "Stopped by the operator", maxlength: 200 });
    const seatSelect = h("select", { id: "replace-seat" }, v.seats.map((/** @type {any} */ s) => h("option", { value: s.seat }, `${s.seat + 1}: ${who(s.seat)}`)));
    const newName = h("input", { id: "replace-name", type: "text", placeholder: "computer if empty", maxlength: 40 });
    const playing = v.status === "playing";
    // A table still waiting for players may be aborted, and a seat given to the computer.
    const open = playing || v.status === "waiting";
    return h(
      "section",
      { class: "box operator", "aria-label": "Operator", tabindex: -1 },
      h("h2", null, "Operator"),
      h("div", { class: "actions" },
        playing && !v.paused ? act("Pause", "Pause this table? Clocks stop and commands are refused.", "pause", () => undefined, stopped) : null,
        playing && v.paused ? act("Resume", "Resume this table? Clocks restart.", "resume", () => undefined, stopped) : null,
      ),
      // An abort stops a paused table as well as a running one: only the status counts.
      open ? h("div", { class: "field" }, h("label", { for: "abort-reason" }, "Reason"), reason, act("Abort…", "Abort this table? It will count nowhere.", "abort", () => ({ reason: /** @type {HTMLInputElement} */ (reason).value }), ended)) : null,
      open ? h("div", { class: "field" }, h("label", { for: "replace-seat" }, "Seat"), seatSelect, h("label", { for: "replace-name" }, "New player"), newName,
        h("button", {
          type: "button",
          class: "action",
          onclick: async () => {
            const s = Number(/** @type {HTMLSelectElement} */ (seatSelect).value);
            const name = /** @type {HTMLInputElement} */ (newName).value.trim();
            if (!window.confirm(`Hand seat ${s + 1} (${who(s)}) to ${name || "the computer"}? The old token stops working.`)) return;
            unsay();
            try {
              const answer = await intervene(`seats/${s}/replace`, name ? { name } : { computer: true }, (now) =>
                holder(now.seats[s]) === holder(v.seats[s]) ? null : `Seat ${s + 1} changed hands meanwhile: ${namer(now)(s)} has it now.`,
              );
              if (!answer) return;
              notice.textContent = answer.token ? `Seat ${s + 1}'s new link: ${location.origin}/console/tables/${table}#token=${answer.token}` : `The computer plays seat ${s + 1}.`;
              await refresh();
            } catch (error) {
              fail(error);
            }
          },
        }, "Replace…")) : null,
    );
  }

  // The last events, then live.
  if (refused) {
    // Unavailable for now (a database restarting): the console tries the page again.
    if (retryable(refused)) throw refused;
    live.textContent = "not following";
    fail(refused);
    return () => {};
  }
  render(first);
  // The sheet as of the version drawn: a page opened just after a hand was scored would
  // otherwise show the sheet without it until the next one.
  loadSheet(view.version);
  const who = () => namer(view);
  const after = Math.max(0, view.version - 20);
  try {
    const page = await api(`/tables/${table}/events?after=${after}`, { token });
    for (const item of page.events) addLog(item.version, item.event);
  } catch {
    // The log is a courtesy; the table itself is drawn.
  }
  // From now on what happens is read out as it is added (its history was not).
  log.setAttribute("aria-live", "polite");
  log.setAttribute("aria-relevant", "additions");
  /** @param {number} version @param {any} event */
  function addLog(version, event) {
    log.prepend(h("li", { "data-version": version }, h("span", { class: "v" }, `${version}`), " ", explainEvent(event, who())));
    while (log.children.length > 40) log.lastElementChild?.remove();
  }
  const stream = follow(`/tables/${table}/stream`, {
    token,
    after: view.version,
    onEvent: (id, data) => {
      addLog(id, data.event);
      // The sheet is a projection, written just after the event: read it a moment later.
      // Its heading names the players: read it again as seats are taken or handed on too.
      if (["hand_scored", "chips_settled", "game_won", "seat_taken", "seat_replaced"].includes(data.event.type)) setTimeout(() => loadSheet(id), 500);
      if (!view || id > view.version) refresh();
    },
    onState: (state) => {
      live.textContent = state;
      if (state === "live") refresh(); // catch up after a reconnection
    },
    // Refused on reconnecting: a seat's token revoked while the stream was down (401)
    // makes the page a watcher's, as a revocation seen live does.
    onClosed: (problem) => {
      if (!stopped) fail(problem); // over() may have told the page already
    },
    // The service ends a table's stream once the table has ended and its last events
    // are out: then there is nothing more to follow.
    // A seat's stream also ends once its token is revoked: then the page becomes a
    // watcher's (fail).
    over: async () => {
      if (leaving || stopped) return true;
      try {
        const now = await api(`/tables/${table}`, { token });
        render(now);
        return !["waiting", "playing"].includes(now.status);
      } catch (error) {
        if (error instanceof Problem && error.status === 401) fail(error);
        throw error;
      }
    },
  });
  const ticker = setInterval(() => {
    for (const el of document.querySelectorAll("[data-deadline]")) el.textContent = countdown(String(/** @type {HTMLElement} */ (el).dataset.deadline));
  }, 500);
  return () => {
    stream.stop();
    clearInterval(ticker);
  };
}
