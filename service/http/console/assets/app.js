// @ts-check
// The console's entry point: the operator's sign-in, then the page the path names.

import { api, operatorToken, Problem, retryable, retryDelay, setOperatorToken } from "./api.js";
import { h, replace } from "./dom.js";
import { replayPage } from "./replay.js";
import { tablePage } from "./table.js";
import { tablesPage } from "./tables.js";
import { tournamentPage, tournamentsPage } from "./tournament.js";

// Set when the token signed in with is a tournament director's (GET /me said so).
const DIRECTOR_KEY = "cardroom.director";

function signin() {
  const place = document.getElementById("signin");
  if (!place) return;
  if (operatorToken()) {
    const out = h("button", { type: "button", id: "signout" }, "Sign out");
    out.addEventListener("click", () => {
      setOperatorToken(null);
      sessionStorage.removeItem(DIRECTOR_KEY);
      location.reload();
    });
    // A director's token is the operator's for one tournament only: the tag says which.
    const director = sessionStorage.getItem(DIRECTOR_KEY) === "1";
    replace(place, h("span", { class: "tag you" }, director ? "Director" : "Operator"), " ", out);
    return;
  }
  // A form that never submits to the server: the token stays in this tab's session
  // storage and goes out only in Authorization headers, never in a URL.
  const input = h("input", { id: "operator-token", type: "password", autocomplete: "off", size: 14 });
  const form = h("form", { id: "operator-form", "aria-label": "Operator sign-in" }, h("label", { for: "operator-token" }, "Operator token"), input, h("button", { type: "submit" }, "Sign in"));
  const said = h("span", { id: "signin-said", role: "alert" });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = /** @type {HTMLInputElement} */ (input).value.trim();
    if (!value) return;
    // Asked of the service first: a mistyped token, or a player's, would otherwise be
    // kept, and every page would read as the operator's (its buttons refused) while
    // showing only what anyone, or that player, may see.
    sessionStorage.removeItem(DIRECTOR_KEY);
    try {
      const holder = await api("/me", { token: value });
      if (holder.kind === "director") sessionStorage.setItem(DIRECTOR_KEY, "1");
      if (!["operator", "director"].includes(holder.kind)) {
        said.textContent = `That is ${holder.kind === "seat" ? "a seat's" : "an entry's"} token, not the operator's or a tournament director's: open the seat's link instead.`;
        return;
      }
    } catch (error) {
      if (error instanceof Problem && error.status === 401) {
        said.textContent = "The service does not know that token.";
        return;
      }
      // The service unavailable: the token is kept, as the pages will tell soon enough.
    }
    setOperatorToken(value);
    location.reload();
  });
  replace(place, form, said);
}

async function route() {
  const main = /** @type {HTMLElement} */ (document.getElementById("main"));
  const path = location.pathname.replace(/\/+$/, "");
  let match;
  try {
    if ((match = path.match(/^\/console\/tables\/([^/]+)\/replay$/))) {
      document.title = "Replay · Cardroom";
      await replayPage(main, decodeURIComponent(match[1]));
    } else if ((match = path.match(/^\/console\/tables\/([^/]+)$/))) {
      document.title = "Table · Cardroom";
      await tablePage(main, decodeURIComponent(match[1]));
    } else if ((match = path.match(/^\/console\/tournaments\/([^/]+)$/))) {
      document.title = "Tournament · Cardroom";
      await tournamentPage(main, decodeURIComponent(match[1]));
    } else if (path === "/console/tournaments") {
      document.title = "Tournaments · Cardroom";
      await tournamentsPage(main);
    } else {
      document.title = "Tables · Cardroom";
      await tablesPage(main);
    }
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    if (retryable(error)) {
      // The service is unavailable for now (a database restarting, a burst limited): the
      // page is tried again, as long as it takes, rather than left broken until a reload.
      const delay = retryDelay(error);
      replace(main, h("h1", null, "Not available just now"), h("p", { role: "alert" }, `${said} Trying again in ${Math.round(delay / 1000)} s.`));
      setTimeout(route, delay);
      return;
    }
    replace(main, h("h1", null, "Something went wrong"), h("p", { role: "alert" }, said));
  }
  document.body.dataset.ready = "1";
}

// A seat's or an entry's link opened over the page already shown (only the fragment
// changed): start again, so that the page takes the token.
window.addEventListener("hashchange", () => {
  if (location.hash.includes("token=") || location.hash.includes("entry=")) location.reload();
});

// A page the browser keeps in its back/forward cache comes back as it was, scripts and
// all, but its requests were given up when it was left (api.js), and after a sign-in or
// sign-out meanwhile it would show what the earlier token saw. Such a page starts again.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) location.reload();
});

signin();
route();
