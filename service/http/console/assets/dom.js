// @ts-check
// Building the page with DOM calls only: text is always text (never parsed as HTML), and
// the policy's ban on inline scripts and styles holds.

/**
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | number | null | undefined | false | (Node | string)[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = String(value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

/** @param {Element} el @param {any[]} children */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** @param {HTMLElement} el @param {...any} children */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/** Tells screen readers what just changed. @param {string} text */
export function announce(text) {
  const region = document.getElementById("announce");
  if (region) region.textContent = text;
}

/** A player's name set in running text, isolated from it: digits or signs beside a
 * right-to-left name (an Arabic or Hebrew one) would otherwise join its run and be
 * drawn on its other side, a score beside the wrong name. @param {string} name */
export function named(name) {
  return h("bdi", null, name);
}

/** A table of rows. @param {string} caption @param {string[]} head @param {any[][]} rows */
export function grid(caption, head, rows) {
  return h(
    "div",
    { class: "scroll", role: "region", "aria-label": caption, tabindex: 0 },
    h(
      "table",
      { class: "grid" },
      h("caption", null, caption),
      h("thead", null, h("tr", null, head.map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", null, rows.map((row) => h("tr", null, row.map((cell) => h("td", null, cell))))),
    ),
  );
}

/**
 * Draws a page now, then again every `ms` milliseconds while it is shown; while a later
 * draw fails, `stale` says why (and `null` once a draw works again), so that a page that
 * stopped changing says so.
 * @param {() => Promise<void>} load
 * @param {number} ms
 * @param {(why: string | null) => void} [stale]
 * @returns {Promise<() => void>} what stops it
 */
export async function keepFresh(load, ms, stale = () => {}) {
  await load();
  document.body.dataset.rendered = String(Date.now());
  const timer = setInterval(() => {
    if (document.visibilityState !== "visible") return;
    load()
      .then(() => {
        document.body.dataset.rendered = String(Date.now());
        stale(null);
      })
      .catch((error) => stale(error instanceof Error ? error.message : String(error)));
  }, ms);
  return () => clearInterval(timer);
}

/**
 * Draws into a box only when what it is drawn from changed since the last time: a page
 * read again every few seconds keeps its focus and scrolling, and what is typed in it.
 * @returns {(box: HTMLElement, from: unknown, draw: () => any) => void}
 */
export function keyed() {
  let last = "";
  return (box, from, draw) => {
    const key = JSON.stringify(from);
    if (key === last) return;
    last = key;
    replace(box, draw());
  };
}
