// Which page of a tab kept what the tab holds for its next load (kept.mjs). A page
// keeps its lines and forms whenever it is hidden, for a reload or a phone's
// discarded tab; a tab duplicated meanwhile (the browser's *Duplicate* on a tab in
// the background, a link the page opens) gets a copy of the tab's storage, and took
// them as its own: the copy showed the original's draft and followed its requests.
// Each page holds a Web Lock named after itself for as long as it lives (the
// browser releases it with the page, and the page at its pagehide); what it keeps
// names it, and a page loaded with what a page still alive kept is a copy and takes
// none of it. A browser without Web Locks takes it as before.

/** A Web Lock's name for the page `id`. */
const lockName = (id) => `rollbridge.page.${id}`;

/** An id of a page as kept: letters, digits and `-` (a UUID). */
export const isPageId = (id) => typeof id === "string" && /^[A-Za-z0-9-]{1,64}$/.test(id);

/** This page's id: new at each load. */
export const pageId = globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random()}`.replace(".", "-");

/** The release of this page's lock while it holds it, else null. */
let release = null;

/**
 * Hold this page's lock while it lives (again after the back-forward cache gave it
 * back); nothing in a browser without Web Locks.
 * @param {LockManager|undefined} locks the browser's (navigator.locks)
 */
export function holdPage(locks = globalThis.navigator?.locks) {
  if (!locks || release) return;
  const held = new Promise((resolve) => { release = resolve; });
  locks.request(lockName(pageId), () => held).catch(() => {});
}

/** Let this page's lock go (its pagehide: a reload's next page must not take it for
 * another page's). */
export function letPageGo() {
  release?.();
  release = null;
}

/**
 * Whether the page `id` — the one that kept what this page found in the tab — still
 * lives (this page is a copy of its tab); false when no page is named, or the
 * browser cannot tell.
 * @param {string|null} id the keeper's id
 * @param {LockManager|undefined} locks the browser's (navigator.locks)
 * @returns {Promise<boolean>}
 */
export async function keeperLives(id, locks = globalThis.navigator?.locks) {
  if (!isPageId(id) || id === pageId || !locks?.query) return false;
  try {
    const { held = [] } = await locks.query();
    return held.some((lock) => lock.name === lockName(id));
  } catch {
    return false;
  }
}
