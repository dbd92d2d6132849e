// @ts-check
// Talking to the service: the caller's token, JSON requests, and Server-Sent Events read
// with fetch (EventSource cannot send an Authorization header, and a token must never
// travel in a URL, where logs would keep it).

const OPERATOR_KEY = "cardroom.operator";

/** The operator's token, kept for this browser tab only. @returns {string | null} */
export function operatorToken() {
  return sessionStorage.getItem(OPERATOR_KEY);
}

/** @param {string | null} token */
export function setOperatorToken(token) {
  if (token) sessionStorage.setItem(OPERATOR_KEY, token);
  else sessionStorage.removeItem(OPERATOR_KEY);
}

/**
 * The seat token of a table's page: taken from the fragment (`#token=…`), which browsers
 * never send to a server, then kept in this tab's session storage and wiped from the
 * address bar so that it is not shared with a copied link.
 * @param {string} table
 * @returns {string | null}
 */
export function seatToken(table) {
  return fromFragment("token", `cardroom.seat.${table}`);
}

/**
 * A tournament entry's token, from its link (`#entry=…`), kept as a seat's is.
 * @param {string} tournament
 * @returns {string | null}
 */
export function entryToken(tournament) {
  return fromFragment("entry", `cardroom.entry.${tournament}`);
}

/** @param {string} name the fragment's parameter @param {string} key where the tab keeps it */
function fromFragment(name, key) {
  const given = new URLSearchParams(location.hash.slice(1)).get(name);
  if (given) {
    sessionStorage.setItem(key, given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(key);
}

/** @param {string} table */
export function forgetSeat(table) {
  sessionStorage.removeItem(`cardroom.seat.${table}`);
}

export class Problem extends Error {
  /** @param {number} status @param {any} body @param {number | null} [retryAfter] seconds */
  constructor(status, body, retryAfter = null) {
    super((body && (body.detail || body.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    /** @type {Record<string, any>} the problem's `context`: what it names, by field */
    this.context = (body && body.context) || {};
    this.retryAfter = retryAfter;
  }
}

/** No answer came at all: the network failed (or the page went offline). */
export class NetworkFailure extends Error {
  /** @param {boolean} command  whether it was a command, which may have been recorded */
  constructor(command) {
    const lost = command ? " If your move does not show on the table in a moment, send it again." : "";
    super(`No answer came: the network failed.${lost}`);
  }
}

/**
 * Whether asking again later may succeed: the network failed, the service was
 * unavailable, or the caller was rate limited (not a request the service refused).
 * @param {unknown} error
 */
export function retryable(error) {
  return !(error instanceof Problem) || error.status >= 500 || error.status === 429;
}

/**
 * How long to wait before asking again after `error`: what its `Retry-After` said, else
 * a second. @param {unknown} error @returns {number} milliseconds
 */
export function retryDelay(error) {
  const seconds = error instanceof Problem ? error.retryAfter : null;
  return Math.min(Math.max(seconds ?? 1, 1), 60) * 1000;
}

/**
 * A fresh Idempotency-Key. Not `crypto.randomUUID()`: browsers offer it only in a secure
 * context (HTTPS, or localhost), and the console is also served over plain HTTP on a
 * closed network; `getRandomValues` is there in every context.
 * @returns {string}
 */
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Seconds between a stream's keep-alives when the service does not say. */
const DEFAULT_KEEP_ALIVE = 15;

/** The service's keep-alive interval, in seconds, as its latest stream said it. */
let keepAlive = DEFAULT_KEEP_ALIVE;

/**
 * How long a stream may stay silent before its connection is taken for dead: three of
 * the service's keep-alive intervals. @returns {number} milliseconds
 */
function silence() {
  return 3000 * keepAlive;
}

/**
 * How long a request may wait for its whole answer: as long as a stream may stay silent,
 * and ten seconds at least (the service answers within its own few seconds' deadlines,
 * a 503 when it cannot). @returns {number} milliseconds
 */
function patience() {
  return Math.max(silence(), 10_000);
}

// Aborted when the page is left. A page the browser keeps in its back/forward cache would
// keep its requests open, its event stream and long-polls: each holds one of the few
// connections a browser opens to one server (six), and after a handful of pages left
// that way the next page waited a minute for one to close. A kept page that comes back
// starts again (app.js).
const leaving = new AbortController();
window.addEventListener("pagehide", () => leaving.abort());

/** `signal`, aborted when the page is left too. A browser without `AbortSignal.any`
 * (before Chrome 116, Firefox 124, Safari 17.4) keeps `signal` alone: its pages work as
 * they did, their requests left open in the back/forward cache.
 * @param {AbortSignal} signal @returns {AbortSignal} */
function untilLeft(signal) {
  return typeof AbortSignal.any === "function" ? AbortSignal.any([signal, leaving.signal]) : signal;
}

/**
 * One request; the JSON answer, or a thrown Problem.
 *
 * A request that has had no whole answer after `patience()` is given up as a
 * NetworkFailure: on a phone that changed networks, or behind a NAT that forgot the
 * connection, a kept-alive connection can swallow a request without ever failing, and the
 * page would wait on it for good (its reads are one at a time: a table would stop
 * moving). `patient` requests (a whole tournament's verification, which may take long)
 * wait as long as it takes.
 * @param {string} path
 * `key`: the Idempotency-Key of a body's request, to send the same request again after a
 * lost answer (else a new one). `ifMatch`: the ETag the request was decided on. `tagged`:
 * the answer as `{body, etag}`.
 * @param {{method?: string, body?: unknown, token?: string | null, accept?: string, patient?: boolean, key?: string, ifMatch?: string | null, tagged?: boolean}} [options]
 * @returns {Promise<any>}
 */
export async function api(path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: options.accept || "application/json" };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.ifMatch) headers["If-Match"] = options.ifMatch;
  const abort = new AbortController();
  /** @type {RequestInit} */
  const init = { method: options.method || "GET", headers, cache: "no-store", signal: untilLeft(abort.signal) };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    headers["Idempotency-Key"] = options.key || newKey();
    init.body = JSON.stringify(options.body);
  } else if (init.method === "POST") {
    headers["Content-Type"] = "application/json";
    init.body = "{}";
  }
  /** @type {Response} */
  let response;
  let text;
  const timer = options.patient ? 0 : window.setTimeout(() => abort.abort(), patience());
  try {
    response = await fetch(path, init);
    text = await response.text();
  } catch {
    // fetch's own TypeError says only "Failed to fetch"; an abort, "signal is aborted".
    throw new NetworkFailure(init.method !== "GET");
  } finally {
    clearTimeout(timer);
  }
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("json") && text ? JSON.parse(text) : text;
  if (!response.ok) {
    const after = Number(response.headers.get("Retry-After"));
    throw new Problem(response.status, body, Number.isFinite(after) && after > 0 ? after : null);
  }
  return options.tagged ? { body, etag: response.headers.get("ETag") } : body;
}

/**
 * Follows a Server-Sent Events stream and resumes it after a dropped connection from the
 * last id seen (Last-Event-ID), until `stop()` is called, or until the stream ends and
 * `over()` says that what it follows has ended (the service ends a finished table's
 * stream after its last event: asking again would only be answered the same way).
 * Reconnections back off from a quarter of a second to five while no event comes.
 *
 * A connection that goes silent without closing (a NAT or proxy that dropped it, a
 * network change, a laptop waking) is given up once nothing has come for three of the
 * service's keep-alive intervals (its Cardroom-Keep-Alive header): the page would
 * otherwise say "live" and never move again. A refusal (4xx) ends the following, and
 * `onClosed` is told why (a seat's revoked token: 401).
 * @param {string} path
 * @param {{token?: string | null, after?: number, onEvent: (id: number, data: any) => void, onState?: (state: string) => void, onClosed?: (problem: Problem) => void, over?: () => Promise<boolean>}} options
 * @returns {{stop: () => void}}
 */
export function follow(path, options) {
  let last = options.after ?? 0;
  let stopped = false;
  let pause = 250;
  /** @type {{current: AbortController | null}} */
  const controller = { current: null };
  const state = options.onState || (() => {});

  async function once() {
    const abort = new AbortController();
    controller.current = abort;
    /** @type {Record<string, string>} */
    const headers = { Accept: "text/event-stream" };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    if (last > 0) headers["Last-Event-ID"] = String(last);
    let watchdog = 0;
    const heard = () => {
      clearTimeout(watchdog);
      watchdog = window.setTimeout(() => abort.abort(), silence());
    };
    heard(); // a try whose answer never begins (a dead kept-alive connection) is given up too
    try {
      const response = await fetch(path, { headers, signal: untilLeft(abort.signal), cache: "no-store" });
      if (!response.ok || !response.body) throw new Problem(response.status, null);
      state("live");
      const every = Number(response.headers.get("Cardroom-Keep-Alive"));
      if (every > 0) keepAlive = every;
      heard();
      await read(response.body, heard);
    } finally {
      clearTimeout(watchdog);
    }
  }

  /** The stream's messages, as they come, each passed on once. @param {ReadableStream<BufferSource>} body @param {() => void} heard */
  async function read(body, heard) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      heard();
      // SSE lines may end in CRLF, LF or CR; a CR last in a chunk waits for the next.
      buffer += value;
      const held = buffer.endsWith("\r") ? "\r" : "";
      buffer = buffer.slice(0, buffer.length - held.length).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id = null;
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("id:")) id = Number(line.slice(3).trim());
          else if (line.startsWith("data:")) data += line.slice(5).trim();
        }
        if (id !== null && Number.isFinite(id) && data) {
          if (id <= last) continue; // a repeat after resuming
          last = id;
          pause = 250;
          options.onEvent(id, JSON.parse(data));
        }
      }
      buffer += held;
    }
  }

  (async () => {
    while (!stopped && !leaving.signal.aborted) {
      try {
        await once();
        if (!stopped && options.over && (await options.over())) {
          state("over");
          return;
        }
      } catch (error) {
        if (stopped) return;
        if (error instanceof Problem && error.status >= 400 && error.status < 500 && error.status !== 429) {
          state("closed");
          options.onClosed?.(error);
          return;
        }
      }
      if (stopped) return;
      state("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 5000);
    }
  })();

  return {
    stop() {
      stopped = true;
      controller.current?.abort();
    },
  };
}
