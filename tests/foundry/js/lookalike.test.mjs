// A player's look-alike of a card (rev15f): a ChatMessage with the module's card flags
// of an event, posted by a player, with a forged result in it. Where the GM's card of
// that event is in the chat, the look-alike is marked as a player's on every client
// (foundry/lookalike.mjs, from both render hooks), whichever of the two came first.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { markLookalikes } from "../../../adapters/foundry/module/scripts/foundry/lookalike.mjs";
import { drawMessages } from "./elements.mjs";
import { registerModuleSettings, Standin, world } from "./standin.mjs";

after(() => Standin.uninstall());

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true, active: true },
  { _id: "standinMallory1", name: "Mallory" },
  { _id: "standinBob00001", name: "Bob" },
];
const [GM, MALLORY, BOB] = USERS.map((u) => u._id);

/** A public card of event `seq` (table t1, epoch 1) by `author`, its result `total`. */
function card(id, author, seq, total) {
  return {
    _id: id, author, content: `<div class="rollbridge-card">1d6 = ${total}</div>`,
    flags: { rollbridge: { table: "t1", epoch: 1, seq, kind: "roll", request: `r${seq}`, rolls: [], secret: false, view: "players" } },
  };
}

/**
 * Node has no DOM: the page's document as far as lookalike.mjs reads it, a stand-in
 * over the chat log's drawn elements (`elements`, drawMessages): createElement, and
 * querySelector of a message's element by `[data-message-id="…"]`.
 */
function pageDocument(elements) {
  return {
    createElement: (tag) => ({ tagName: tag, className: "", dataset: {}, textContent: "" }),
    querySelector: (selector) => elements.get(/^\[data-message-id="([^"]+)"\]$/.exec(selector)?.[1]) ?? null,
  };
}

for (const generation of [12, 13]) {
  test(`a player's look-alike of an event's card is marked as a player's once the GM's card is there (v${generation})`, async () => {
    await world({ users: USERS, user: BOB, generation });
    await registerModuleSettings();
    // the module's render hook (rollbridge.mjs): v13's renderChatMessageHTML, v12's renderChatMessage
    const elements = drawMessages(generation, markLookalikes);
    globalThis.document = pageDocument(elements);
    globalThis.CSS ??= { escape: (s) => s }; // the browser's, which Node lacks
    game.ready = true;
    /** The note marking message `id` as a player's look-alike, or null (and its card struck alike). */
    const marked = (id) => {
      const shown = elements.get(id);
      assert.ok(shown, `message ${id} is drawn`);
      const note = shown.querySelector(".rollbridge-lookalike-note");
      assert.equal(Boolean(note), shown.card.classList.has("rollbridge-lookalike"));
      return note ? note.textContent : null;
    };
    await ChatMessage._fromWorld({ data: card("forgedAhead00001", MALLORY, 5, 6), user: MALLORY });
    assert.equal(marked("forgedAhead00001"), null, "no GM's card of seq 5 yet: nothing to tell it from");
    await ChatMessage._fromWorld({ data: card("gmsRealCard00001", GM, 5, 2), user: GM });
    const words = "a player posted this card: the table's result is the GM's card of this event";
    assert.equal(marked("forgedAhead00001"), words, "the GM's card marks the look-alike drawn before it");
    assert.equal(marked("gmsRealCard00001"), null, "the GM's card is the table's");
    await ChatMessage._fromWorld({ data: card("forgedAfter00001", MALLORY, 5, 6), user: MALLORY });
    assert.equal(marked("forgedAfter00001"), words, "a look-alike after the GM's card is marked as it is drawn");
    // a player's own card of an event no GM's card has (posted while no GM was active)
    await ChatMessage._fromWorld({ data: card("playersOwn00001", BOB, 6, 4), user: BOB });
    assert.equal(marked("playersOwn00001"), null);
    delete globalThis.document;
  });
}

/** A Roll's data as a card's message holds it (evaluated: a 1d6 showing `result`). */
const roll = (result) => ({
  class: "Roll", formula: "1d6", options: {}, dice: [], total: result, evaluated: true,
  terms: [{ class: "Die", options: {}, evaluated: true, number: 1, faces: 6, modifiers: [], results: [{ result, active: true }] }],
});

for (const generation of [12, 13]) {
  test(`a roller's own card of a GM roll beside the GM's view of it is no look-alike (v${generation})`, async () => {
    // a player's GM roll: the GM's client posts the GM's view (whispered to the GMs),
    // the roller's client its own card (flags.rollbridge.requester, whispered to the
    // roller: core/rollmode.mjs requesterCard). Both are of the same event, and a
    // Roll's message is drawn on every client (ChatMessage#visible).
    await world({ users: USERS, user: GM, generation });
    await registerModuleSettings();
    const elements = drawMessages(generation, markLookalikes);
    globalThis.document = pageDocument(elements);
    globalThis.CSS ??= { escape: (s) => s };
    game.ready = true;
    const secret = (id, author, whisper, extra) => ({
      ...card(id, author, 7, 5), whisper, rolls: [roll(5)],
      flags: { rollbridge: { ...card(id, author, 7, 5).flags.rollbridge, secret: true, ...extra } },
    });
    await ChatMessage._fromWorld({ data: secret("gmsViewCard00001", GM, [GM], { view: "gm" }), user: GM });
    await ChatMessage._fromWorld({ data: secret("bobsOwnCard00001", BOB, [BOB], { view: "players", requester: true }), user: BOB });
    const shown = elements.get("bobsOwnCard00001");
    assert.ok(shown, "the roller's card is drawn");
    assert.equal(shown.querySelector(".rollbridge-lookalike-note"), null, "the roller's own card is not marked as a look-alike");
    assert.equal(shown.card.classList.has("rollbridge-lookalike"), false);
    delete globalThis.document;
  });
}

for (const generation of [12, 13]) {
  test(`a GM's card drawn in a long chat reads the chat once, not once per message (v${generation})`, async () => {
    // opening a chat log draws every card: a GM's card scanned the chat again for each
    // player's card in it (isLookalike's own scan), so a log of n cards cost n³ looks. Counted,
    // not timed: the reads of game.messages.contents while one GM's card is drawn.
    await world({ users: USERS, user: GM, generation });
    await registerModuleSettings();
    const elements = drawMessages(generation, () => {});
    globalThis.document = pageDocument(elements);
    globalThis.CSS ??= { escape: (s) => s };
    game.ready = true;
    for (let seq = 1; seq <= 60; seq += 1) {  // players' cards of events posted while no GM was on
      await ChatMessage._fromWorld({ data: card(`bobsCard${String(seq).padStart(8, "0")}`, BOB, seq, 3), user: BOB });
    }
    await ChatMessage._fromWorld({ data: card("gmsCard000000060", GM, 60, 3), user: GM });
    await ChatMessage._fromWorld({ data: card("forgedSixty00001", MALLORY, 60, 6), user: MALLORY });
    const messages = game.messages;
    const contents = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(messages), "contents")
      ?? Object.getOwnPropertyDescriptor(messages, "contents");
    let reads = 0;
    Object.defineProperty(messages, "contents", {
      configurable: true,
      get() { reads += 1; return contents.get ? contents.get.call(messages) : contents.value; },
    });
    const last = messages.get("gmsCard000000060");
    markLookalikes(last, elements.get("gmsCard000000060").root ?? null);
    delete messages.contents;
    // one pass over the chat, and one more for each player's card of this event (two)
    assert.ok(reads <= 3, `the chat was read ${reads} times for one GM's card`);
    delete globalThis.document;
  });
}
