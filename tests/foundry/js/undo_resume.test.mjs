// The GM's Foundry client after a reload: the writer resumes from its saved
// cursor and the server recovers the missed events (no snapshot). Its welcome
// still says what undo and redo take (`undo_redo`): the tracker should start
// from it, and the card's Undo name its event (docs/foundry.md).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { addButtons, press } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { drawMessages } from "./elements.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { registerModuleSettings, settle, Standin, world } from "./standin.mjs";

const USERS = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" }];
let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

test("a GM resumed from its saved cursor (recovered) follows the welcome's undo_redo", async () => {
  await world({ users: USERS, user: "gm", generation: 13 });
  await registerModuleSettings();
  await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 4 });
  client = new FoundryClient();
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  assert.deepEqual(hello.resume, { epoch: 1, seq: 4 });
  ws.receive({
    type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 5, locale: "en",
    resume: { recovered: true, missed: 1 },
    table: { id: "t1", actors: [], undo_redo: { seq: 5, undo: [2, 5], redo: [], retain: 1000, depth: 100 } },
  });
  // the missed event: the welcome's stacks hold it already
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 5, kind: "adjusted", data: { actor: "g" }, actors: [{ id: "g" }] });
  await settle(client);
  assert.ok(client.undo.named, "the server said what undo takes: the module names the card's event");
  assert.deepEqual(client.undo.undo, [2, 5]);
  // a card of #5, pressed: the request names it
  const count = ws.messages().length;
  const pressed = press("undo", { table: "t1", epoch: 1, kind: "adjusted", seq: 5 }, client);
  for (let i = 0; i < 50 && ws.messages().length === count; i++) await new Promise((r) => setImmediate(r));
  const sent = ws.messages().at(-1);
  ws.receive({ type: "error", id: sent.id, code: "nothing_to_undo", message: "-" });
  await pressed.catch(() => null);
  assert.deepEqual({ type: sent.type, seq: sent.seq }, { type: "undo", seq: 5 });
});

// -- the cards Foundry drew before the welcome ------------------------------------------------------
// A reload draws the chat log (the render hooks, the module's buttons with them) before
// the connection is welcomed: the undo tracker is empty then, so no card shows Undo or
// Redo. Once the welcome (a snapshot, or a recovered resume) says what undo and redo
// take, the module draws again the cards in the log whose buttons that changes
// (ChatLog#updateMessage), and nothing else.

const card = (seq, extra = {}) => ({
  content: `<div class="rollbridge-card" data-epoch="1" data-seq="${seq}">#${seq}</div>`,
  speaker: { alias: "Tukan" }, author: USERS[0]._id,
  flags: { rollbridge: { table: "t1", epoch: 1, seq, kind: "resolution", ...extra } },
});

/**
 * A page reloaded with the world's chat: cards of #2 to #5 and a plain message drawn in
 * the log, and a second card of #3 (a turn hook's) that Foundry has not drawn (older
 * than the log's batch). The render hook is the module's (rollbridge.mjs): v13's
 * renderChatMessageHTML, v12's renderChatMessage. Returns the messages and the
 * element each was last drawn into.
 */
async function reloadedPage({ generation, user, settings = {} }) {
  client?.stop();
  await world({ users: USERS, user, generation, settings });
  await registerModuleSettings();
  client = new FoundryClient();
  const elements = drawMessages(generation, (message, html) => addButtons(message, html, client));
  const messages = {};
  for (const seq of [2, 3, 4, 5]) messages[seq] = await ChatMessage._fromWorld({ data: card(seq), user: USERS[0]._id });
  messages.plain = await ChatMessage._fromWorld({ data: { content: "hello", author: USERS[1]._id }, user: USERS[1]._id });
  messages.older = new ChatMessage(card(3, { kind: "encounter.turn", hook: 0 }));
  game.messages.set(messages.older.id, messages.older);
  return { messages, elements };
}

/** The undo and redo each drawn card shows, by seq ("" for none). */
const shown = (messages, elements) => Object.fromEntries([2, 3, 4, 5].map((seq) => {
  const html = elements.get(messages[seq].id).card.shown;
  return [seq, ["undo", "redo"].filter((action) => html.includes(`data-rollbridge-action="${action}"`)).join(" ")];
}));
const STACKS = { seq: 5, undo: [2, 3], redo: [5, 4], retain: 1000, depth: 100 };
const NONE = { 2: "", 3: "", 4: "", 5: "" };

for (const generation of [12, 13]) {
  for (const resumed of [false, true]) {
    test(`v${generation}: a GM's reload (${resumed ? "a recovered resume" : "a snapshot"}): the cards drawn before the welcome get their Undo and Redo after it`, async () => {
      const { messages, elements } = await reloadedPage({ generation, user: "gm" });
      if (resumed) await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 5 });
      assert.deepEqual(shown(messages, elements), NONE, "drawn before the welcome: nothing known");
      const drawn = Standin.log.rendered.length;
      const count = game.messages.size;
      client.start();
      const ws = FakeWebSocket.last();
      ws.open();
      const hello = ws.messages().find((m) => m.type === "hello");
      assert.deepEqual(hello.resume ?? null, resumed ? { epoch: 1, seq: 5 } : null);
      ws.receive({
        type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 5, locale: "en",
        ...(resumed ? { resume: { recovered: true, missed: 0 } } : {}),
        table: { id: "t1", actors: [], undo_redo: STACKS },
      });
      await settle(client);
      assert.deepEqual(shown(messages, elements), { 2: "", 3: "undo", 4: "redo", 5: "" },
        "the undo's and the redo's card; the cards under them (stale) get none");
      const again = Standin.log.rendered.slice(drawn);
      assert.deepEqual(again.map((r) => [r.message, r.updated]).sort(), [[messages[3].id, true], [messages[4].id, true]].sort(),
        "those two drawn again in place, nothing posted");
      assert.equal(messages.older.logged, false, "a card Foundry has not drawn is not put into the log");
      assert.equal(game.messages.size, count, "no message made");
      assert.deepEqual(ws.messages().map((m) => m.type), ["hello"], "nothing sent");
      // the undo's button does what a card drawn after the welcome does
      elements.get(messages[3].id).card.buttons.click("undo");
      for (let i = 0; i < 50 && ws.messages().length === 1; i++) await new Promise((r) => setImmediate(r));
      assert.deepEqual({ ...ws.messages().at(-1), id: undefined }, { type: "undo", seq: 3, id: undefined });
    });
  }

  test(`v${generation}: a player's reload: the welcome says nothing of undo, no card is drawn again`, async () => {
    const { messages, elements } = await reloadedPage({ generation, user: USERS[1]._id });
    const drawn = Standin.log.rendered.length;
    client.start();
    const ws = FakeWebSocket.last();
    ws.open();
    const hello = ws.messages().find((m) => m.type === "hello");
    ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "player", epoch: 1, seq: 5, locale: "en", table: { id: "t1", actors: [] } });
    await settle(client);
    assert.deepEqual(shown(messages, elements), NONE);
    assert.deepEqual(Standin.log.rendered.slice(drawn), [], "nothing drawn again");
  });
}

test("a GM's reconnect whose stacks moved on: a card that showed Undo loses it, the new latest gets it", async () => {
  const { messages, elements } = await reloadedPage({ generation: 13, user: "gm" });
  client.start();
  let ws = FakeWebSocket.last();
  ws.open();
  let hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 5, locale: "en", table: { id: "t1", actors: [], undo_redo: STACKS } });
  await settle(client);
  assert.deepEqual(shown(messages, elements), { 2: "", 3: "undo", 4: "redo", 5: "" });
  // the connection drops; meanwhile another GM undid #3 and the log's retained events moved
  // past the resume: the next welcome is a snapshot whose stacks say #2 and #3
  ws.drop();
  client.start();
  ws = FakeWebSocket.last();
  ws.open();
  hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 6, locale: "en",
    table: { id: "t1", actors: [], undo_redo: { ...STACKS, seq: 6, undo: [2], redo: [5, 4, 3] } } });
  await settle(client);
  assert.deepEqual(shown(messages, elements), { 2: "undo", 3: "redo", 4: "", 5: "" });
});

test("the cards of another table, or of the table's earlier epoch, never get its Undo or Redo", async () => {
  // a world's chat keeps the cards of every table it played at (and of a table restored
  // or made again: another epoch); their seqs are another log's. A card #3 of table t0
  // with Undo, pressed, would have sent `undo seq 3` to t1 and undone t1's #3.
  const { messages, elements } = await reloadedPage({ generation: 13, user: "gm" });
  const foreign = {};
  foreign.table = await ChatMessage._fromWorld({ data: { ...card(3), flags: { rollbridge: { table: "t0", epoch: 1, seq: 3, kind: "resolution" } } }, user: USERS[0]._id });
  foreign.epoch = await ChatMessage._fromWorld({ data: { ...card(4), flags: { rollbridge: { table: "t1", epoch: 0, seq: 4, kind: "resolution" } } }, user: USERS[0]._id });
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 5, locale: "en", table: { id: "t1", actors: [], undo_redo: STACKS } });
  await settle(client);
  assert.deepEqual(shown(messages, elements), { 2: "", 3: "undo", 4: "redo", 5: "" });
  const buttons = (message) => ["undo", "redo"].filter((a) => elements.get(message.id).card.shown.includes(`data-rollbridge-action="${a}"`));
  assert.deepEqual(buttons(foreign.table), [], "another table's #3");
  assert.deepEqual(buttons(foreign.epoch), [], "an earlier epoch's #4");
  // a press of such a card (drawn by an older module) sends nothing
  const count = ws.messages().length;
  assert.equal(await press("undo", { table: "t0", epoch: 1, kind: "resolution", seq: 3 }, client), null);
  assert.equal(ws.messages().length, count, "nothing sent");
  // nor does an event of the table draw them again with one
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 6, kind: "adjusted", data: { actor: "g" }, actors: [{ id: "g" }] });
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 7, kind: "undo", data: { undoes: 6 }, actors: [] });
  await settle(client);
  assert.deepEqual(buttons(foreign.table), []);
});
