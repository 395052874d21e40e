// The web view's keeper.mjs: which page of a tab kept what the tab holds, so that a
// copy of the tab (duplicated while that page was hidden) takes none of it. The
// browser's Web Locks are a stand-in shaped after the API (request, query).

import assert from "node:assert/strict";
import { test } from "node:test";

import { holdPage, isPageId, keeperLives, letPageGo, pageId } from "../../../core/server/webui/keeper.mjs";
import { keepForms, keepLines, takeForms, takeLines } from "../../../core/server/webui/kept.mjs";

/** A stand-in of navigator.locks: exclusive locks held while their callback's promise is pending. */
function lockManager() {
  const held = new Map();
  return {
    held,
    request(name, callback) {
      held.set(name, true);
      return Promise.resolve(callback({ name })).finally(() => held.delete(name));
    },
    query: async () => ({ held: [...held.keys()].map((name) => ({ name, mode: "exclusive" })) }),
  };
}

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
  assert.equal(await keeperLives(other, locks), false, "no page holds it: a reload, a discarded tab");
  locks.request(`rollbridge.page.${other}`, () => new Promise(() => {}));
  assert.equal(await keeperLives(other, locks), true);
  // this page's own id is never another's; nothing named, a bad id, no Web Locks: not a copy
  holdPage(locks);
  assert.equal(await keeperLives(pageId, locks), false);
  for (const id of [null, "", "a b", "<x>", 7]) assert.equal(await keeperLives(id, locks), false, String(id));
  assert.equal(await keeperLives(other, undefined), false);
  // its pagehide lets the lock go (the reload's next page takes what it kept)
  assert.ok(locks.held.has(`rollbridge.page.${pageId}`));
  letPageGo();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(locks.held.has(`rollbridge.page.${pageId}`), false);
});

test("what is not a page's id is kept as none", () => {
  const tab = storage();
  keepLines("web", { message: null, forms: {}, asked: [], keeper: "<img src=x>" }, tab);
  assert.equal(takeLines("web", tab).keeper, null);
  keepForms("web", "gm:gm", { action: null, forms: {}, odds: [], keeper: { id: 1 } }, [], tab);
  assert.equal(takeForms("web", tab).keeper, null);
});
