// Which page of a tab kept what the tab holds for its next load (kept.mjs). A page
// keeps its lines and forms whenever it is hidden, for a reload or a phone's
// discarded tab; a tab duplicated meanwhile (the browser's *Duplicate* on a tab in
// the background, a link the page opens) gets a copy of the tab's storage, and took
// them as its own: the copy showed the original's draft and followed its requests.
// Each page holds a Web Lock named after itself for as long as it lives (the
// browser releases it with the page, and the page at its pagehide); what it keeps
// names it, and a page loaded with what a page still alive kept is a copy and takes
// none of it. A page that takes what a page gone kept (a reload, a phone's
// discarded tab loaded anew) holds that page's lock too, for as long as it lives: a
// copy of the tab made after the page was gone (duplicated once the phone had
// discarded it) found no page holding it, and took the same draft and the same
// requests to follow; now whichever of them loads first takes them, and the other
// joins as a copy. A browser without Web Locks takes it as before.

/** Whether pages can tell a copy of their tab (the browser has Web Locks): where they
 * cannot, a page keeps nothing while it is shown (table.mjs's keepSoon), or a copy of
 * the tab made then would take its draft and its requests as its own. */
export const tellsCopies = (locks = globalThis.navigator?.locks) => Boolean(locks?.request);

/** A Web Lock's name for the page `id`. */
const lockName = (id) => `rollbridge.page.${id}`;

/** An id of a page as kept: letters, digits and `-` (a UUID). */
export const isPageId = (id) => typeof id === "string" && /^[A-Za-z0-9-]{1,64}$/.test(id);

/** This page's id: new at each load. */
export const pageId = globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random()}`.replace(".", "-");

/** The release of this page's lock while it holds it, else null. */
let release = null;
/** The releases of the locks of pages gone whose kept things this page took. */
const taken = [];

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
  for (const letGo of taken.splice(0)) letGo();
}

/**
 * Whether this page takes what the page `id` kept in the tab: it does when that page
 * is gone and no other page took it first — and then holds that page's lock, so a
 * page loaded after it with the same things (a copy of the tab) takes none of them
 * while this one lives. False when that page still lives, or another took them (this
 * page is a copy of its tab); true when no page is named, or the browser cannot tell.
 * @param {string|null} id the keeper's id
 * @param {LockManager|undefined} locks the browser's (navigator.locks)
 * @returns {Promise<boolean>}
 */
export function takeOver(id, locks = globalThis.navigator?.locks) {
  if (!isPageId(id) || id === pageId || !locks?.request) return Promise.resolve(true);
  return new Promise((resolve) => {
    // only if no page holds it: the test and the hold are one step, so of two pages
    // loading at once one takes them
    locks.request(lockName(id), { ifAvailable: true }, (lock) => {
      resolve(lock !== null);
      return lock === null ? undefined : new Promise((done) => { taken.push(done); });
    }).catch(() => resolve(true));
  });
}
