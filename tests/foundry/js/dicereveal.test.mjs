// A whispered card's dice (foundry/dice.mjs) as Dice So Nice treats a public
// card's (Dice3D#renderRolls and its showMessage): all the card's Rolls in one
// throw; revealed as showMessage reveals a message (its copy among v13's chat
// notifications removed, notified again with the sidebar collapsed, the log
// scrolled to the bottom, diceSoNiceRollComplete); shown after a throw that
// never ends (counted while the tab is visible); given up when deleted. The
// whole module is booted on the stand-in, with a page of the elements Dice So
// Nice's showMessage looks for.

import assert from "node:assert/strict";
import { test } from "node:test";

import { FakeWebSocket } from "./fakes.mjs";
import { bootModule, Standin, world } from "./standin.mjs";
import { diceTiming } from "../../../adapters/foundry/module/scripts/foundry/dice.mjs";

await world({ generation: 13, system: "shadowrun5e" });
Standin.installDiceSoNice({ version: 6, manual: true });
const api = await bootModule();

const ROLLING = "rb-dice-rolling";
const until = async (predicate, what, ms = 5000) => {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tick = () => new Promise((r) => setImmediate(r));

// the page: the chat log's <li> of each message and v13's #chat-notifications copies
globalThis.HTMLElement ??= class HTMLElement {};
class Element extends globalThis.HTMLElement {
  constructor(id, where, classes = []) {
    super();
    this.where = where;
    this.dataset = { messageId: id };
    const set = new Set(classes);
    this.classes = set;
    this.classList = { add: (c) => set.add(c), remove: (c) => set.delete(c), contains: (c) => set.has(c) };
  }
  querySelector() {
    return null;
  }
  remove() {
    page.splice(page.indexOf(this), 1);
  }
}
const page = [];
globalThis.CSS ??= { escape: (s) => s };
globalThis.document = {
  hidden: false,
  getElementById: () => null,
  querySelector: (selector) => globalThis.document.querySelectorAll(selector)[0] ?? null,
  querySelectorAll: (selector) => page.filter((e) => selector.includes(`"${e.dataset.messageId}"`)
    && (!selector.startsWith("#chat-notifications") || e.where === "notification")),
};
ui.chat.element = { querySelector: (selector) => page.find((e) => e.where === "log" && selector.includes(`"${e.dataset.messageId}"`)) ?? null };
const complete = [];
Hooks.on("diceSoNiceRollComplete", (id) => complete.push(id));

/** Foundry renders the message's <li> (the render hooks), and v13 notifies with a copy of it. */
function render(message) {
  const li = new Element(message.id, "log");
  page.push(li);
  Hooks.callAll("renderChatMessageHTML", message, li, {});
  const note = new Element(message.id, "notification", li.classes);
  page.push(note);
  return { li, note };
}
const die = (faces, result) => ({
  class: "Roll", formula: `1d${faces}`, options: {}, dice: [], total: result, evaluated: true,
  terms: [{ class: "Die", number: 1, faces, modifiers: [], options: {}, evaluated: true, results: [{ result, active: true }] }],
});
const messageOf = (seq) => Standin.log.messages.find((m) => m.flags.rollbridge?.seq === seq);
/** A GM-only resolution with `rolls`: its card whispered to the GM, who reads it (this client). */
async function secretCard(seq, rolls) {
  FakeWebSocket.last().receive({
    type: "event", table: "t1", epoch: 1, seq, kind: "resolution", request: `x${seq}`, gm_only: true,
    data: { action: "attack", actor: "a", narration: "hit", dice: [] }, actors: [], foundry: { speaker: null, rolls },
  });
  await until(() => messageOf(seq), "the card");
  return messageOf(seq);
}

test("a whispered card's Rolls are thrown together, in one showForRoll, as Dice So Nice throws a message's", async () => {
  await until(() => FakeWebSocket.last(), "the connection");
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 0, locale: "en", table: { id: "t1", actors: [] } });
  await until(() => api.status().status === "connected", "connected");
  const message = await secretCard(1, [die(6, 3), die(8, 5), die(10, 7)]);
  const { li } = render(message);
  const calls = Standin.log.showForRoll.filter((c) => c.messageID === message.id);
  assert.equal(calls.length, 1, "one throw");
  assert.deepEqual([calls[0].formula, calls[0].results], ["1d6 + 1d8 + 1d10", [3, 5, 7]]);
  assert.ok(li.classList.contains(ROLLING));
  Standin.landDice();
  await until(() => !li.classList.contains(ROLLING), "shown once the one throw landed");
});

test("the stand-in's Dice So Nice throws a public card's Rolls together too", async () => {
  FakeWebSocket.last().receive({
    type: "event", table: "t1", epoch: 1, seq: 2, kind: "roll", request: "r2",
    data: { formula: "1d6+1d8", total: 8 }, actors: [], foundry: { speaker: null, rolls: [die(6, 3), die(8, 5)] },
  });
  await until(() => messageOf(2), "the card");
  const [entry] = Standin.log.dice3d.filter((d) => d.message === messageOf(2).id);
  assert.deepEqual([entry.rolls.length, entry.throws], [2, 1]);
  Standin.landDice();
  await until(() => entry.landed, "landed");
});

test("revealed as Dice So Nice's showMessage reveals: the notification copy goes, notified again when collapsed, scrolled, diceSoNiceRollComplete", async () => {
  const scrolled = Standin.log.scrolled.length;
  ui.sidebar.expanded = false; // v13's sidebar collapsed: new messages show over the board
  try {
    const message = await secretCard(3, [die(6, 4)]);
    const { li, note } = render(message);
    assert.ok(note.classList.contains(ROLLING), "the notification's copy is hidden too");
    await tick();
    assert.deepEqual([Standin.log.notified.length, complete.includes(message.id)], [0, false], "nothing before the dice land");
    Standin.landDice();
    await until(() => complete.includes(message.id), "diceSoNiceRollComplete");
    assert.equal(li.classList.contains(ROLLING), false);
    assert.equal(page.includes(note), false, "the hidden notification removed");
    assert.deepEqual(Standin.log.notified.at(-1), { message: message.id, existing: message.id, newMessage: true });
    assert.deepEqual(Standin.log.scrolled.slice(scrolled), [{ popout: false }], "the log was at the bottom: scrolled there again");
  } finally {
    ui.sidebar.expanded = true;
  }
  // the sidebar open and the log scrolled up, a card another user wrote: no notification, no scroll
  ui.chat.isAtBottom = false;
  try {
    const before = [Standin.log.notified.length, Standin.log.scrolled.length];
    const message = await secretCard(4, [die(6, 2)]);
    message.author = "standinPlr00001";
    render(message);
    Standin.landDice();
    await until(() => complete.includes(message.id), "diceSoNiceRollComplete");
    assert.deepEqual([Standin.log.notified.length, Standin.log.scrolled.length], before);
  } finally {
    ui.chat.isAtBottom = true;
  }
});

test("a throw that never ends: the card shows after the timeout, counted only while the tab is visible", async () => {
  Object.assign(diceTiming, { timeoutMs: 120, stepMs: 10 });
  document.hidden = true; // a background tab: Dice So Nice parks the throw, the card waits with it
  try {
    const message = await secretCard(5, [die(6, 1)]);
    const { li } = render(message);
    await sleep(300);
    assert.ok(li.classList.contains(ROLLING), "a hidden tab's card waits, as a public card does");
    document.hidden = false;
    await until(() => !li.classList.contains(ROLLING), "shown after the timeout", 2000);
    assert.ok(complete.includes(message.id));
  } finally {
    document.hidden = false;
    Object.assign(diceTiming, { timeoutMs: 30000, stepMs: 250 });
    Standin.landDice();
  }
});

test("a card deleted while its dice roll is given up: no reveal, and rendered again it is not hidden", async () => {
  const message = await secretCard(6, [die(6, 6), die(8, 8)]);
  render(message);
  assert.equal(Standin.log.showForRoll.filter((c) => c.messageID === message.id).length, 1);
  await message.delete();
  await tick();
  const element = new Element(message.id, "log");
  Hooks.callAll("renderChatMessageHTML", message, element, {});
  assert.equal(element.classList.contains(ROLLING), false, "no longer rolling");
  Standin.landDice();
  await sleep(20);
  assert.equal(complete.includes(message.id), false, "a deleted card is not revealed");
  assert.equal(Standin.log.showForRoll.filter((c) => c.messageID === message.id).length, 1, "nothing more thrown for it");
});
