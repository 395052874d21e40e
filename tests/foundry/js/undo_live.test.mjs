// The GM's Undo and Redo follow the table while the page is open: a chat card shows
// Undo while its event is the latest undoable change and Redo while it is the latest
// undone one (core/buttons.mjs). When an event moves them (a new change, an undo, a
// redo, another GM's change), the module draws again, in place
// (ChatLog#updateMessage), the cards they left and the cards they came to — and only
// those: not the new event's own card, which Foundry draws when it is created, and
// not the rest of a long log. Nothing is sent, no message made; a player never has
// these buttons (docs/foundry.md, "Undo / redo (GM)").

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { addButtons } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { drawMessages } from "./elements.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { registerModuleSettings, settle, Standin, world } from "./standin.mjs";

const USERS = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" }];
const STACKS = { retain: 1000, depth: 100 };
let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

/** An attack that changed the table (undoable); `request` another GM's when it is not this client's. */
const attack = (seq, request = `web-${seq}`) => ({
  type: "event", table: "t1", epoch: 1, seq, kind: "resolution", request,
  data: { action: "attack", actor: "tukan", targets: ["g"], narration: `hit ${seq}`, dice: [] },
  actors: [{ id: "g" }], foundry: { rolls: [], speaker: null },
});
const undo = (seq, undoes) => ({ type: "event", table: "t1", epoch: 1, seq, kind: "undo", data: { undoes, kind: "resolution" }, actors: [{ id: "g" }] });
const redo = (seq, redoes) => ({ type: "event", table: "t1", epoch: 1, seq, kind: "redo", data: { redoes, kind: "resolution" }, actors: [{ id: "g" }] });
const adjusted = (seq) => ({ type: "event", table: "t1", epoch: 1, seq, kind: "adjusted", request: `web-${seq}`, data: { actor: "g" }, actors: [{ id: "g" }] });

/** A card of #seq as the GM's client posts it (for a page that does not post it itself). */
const card = (seq) => ({
  content: `<div class="rollbridge-card" data-epoch="1" data-seq="${seq}">#${seq}</div>`,
  speaker: { alias: "Tukan" }, author: USERS[0]._id,
  flags: { rollbridge: { table: "t1", epoch: 1, seq, kind: "resolution" } },
});

/**
 * A page of `user` (v`generation`) with the module's render hook drawing into fake
 * elements (elements.mjs drawMessages) and `log` messages already in its chat before
 * the welcome (cards of #1..#cards, the rest plain), welcomed at `seq` with the GM's
 * `undo_redo` (a player's welcome has none). Returns {ws, elements, page}:
 * page.shown(seq) the Undo/Redo its card shows, page.drawn() the cards drawn since
 * the last call.
 */
async function openPage({ generation, user = "gm", log = 0, cards = 0, seq = 0, undo: stack = [] }) {
  client?.stop();
  await world({ users: USERS, user, generation });
  await registerModuleSettings();
  client = new FoundryClient();
  const elements = drawMessages(generation, (message, html) => addButtons(message, html, client));
  for (let i = 1; i <= log; i++) {
    const data = i <= cards ? card(i) : { content: `chatter ${i}`, author: USERS[1]._id };
    await ChatMessage._fromWorld({ data, user: data.author });
  }
  let mark = Standin.log.rendered.length; // what the welcome draws again counts
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  const gm = game.user.isGM;
  ws.receive({
    type: "welcome", id: hello.id, protocol: 1, role: gm ? "gm" : "player", epoch: 1, seq, locale: "en",
    table: { id: "t1", actors: [], ...(gm ? { undo_redo: { ...STACKS, seq, undo: stack, redo: [] } } : {}) },
  });
  await settle(client);
  const messageOf = (n) => game.messages.contents.find((m) => m.flags.rollbridge?.seq === n && m.flags.rollbridge.kind === "resolution");
  const page = {
    messageOf,
    shown(n) {
      const html = elements.get(messageOf(n).id).card.shown;
      return ["undo", "redo"].filter((action) => html.includes(`data-rollbridge-action="${action}"`)).join(" ");
    },
    /** The seqs of the cards drawn since the last call: [seq, "new"] for one posted, [seq, "redrawn"] for one drawn again. */
    drawn() {
      const since = Standin.log.rendered.slice(mark);
      mark = Standin.log.rendered.length;
      return since.map((r) => [game.messages.get(r.message).flags.rollbridge?.seq, r.updated ? "redrawn" : "new"]);
    },
  };
  return { ws, elements, page };
}

/** Feed events and wait until the client handled them. */
async function receive(ws, ...events) {
  for (const event of events) ws.receive(event);
  await settle(client);
}

/** What each card of `seqs` shows, by seq. */
const shownAll = (page, seqs) => Object.fromEntries(seqs.map((n) => [n, page.shown(n)]));

for (const generation of [12, 13]) {
  test(`v${generation}: a GM's cards: Undo and Redo move with each change, undo, redo and another GM's change`, async () => {
    const { ws, page } = await openPage({ generation });
    await receive(ws, attack(1));
    assert.deepEqual(shownAll(page, [1]), { 1: "undo" });
    assert.deepEqual(page.drawn(), [[1, "new"]]);

    await receive(ws, attack(2));
    assert.deepEqual(shownAll(page, [1, 2]), { 1: "", 2: "undo" }, "attack B: A's card loses its Undo, B's has it");
    assert.deepEqual(page.drawn(), [[2, "new"], [1, "redrawn"]], "B drawn once, as Foundry posts it; A drawn again");

    await receive(ws, undo(3, 2));
    assert.deepEqual(shownAll(page, [1, 2]), { 1: "undo", 2: "redo" }, "B undone: its card shows Redo, A's Undo again");
    assert.deepEqual(page.drawn().sort(), [[1, "redrawn"], [2, "redrawn"]]);

    await receive(ws, redo(4, 2));
    assert.deepEqual(shownAll(page, [1, 2]), { 1: "", 2: "undo" }, "B redone: back");
    assert.deepEqual(page.drawn().sort(), [[1, "redrawn"], [2, "redrawn"]]);

    // another GM's changes (the web view, another client), one without a card (an adjust), and its undo
    await receive(ws, attack(5));
    assert.deepEqual(shownAll(page, [1, 2, 5]), { 1: "", 2: "", 5: "undo" }, "another GM's attack: its card has the Undo");
    assert.deepEqual(page.drawn(), [[5, "new"], [2, "redrawn"]]);
    await receive(ws, adjusted(6));
    assert.deepEqual(shownAll(page, [1, 2, 5]), { 1: "", 2: "", 5: "" }, "a change without a card: no card's event is the latest");
    assert.deepEqual(page.drawn(), [[5, "redrawn"]]);
    await receive(ws, undo(7, 6));
    assert.deepEqual(shownAll(page, [1, 2, 5]), { 1: "", 2: "", 5: "undo" }, "that change undone: undo takes #5 again");
    assert.deepEqual(page.drawn(), [[5, "redrawn"]]);

    assert.equal(game.messages.size, 3, "no message made but the three cards");
    assert.deepEqual(ws.messages().map((m) => m.type), ["hello"], "nothing sent");
  });

  test(`v${generation}: a player's cards never get Undo or Redo as the table moves, and none is drawn again`, async () => {
    const { ws, page } = await openPage({ generation, user: USERS[1]._id });
    // the GM's client posts the cards; the events reach the player's own connection
    for (const [event, posted] of [[attack(1), 1], [attack(2), 2], [undo(3, 2)], [redo(4, 2)], [attack(5), 5], [undo(6, 5)]]) {
      if (posted) await ChatMessage._fromWorld({ data: card(posted), user: USERS[0]._id });
      await receive(ws, event);
      const seqs = game.messages.contents.map((m) => m.flags.rollbridge.seq);
      assert.deepEqual(shownAll(page, seqs), Object.fromEntries(seqs.map((n) => [n, ""])), `after #${event.seq}`);
    }
    assert.deepEqual(page.drawn().filter(([, how]) => how === "redrawn"), [], "nothing drawn again");
    assert.deepEqual(ws.messages().map((m) => m.type), ["hello"], "nothing sent");
  });
}

test("a long log: an event draws again only the cards whose Undo or Redo it moves", async () => {
  // 400 messages before the welcome, 150 of them cards (#1..#150); undo takes #150
  const { ws, page } = await openPage({ generation: 13, log: 400, cards: 150, seq: 150, undo: [149, 150] });
  assert.deepEqual(shownAll(page, [149, 150]), { 149: "", 150: "undo" });
  assert.deepEqual(page.drawn(), [[150, "redrawn"]], "the welcome: the latest change's card");
  // a second card of #149 (a turn hook's) that Foundry has not drawn (older than the log's batch)
  const older = new ChatMessage({ ...card(149), flags: { rollbridge: { ...card(149).flags.rollbridge, kind: "encounter.turn", hook: 0 } } });
  game.messages.set(older.id, older);
  await receive(ws, attack(151));
  assert.deepEqual(shownAll(page, [150, 151]), { 150: "", 151: "undo" });
  assert.deepEqual(page.drawn(), [[151, "new"], [150, "redrawn"]], "of 402 messages, one drawn again");
  await receive(ws, undo(152, 151), undo(153, 150));
  assert.deepEqual(shownAll(page, [149, 150, 151]), { 149: "undo", 150: "redo", 151: "" });
  assert.deepEqual(page.drawn().sort(), [[149, "redrawn"], [150, "redrawn"], [151, "redrawn"]],
    "two undos at once: the three cards they concern, each drawn again once");
  assert.equal(older.logged, false, "undo takes #149: its card Foundry has not drawn is left alone, not posted");
  assert.equal(game.messages.size, 402);
  assert.deepEqual(ws.messages().map((m) => m.type), ["hello"], "nothing sent");
});

test("events in a burst: the new card is drawn once, with the buttons it has once they are all in", async () => {
  const { ws, page } = await openPage({ generation: 12 });
  await receive(ws, attack(1));
  page.drawn();
  // attack #2 and its undo arrive together: #2's card is drawn after both (the module's queue)
  await receive(ws, attack(2), undo(3, 2));
  assert.deepEqual(shownAll(page, [1, 2]), { 1: "undo", 2: "redo" });
  assert.deepEqual(page.drawn(), [[2, "new"]], "#2 drawn once, with its Redo; #1 kept its Undo, not drawn again");
  const flagOf = (seq) => game.messages.contents.find((m) => m.flags.rollbridge?.seq === seq).flags.rollbridge.undoneAt;
  assert.equal(flagOf(2), 3, "#2 posted flagged undone (foundry/undone.mjs), not drawn again for it");
  await receive(ws, redo(4, 2), attack(5));
  assert.deepEqual(shownAll(page, [1, 2, 5]), { 1: "", 2: "", 5: "undo" });
  assert.deepEqual(page.drawn().sort(), [[1, "redrawn"], [2, "redrawn"], [5, "new"]], "#1 and #2 lose theirs, each drawn again once; #5 drawn once");
  assert.equal(flagOf(2), undefined, "the redo took #2's flag off");
});
