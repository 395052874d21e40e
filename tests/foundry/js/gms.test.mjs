// Two GMs logged in at once (foundry10 audit): only the active GM's client acts for
// the table. Foundry's Users#activeGM is a getter read at each call — the active GMs,
// a full gamemaster before an assistant, then by id compared by code unit — and a
// user connecting or leaving runs userConnected(user, active) after its `active`
// changed; the stand-in models both (setUserActive). A GM who is not the active GM
// has no connection, so its cards offer nothing it cannot send.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { addButtons, cardOf, press } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { FakeMessageElement } from "./elements.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { bootModule, registerModuleSettings, settle, Standin, welcomeClient, world } from "./standin.mjs";

// ids chosen so that code-unit order ("B" < "a") and locale order ("a" < "B") differ
const GM = "standinGM000001";
const OTHER_GM = "BstandinGM00002";
const ASSISTANT = "AstandinAs00003";
const PLAYER = "standinPlr00001";
const ROLES = { ASSISTANT: 3, GAMEMASTER: 4 };

const users = ({ otherActive = false, assistantActive = false } = {}) => [
  { _id: GM, name: "Gamemaster", role: ROLES.GAMEMASTER },
  { _id: OTHER_GM, name: "Second GM", role: ROLES.GAMEMASTER, active: otherActive },
  { _id: ASSISTANT, name: "Assistant", role: ROLES.ASSISTANT, active: assistantActive },
  { _id: PLAYER, name: "Player" },
];

/** Let the module's queue of arrivals run (Node's turns, not a clock). */
async function turns(n = 30) {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

test("the stand-in's activeGM is Foundry's: a full GM before an assistant, ids by code unit, read at each call", async () => {
  await world({ users: users({ assistantActive: true }), user: GM });
  assert.equal(game.users.get(ASSISTANT).isGM, true, "an assistant is a GM (hasRole ASSISTANT)");
  assert.equal(game.users.activeGM?.id, GM, "a full GM before an assistant whose id sorts first");
  assert.equal(Standin.setUserActive(OTHER_GM, true), true);
  assert.equal(game.users.activeGM?.id, OTHER_GM, "'B…' before 's…' by code unit");
  Standin.setUserActive(OTHER_GM, false);
  assert.equal(game.users.activeGM?.id, GM, "read again: the one who left is no longer it");
  assert.equal(Standin.setUserActive(GM, false), false, "this page's own user is not told of itself");
});

test("a GM who is not the active GM: its approval card offers no approve or reject, and a press says another GM is the active GM", async () => {
  client?.stop();
  await world({ users: users({ otherActive: true }), user: GM });
  await registerModuleSettings();
  game.ready = true;
  assert.equal(game.users.activeGM?.id, OTHER_GM);
  client = new FoundryClient();
  client.start();
  assert.equal(client.connection, null, "only the active GM's client connects");
  // the active GM's client posted it, whispered to every GM
  const message = await ChatMessage.create({
    content: '<div class="rollbridge-card"></div>', whisper: [GM, OTHER_GM],
    flags: { rollbridge: { table: "t1", epoch: 1, seq: 3, kind: "approval.requested", pending: "p3", secret: true, view: "gm" } },
  });
  const element = new FakeMessageElement();
  assert.equal(addButtons(message, element, client), 0, "no button it could not send");
  assert.equal(element.card.shown, "");
  // a card drawn with them while this client still was the active GM's
  Standin.log.notifications.length = 0;
  assert.equal(await press("approve", cardOf(message), client), null);
  assert.deepEqual(Standin.log.notifications.map((n) => n.level), ["error"]);
  assert.ok(Standin.log.notifications[0].text.includes(game.i18n.localize("ROLLBRIDGE.Notice.NotActiveGM")),
    Standin.log.notifications[0].text);
  // so does a roll or an odds request of its own: why it cannot, not only that
  await assert.rejects(client.roll("2d6"), (error) => error.key === "ROLLBRIDGE.Notice.NotActiveGM");
  await assert.rejects(client.draw({ type: "draw" }), (error) => error.key === "ROLLBRIDGE.Notice.NotActiveGM" && error.code === "not_connected");
});

test("a GM who becomes the active GM gets Approve and Reject on the card it drew without them", async () => {
  client?.stop();
  await world({ users: users({ otherActive: true }), user: GM });
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  const message = await ChatMessage.create({
    content: '<div class="rollbridge-card"></div>', whisper: [GM, OTHER_GM],
    flags: { rollbridge: { table: "t1", epoch: 1, seq: 3, kind: "approval.requested", pending: "p3", secret: true, view: "gm" } },
  });
  await turns();
  assert.equal(addButtons(message, new FakeMessageElement(), client), 0);
  // the other GM leaves (the module's userConnected hook asks again who writes)
  Standin.setUserActive(OTHER_GM, false);
  client.reconsider();
  assert.equal(client.writer, true);
  welcomeClient(client, { role: "gm", seq: 3 });
  await settle(client);
  assert.ok(Standin.log.rendered.some((r) => r.message === message.id && r.updated), "the card drawn again, in place");
  const element = new FakeMessageElement();
  assert.equal(addButtons(message, element, client), 4);
  assert.match(element.card.shown, /"approve".*"approve-dice".*"reject".*"reject-reason"/s);
});

test("the active GM's client losing that to another GM draws its approval card again without Approve and Reject", async () => {
  client?.stop();
  await world({ users: users(), user: GM });
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  welcomeClient(client, { role: "gm", seq: 3 });
  const message = await ChatMessage.create({
    content: '<div class="rollbridge-card"></div>', whisper: [GM, OTHER_GM],
    flags: { rollbridge: { table: "t1", epoch: 1, seq: 3, kind: "approval.requested", pending: "p3", secret: true, view: "gm" } },
  });
  await settle(client);
  assert.equal(addButtons(message, new FakeMessageElement(), client), 4, "Approve, Approve with my dice…, Reject, Reject with a reason…");
  const redrawn = () => Standin.log.rendered.filter((r) => r.message === message.id && r.updated).length;
  const before = redrawn();
  Standin.setUserActive(OTHER_GM, true);
  client.reconsider();
  assert.equal(client.writer, false);
  await settle(client);
  assert.equal(redrawn(), before + 1, "the card drawn again, in place");
  assert.equal(addButtons(message, new FakeMessageElement(), client), 0);
});

test("the writer changes hands as GMs come and go: one connection at a time, the new one resumes where the last stopped", async () => {
  client?.stop();
  await world({ users: users(), user: GM, settings: { "rollbridge.combatTracker": false } });
  Standin.addActor({ _id: "fvttGuard0000002", name: "Guard" });
  await bootModule();
  const api = game.modules.get("rollbridge").api;
  const first = FakeWebSocket.last();
  first.open();
  const hello = first.messages().find((m) => m.type === "hello");
  first.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 4, locale: "en", table: { id: "t1", actors: [] } });
  const common = (value) => ({ status: "ok", tracks: [{ key: "physical", label: "Physical", value, max: 10 }], conditions: [] });
  const adjusted = (seq, value) => ({
    type: "event", table: "t1", epoch: 1, seq, kind: "adjusted", data: {},
    actors: [{ id: "fvttGuard0000002", name: "Guard", common: common(value),
      foundry: { flags: { rollbridge: { actorId: "fvttGuard0000002", table: "t1", seq, limited: false, common: common(value) } }, systems: {} } }],
  });
  first.receive(adjusted(5, 1));
  await turns();
  assert.equal(Standin.log.updates.length, 1, "the active GM's client writes");
  assert.deepEqual(game.settings.get("rollbridge", "cursor"), { table: "t1", epoch: 1, seq: 5 });

  // an assistant GM logs in: a full GM stays the active GM, nothing changes hands
  Standin.setUserActive(ASSISTANT, true);
  assert.equal(first.closedWith, null);
  assert.equal(api.status().writer, true);

  // a full GM whose id sorts first logs in: it is the active GM now, this client stops
  Standin.setUserActive(OTHER_GM, true);
  assert.equal(api.status().writer, false);
  assert.ok(first.closedWith, "this client's connection closed");
  assert.equal(FakeWebSocket.instances.length, 1, "and no other opened");
  first.receive(adjusted(6, 2));
  await turns();
  assert.equal(Standin.log.updates.length, 1, "no second writer: nothing written here");
  assert.ok(Standin.log.notifications.some((n) => n.text.includes(game.i18n.localize("ROLLBRIDGE.Notice.NotActiveGM"))));

  // it leaves again: this client is the writer once more and resumes from the saved cursor
  Standin.setUserActive(OTHER_GM, false);
  assert.equal(api.status().writer, true);
  assert.equal(FakeWebSocket.instances.length, 2);
  const again = FakeWebSocket.last();
  again.open();
  const resume = again.messages().find((m) => m.type === "hello");
  assert.deepEqual(resume.resume, { epoch: 1, seq: 5 });
});
