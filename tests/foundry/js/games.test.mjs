// What the audit of the module in real games found (notes: audit-foundry-games):
// behaviour of real Foundry v12/v13 and Dice So Nice the stand-in now models,
// and the module's answers to it.
//
// - F1: v12's ChatMessage#_preCreate applies the creating user's own chat roll
//   mode to a message with rolls and no whisper; a public card must not be
//   whispered because the GM keeps "Private GM Roll" on.
// - F2: Dice So Nice's showForRoll does not resolve while the GM's tab is
//   hidden; the one-at-a-time queue of events must not wait for it.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { registerModuleSettings, settle, Standin, welcomeClient, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
];
const [GM, PLAYER] = USERS.map((u) => u._id);

let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

function rollEvent(seq, { request = `r${seq}`, gmOnly = false, total = 4 } = {}) {
  return {
    type: "event", table: "t1", epoch: 1, seq, kind: "roll", request, ...(gmOnly ? { gm_only: true } : {}),
    data: { formula: "1d6", total, roll: { groups: [{ formula: "1d6", total, dice: [{ faces: 6, rolls: [total], value: total }] }] } },
    actors: [],
    foundry: {
      speaker: null,
      rolls: [{ class: "Roll", formula: "1d6", options: {}, dice: [], total, evaluated: true,
        terms: [{ class: "Die", number: 1, faces: 6, modifiers: [], options: {}, evaluated: true, results: [{ result: total, active: true }] }] }],
    },
  };
}

/** What `userId` can read of a message: [visible, content visible]. */
function readBy(message, userId) {
  const me = game.user;
  game.user = game.users.get(userId);
  try {
    return [message.visible, message.isContentVisible];
  } finally {
    game.user = me;
  }
}

async function gmClient({ generation = 13, settings = {} } = {}) {
  client?.stop();
  await world({ users: USERS, user: "gm", generation, settings });
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  return welcomeClient(client, { role: "gm" });
}

test("F1: the stand-in applies v12's _preCreate roll mode: the creating user's own, unless the message says", async () => {
  await world({ users: USERS, user: "gm", generation: 12 });
  await game.settings.set("core", "rollMode", "gmroll");
  const roll = () => Roll.fromData(rollEvent(1).foundry.rolls[0]);
  const plain = await ChatMessage.create({ content: "x", rolls: [roll()] });
  assert.deepEqual(plain.whisper, [GM], "v12: the GM's own mode whispers it");
  const told = await ChatMessage.create({ content: "x", rolls: [roll()] }, { rollMode: "publicroll" });
  assert.deepEqual(told.whisper, []);
  const noRolls = await ChatMessage.create({ content: "x" });
  assert.deepEqual(noRolls.whisper ?? [], [], "a message without rolls is not a roll");
  await world({ users: USERS, user: "gm", generation: 13 });
  await game.settings.set("core", "rollMode", "gmroll");
  assert.deepEqual((await ChatMessage.create({ content: "x", rolls: [roll()] })).whisper ?? [], [], "v13 applies options.rollMode only");
});

for (const mode of ["gmroll", "blindroll", "selfroll"]) {
  test(`F1: on v12 a public card stays public when the GM's own chat roll mode is ${mode}`, async () => {
    const ws = await gmClient({ generation: 12 });
    await game.settings.set("core", "rollMode", mode);
    ws.receive(rollEvent(1));
    await settle(client);
    const message = Standin.log.messages.find((m) => m.flags.rollbridge?.seq === 1);
    assert.ok(message, "the card");
    assert.deepEqual(message.whisper, []);
    assert.ok(!message.blind);
    assert.deepEqual(readBy(message, PLAYER), [true, true], "the player reads it");
    assert.equal(message.rolls.length, 1);
  });
}

test("F2: a whispered card's dice in a hidden tab hold up neither its card nor later cards and actor writes", async () => {
  const ws = await gmClient({ generation: 13 });
  Standin.installDiceSoNice({ version: 6, hidden: true });
  const pc = Standin.addActor({ _id: "fvttPc0000000001", name: "Pc", ownership: { [PLAYER]: 3 }, flags: { rollbridge: { actorId: "pc" } } });
  client.modes.note("p-gm", { user: PLAYER, mode: "gmroll", gm: false }); // a player's GM roll: not blind
  ws.receive(rollEvent(1, { request: "p-gm", gmOnly: true }));
  const hurt = { id: "pc", foundry: { flags: { rollbridge: { common: { tracks: [{ key: "hp", value: 3, max: 10 }] } } } } };
  ws.receive({ ...rollEvent(2, { request: "p-public" }), actors: [hurt] });
  for (let i = 0; i < 50 && Standin.log.messages.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
  const seqs = Standin.log.messages.map((m) => m.flags.rollbridge?.seq);
  assert.deepEqual(seqs, [1, 2], "both cards, in order, while the tab is hidden");
  assert.equal(Standin.log.showForRoll.length, 1, "the whispered card's dice were asked for");
  assert.deepEqual(Standin.log.showForRoll[0].whisper.sort(), [GM, PLAYER].sort());
  assert.deepEqual(pc.flags.rollbridge.common.tracks[0].value, 3, "the actor is written");
  Standin.setTabHidden(false);
  await settle(client);
  assert.equal(Standin.log.messages.length, 2, "nothing posted twice once the tab is visible");
  delete game.dice3d;
});
