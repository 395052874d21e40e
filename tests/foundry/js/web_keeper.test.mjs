// The web view's keeper.mjs: which page of a tab kept what the tab holds, so that a
// copy of the tab (duplicated while that page was hidden) takes none of it. The
// browser's Web Locks are a stand-in shaped after the API (request, query).

import assert from "node:assert/strict";
import { test } from "node:test";

import { holdPage, isPageId, letPageGo, pageId, takeOver, tellsCopies } from "../../../core/server/webui/keeper.mjs";
import { keepForms, keepLines, takeForms, takeLines } from "../../../core/server/webui/kept.mjs";

/** A stand-in of navigator.locks: exclusive locks held while their callback's promise
 * is pending; with `ifAvailable`, a lock held already gives the callback null at once
 * (the API's request(name, options, callback)). Locks are not queued: the tests ask
 * for a held one only with `ifAvailable`. */
function lockManager() {
  const held = new Map();
  return {
    held,
    request(name, ...args) {
      const [options, callback] = args.length > 1 ? args : [{}, args[0]];
      if (held.has(name)) {
        assert.ok(options.ifAvailable, `${name} asked for while held`);
        return Promise.resolve(callback(null));
      }
      held.set(name, true);
      return Promise.resolve(callback({ name })).finally(() => held.delete(name));
    },
  };
}

/** Let the stand-in's promises settle. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A stand-in of the Web Storage API. */
function storage() {
  const items = new Map();
  return { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => items.set(key, String(value)),
    removeItem: (key) => items.delete(key) };
}

test("a page's id is kept with what it keeps, and a copy finds that page alive", async () => {
  assert.ok(isPageId(pageId), pageId);
  const tab = storage();
  keepLines("web", { message: null, forms: {}, asked: [["p1", "roll"]], keeper: pageId }, tab);
  keepForms("web", "player:alice", { action: null, forms: {}, odds: [], keeper: pageId }, [], tab);
  const lines = takeLines("web", tab);
  const forms = takeForms("web", tab);
  assert.equal(lines.keeper, pageId);
  assert.equal(forms.keeper, pageId);
  // the keeper's lock held (its page lives): another page with that id's things is a copy
  const locks = lockManager();
  const other = "0b8f2a9c-1111-4222-8333-444455556666";
  locks.request(`rollbridge.page.${other}`, () => new Promise(() => {}));
  assert.equal(await takeOver(other, locks), false, "its page lives: a copy");
  // this page's own id, nothing named, a bad id, no Web Locks: taken, as before them
  holdPage(locks);
  assert.equal(await takeOver(pageId, locks), true);
  for (const id of [null, "", "a b", "<x>", 7]) assert.equal(await takeOver(id, locks), true, String(id));
  assert.equal(await takeOver(other, undefined), true);
  // its pagehide lets the lock go (the reload's next page takes what it kept)
  assert.ok(locks.held.has(`rollbridge.page.${pageId}`));
  letPageGo();
  await settled();
  assert.equal(locks.held.has(`rollbridge.page.${pageId}`), false);
});

test("of two pages loaded after the keeper went, the first takes what it kept, the other is a copy", async () => {
  // a phone discarded the tab (its page gone with its lock, no pagehide), the tab was
  // duplicated, and the copy and the tab loaded anew find the same things kept
  const locks = lockManager();
  const gone = "0b8f2a9c-2222-4222-8333-444455556666";
  assert.equal(await takeOver(gone, locks), true, "the first to load takes them");
  assert.ok(locks.held.has(`rollbridge.page.${gone}`), "and holds the page's lock for it");
  assert.equal(await takeOver(gone, locks), false, "the second is a copy");
  // the first gone too (its pagehide), the next to load takes them
  letPageGo();
  await settled();
  assert.equal(await takeOver(gone, locks), true);
  letPageGo();
  await settled();
  assert.equal(locks.held.size, 0);
});

test("what is not a page's id is kept as none", () => {
  const tab = storage();
  keepLines("web", { message: null, forms: {}, asked: [], keeper: "<img src=x>" }, tab);
  assert.equal(takeLines("web", tab).keeper, null);
  keepForms("web", "gm:gm", { action: null, forms: {}, odds: [], keeper: { id: 1 } }, [], tab);
  assert.equal(takeForms("web", tab).keeper, null);
});

test("a browser without Web Locks cannot tell a copy of the tab", () => {
  // a page served over plain HTTP at a LAN address has no navigator.locks: it keeps
  // nothing while shown (table.mjs's keepSoon), or a copy would take it as its own
  assert.equal(tellsCopies(undefined), false);
  assert.equal(tellsCopies({}), false);
  assert.equal(tellsCopies(lockManager()), true);
});
