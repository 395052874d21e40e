// The turn hooks' cards (core/hooks.mjs): the server's `encounter.started` and
// `encounter.turn` events carry `data.hooks`, each ruleset round or turn rule's
// result (a dying bandit's countdown and death, BD-8; sr2's pool refill, SR-14;
// wilddie's Shaken recovery roll, WD-9). The active GM's client posts each as a
// chat card, the same card as a resolution's, exactly once per event and hook:
// a public one from the players' view the GM's frame carries (`players`), none
// from a player's client, none again after a GM's reload. The events are the
// frames a real server sent a Foundry GM (tests/foundry/test_foundry_adapter.py
// checks that the GM's frame carries `players` and the hooks' Rolls), trimmed
// to what the module reads.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { renderCard } from "../../../adapters/foundry/module/scripts/core/card.mjs";
import { hookCard, hookCards, hookShows } from "../../../adapters/foundry/module/scripts/core/hooks.mjs";
import { cardPosted, cardToLocalize, EventCache } from "../../../adapters/foundry/module/scripts/core/state.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { localization } from "./localization.mjs";
import { registerModuleSettings, settle, Standin, welcomeClient, welcomeResumed, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
];
const [GM, PLAYER] = USERS.map((u) => u._id);

const dead = (id, name, status) => ({
  id, name, controllers: [], limited: true,
  common: { status, tracks: [{ key: "wounds", label: "Wound slots", value: 1, max: 4 }], conditions: [status === "dead" ? "Dead" : "Dying"] },
});

/** bandits (BD-8): Boss's turn ends and it dies, Vic's turn starts and it is dying — one event, two hooks. */
function banditsTurn(seq = 5) {
  const frame = (gm) => ({
    type: "event", table: "t1", kind: "encounter.turn", epoch: 1, seq, request: `n${seq}`,
    data: {
      round: 1, turn: 1, actor: "vic",
      hooks: [
        {
          hook: "on_turn_end", actor: "boss", narration: "Boss dies: nobody stabilised them in time (BD-8)",
          outcome: { event: "died", actor: "boss", state: gm ? { slots: { dying: true }, stabilised: false, dead: true } : null },
          steps: ["BD-8: Boss was dying when this turn began and was not stabilised before it ended"], dice: [],
        },
        {
          hook: "on_turn_start", actor: "vic", narration: "Vic is dying: dead at the end of this turn unless stabilised (BD-8)",
          outcome: { event: "turn_start", actor: "vic", dying_countdown: true },
          steps: ["Vic is dying: dead at the end of this turn unless stabilised (BD-8)"], dice: [],
        },
      ],
    },
    actors: [dead("boss", "Boss", "dead"), dead("vic", "Vic", "dying")],
    foundry: { hooks: [{ rolls: [], speaker: { actor: "boss", alias: "Boss" } }, { rolls: [], speaker: { actor: "vic", alias: "Vic" } }] },
  });
  return { ...frame(true), players: frame(false) };
}

/** sr2 (SR-14): the first round refills every Combat Pool; the guard's (71) is the GM's alone. */
function sr2Start(seq = 3) {
  const frame = (gm) => ({
    type: "event", table: "t1", kind: "encounter.started", epoch: 1, seq, request: `s${seq}`,
    data: {
      hooks: [{
        hook: "on_round_start", actor: null, narration: "Combat turn 1: every Combat Pool is refilled.",
        outcome: { pools: gm ? { guard: 71, tukan: 6 } : { tukan: 6 } },
        steps: [gm ? "Combat turn 1 (SR-14): guard 71, tukan 6" : "Combat turn 1 (SR-14): guard (hidden), tukan 6"],
        dice: [],
      }],
    },
    actors: [],
    foundry: { hooks: [{ rolls: [], speaker: null }] },
  });
  return { ...frame(true), players: frame(false) };
}

/** wilddie (WD-9): the Shaken guard's recovery roll at the start of its turn, a Character d6 rolling 2. */
const RECOVERY_ROLL = {
  class: "Roll", formula: "1d6x", options: { flavor: "Recovery: Character d6" }, dice: [], total: 2, evaluated: true,
  terms: [{ class: "Die", options: {}, evaluated: true, number: 1, faces: 6, modifiers: ["x"], results: [{ result: 2, active: true }] }],
};
function wilddieTurn(seq = 4) {
  const frame = (gm) => ({
    type: "event", table: "t1", kind: "encounter.turn", epoch: 1, seq, request: `n${seq}`,
    data: {
      round: 1, turn: 1, actor: "guard",
      hooks: [{
        hook: "on_turn_start", actor: "guard", narration: "Guard tries to recover: 2 against 4, stays Shaken",
        outcome: { total: 2, success: false, raises: 0, ...(gm ? { chips_left: 47 } : {}) },
        steps: ["round 1: Guard's turn starts Shaken (dice rolled by the player)", "Character d6 rolled 2", "WD-9: failure: still Shaken"],
        dice: [{ label: "Recovery: Character d6", dice: [{ faces: 6, rolls: [2], value: 2 }], formula: "1d6!!", total: 2, target: 4, successes: 0, note: "failure" }],
      }],
    },
    actors: [{ id: "guard", name: "Guard", controllers: [], common: { status: "impaired", tracks: [], conditions: ["Shaken"] }, ...(gm ? {} : { limited: true }) }],
    foundry: { hooks: [{ rolls: [RECOVERY_ROLL], speaker: { actor: "guard", alias: "Guard" } }] },
  });
  return { ...frame(true), players: frame(false) };
}

test("each hook that shows something is one card, a resolution's data titled by its hook, with its players' view", () => {
  const event = banditsTurn();
  const cards = hookCards(event, { role: "gm" });
  assert.deepEqual(cards.map((c) => [c.kind, c.seq, c.hook, c.data.hook, c.data.actor]), [
    ["encounter.turn", 5, 0, "on_turn_end", "boss"],
    ["encounter.turn", 5, 1, "on_turn_start", "vic"],
  ]);
  const [death, countdown] = cards;
  assert.equal(death.data.narration, "Boss dies: nobody stabilised them in time (BD-8)");
  assert.deepEqual(death.foundry.speaker, { actor: "boss", alias: "Boss" });
  // each turn hook's card shows its own actor's new state
  assert.deepEqual(death.actors.map((a) => a.id), ["boss"]);
  assert.deepEqual(countdown.actors.map((a) => a.id), ["vic"]);
  // the players' view of the same hook: the GM's hidden state left out
  assert.ok(death.data.outcome.state, "the GM's view");
  assert.equal(death.players.data.outcome.state, null);
  assert.equal(death.players.hook, 0);
  assert.ok(!death.gm_only, "public: the GM's frame carries the players' view");
  // a round hook's card shows every actor the event changed
  const round = hookCard({ ...event, data: { hooks: [{ ...event.data.hooks[0], hook: "on_round_start", actor: null }] } }, 0);
  assert.deepEqual(round.actors.map((a) => a.id), ["boss", "vic"]);
  assert.equal(round.foundry.speaker.actor, "boss", "the server's speaker is kept");
});

test("no card for a hook that shows nothing, for an event without hooks or of another kind", () => {
  assert.equal(hookShows({ hook: "on_turn_start", actor: "a", narration: "", steps: [], dice: [] }), false);
  assert.equal(hookShows({ narration: "x" }), true);
  const empty = { ...banditsTurn(), data: { hooks: [{ hook: "on_turn_end", actor: "boss", narration: "", steps: [], dice: [] }] } };
  assert.deepEqual(hookCards(empty), []);
  assert.deepEqual(hookCards({ ...sr2Start(), data: { hooks: [] } }), []);
  assert.deepEqual(hookCards({ ...banditsTurn(), kind: "encounter.reordered" }), []);
  assert.deepEqual(hookCards({ kind: "resolution", data: { hooks: banditsTurn().data.hooks } }), []);
  assert.equal(hookCard(banditsTurn(), 2), null);
  // an actor a turn hook changed that is not its own is shown on the event's last card
  const other = banditsTurn();
  other.actors.push(dead("ana", "Ana", "dying"));
  assert.deepEqual(hookCards(other).map((c) => c.actors.map((a) => a.id)), [["boss"], ["vic", "ana"]]);
});

test("a GM's event without the players' view (an older server): its hook cards are GM-only", () => {
  const { players: _players, ...older } = sr2Start();
  const [card] = hookCards(older, { role: "gm" });
  assert.equal(card.gm_only, true);
  assert.equal(hookCards(older, { role: "player" })[0].gm_only, undefined, "a player's event is the players' view already");
});

test("the card is a resolution's card: the hook's title in the user's language, its narration, dice and steps", async () => {
  const [card] = hookCards(wilddieTurn());
  for (const [lang, title] of [["en", "Start of turn"], ["cs", "Začátek tahu"], ["de", "Zugbeginn"], ["ru", "Начало хода"]]) {
    const i18n = await localization(lang);
    const html = renderCard(card, { speakerName: "Guard", showWho: false, i18n });
    assert.match(html, new RegExp(`<span class="rb-title">${title}</span>`), lang);
    assert.match(html, /^<div class="rollbridge-card" data-kind="encounter.turn" data-seq="4" data-epoch="1" data-hook="0">/);
  }
  const html = renderCard(card, { showWho: false, i18n: await localization("en") });
  assert.match(html, /<p class="rb-narration">Guard tries to recover: 2 against 4, stays Shaken<\/p>/);
  assert.match(html, /<li class="rb-die d6" data-value="2"/, "the recovery roll's die");
  assert.match(html, /Recovery: Character d6/);
  assert.match(html, /WD-9: failure: still Shaken/);
  assert.match(html, /<div class="rb-state rb-status-impaired">.*Shaken/, "the guard's new state");
  // the players' view: the sr2 guard's pool only as "(hidden)"
  const [refill] = hookCards(sr2Start());
  const players = renderCard(refill.players, { showWho: false, i18n: await localization("en") });
  assert.doesNotMatch(players, /71/);
  assert.match(players, /guard \(hidden\), tukan 6/);
  assert.match(renderCard(refill, { showWho: false }), /guard 71/, "the GM's view has it");
});

test("a hook's card is told from the event's other hooks' cards: posted once each, drawn again from its own hook", () => {
  const event = banditsTurn();
  const [death, countdown] = hookCards(event, { role: "gm" });
  const posted = [{ flags: { rollbridge: { table: "t1", epoch: 1, seq: 5, kind: "encounter.turn", hook: 0 } } }];
  assert.equal(cardPosted(posted, death), true);
  assert.equal(cardPosted(posted, countdown), false, "the other hook's card is not posted yet");
  assert.equal(cardPosted([{ flags: { rollbridge: { table: "t1", epoch: 1, seq: 5, kind: "encounter.turn" } } }], death), false);
  // the cache keeps encounter events; a card of hook 1 is drawn again from hook 1
  const cache = new EventCache();
  assert.equal(cache.add(event), "t1|1|5");
  const flags = { table: "t1", epoch: 1, seq: 5, kind: "encounter.turn", hook: 1, lang: "en", secret: false, view: "players" };
  const shown = { whisper: [], blind: false, visible: true, isContentVisible: true };
  const forGM = cardToLocalize({ flags, lang: "en", cache, user: { id: GM, isGM: true }, message: shown });
  assert.equal(forGM.hook, 1);
  assert.equal(forGM.data.narration, "Vic is dying: dead at the end of this turn unless stabilised (BD-8)");
  assert.ok(forGM.players, "the GM's own event: the full card");
  const forPlayer = cardToLocalize({ flags, lang: "cs", cache, user: { id: PLAYER, isGM: false }, message: shown });
  assert.equal(forPlayer.hook, 1);
  assert.equal(forPlayer.players, undefined, "a player is drawn the players' view only");
  assert.equal(cardToLocalize({ flags: { ...flags, hook: 7 }, lang: "cs", cache, user: { id: PLAYER, isGM: false }, message: shown }), null);
});

// -- the GM's client posts them --------------------------------------------------------------

let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

async function clientOf(user, { role = user === "gm" ? "gm" : "player", seq = 0 } = {}) {
  client?.stop();
  await world({ users: USERS, user, generation: 13 });
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  return welcomeClient(client, { role, seq });
}
const cardsOf = (seq) => Standin.log.messages.filter((m) => m.flags.rollbridge?.seq === seq);

test("the active GM's client posts each hook's card once, public, from the players' view, as its actor", async () => {
  const ws = await clientOf("gm", { seq: 2 });
  const boss = Standin.addActor({ _id: "fvttBoss00000001", name: "Boss", flags: { rollbridge: { actorId: "boss" } } });
  ws.receive(sr2Start(3));
  ws.receive(wilddieTurn(4));
  ws.receive(banditsTurn(5));
  await settle(client);
  const [refill] = cardsOf(3);
  assert.deepEqual(refill.whisper, [], "public");
  assert.deepEqual(refill.flags.rollbridge.view, "players");
  assert.doesNotMatch(refill.content, /71/, "the stored card holds no hidden pool");
  assert.match(refill.content, /guard \(hidden\)/);
  assert.match(refill.content, /Start of round/);
  const [recovery] = cardsOf(4);
  assert.equal(recovery.rolls.length, 1, "its dice as the message's rolls (Dice So Nice's own path)");
  assert.deepEqual(recovery.rolls[0].dice.flatMap((d) => d.results.map((r) => r.result)), [2]);
  assert.doesNotMatch(JSON.stringify(recovery.flags), /47/);
  const turn = cardsOf(5);
  assert.deepEqual(turn.map((m) => [m.flags.rollbridge.kind, m.flags.rollbridge.hook]), [["encounter.turn", 0], ["encounter.turn", 1]]);
  assert.equal(turn[0].speaker.actor, boss.id, "speaks as the hook's actor");
  assert.equal(turn[1].speaker.alias, "Vic");
  assert.match(turn[0].content, /Boss dies/);
  assert.match(turn[1].content, /Vic is dying/);
  assert.equal(turn[0].flags.rollbridge.apply, null, "no follow-up to apply");
  // the same events again (a resume from an older cursor): nothing posted twice
  const count = Standin.log.messages.length;
  ws.receive({ ...banditsTurn(5) });
  await settle(client);
  assert.equal(Standin.log.messages.length, count);
});

test("after a GM's reload the client resuming posts no hook card again, and a missed one once, not animated", async () => {
  let ws = await clientOf("gm", { seq: 4 });
  ws.receive(banditsTurn(5));
  await settle(client);
  assert.equal(cardsOf(5).length, 2);
  // the page reloads after the cards were posted, before the cursor of seq 5 was saved:
  // a new client resumes from seq 4
  client.stop();
  await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 4 });
  client = new FoundryClient();
  client.start();
  let hello;
  ({ ws, hello } = welcomeResumed(client, { seq: 6, missed: 2 }));
  assert.deepEqual(hello.resume, { epoch: 1, seq: 4 });
  ws.receive(banditsTurn(5)); // replayed: already in the chat
  ws.receive(wilddieTurn(6)); // replayed: missed while the page reloaded
  await settle(client);
  assert.equal(cardsOf(5).length, 2, "no second card of either hook");
  const [missed] = cardsOf(6);
  assert.ok(missed, "the missed hook's card");
  assert.equal(missed.flags.rollbridge.replayed, true, "Dice So Nice does not animate it (skipReplayedDice)");
});

test("a player's look-alike of a hook's card, naming its event's request, does not stop the GM's client resuming from posting it", async () => {
  // the module never lets a player's client post a hook's card (only the writer's
  // does), so a player's message flagged as one is never the hook's card, even one
  // naming the encounter event's request (its requester knows it) on a replay
  let ws = await clientOf("gm", { seq: 4 });
  client.stop();
  await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 4 });
  const forged = {
    _id: "forgedHook000001", author: PLAYER, content: '<div class="rollbridge-card">Boss lives</div>',
    flags: { rollbridge: { table: "t1", epoch: 1, seq: 5, kind: "encounter.turn", hook: 0, request: "n5", rolls: [], secret: false, requester: false, view: "players" } },
  };
  await ChatMessage._fromWorld({ data: forged, user: PLAYER });
  client = new FoundryClient();
  client.start();
  ({ ws } = welcomeResumed(client, { seq: 5, missed: 1 }));
  ws.receive(banditsTurn(5)); // replayed: happened while the GM's page reloaded
  await settle(client);
  const gms = cardsOf(5).filter((m) => (m.author?.id ?? m.author) === GM);
  assert.deepEqual(gms.map((m) => m.flags.rollbridge.hook), [0, 1], "the GM's client posts both hooks' cards");
});

test("a player's client posts no hook card, with or without a GM in the world", async () => {
  for (const gmActive of [true, false]) {
    const users = [{ ...USERS[0], active: gmActive }, USERS[1]];
    client?.stop();
    await world({ users, user: PLAYER, generation: 13 });
    await registerModuleSettings();
    game.ready = true;
    client = new FoundryClient();
    client.start();
    const ws = welcomeClient(client, { role: "player", seq: 4 });
    ws.receive(banditsTurn(5).players);
    await settle(client);
    assert.deepEqual(cardsOf(5), [], `GM active: ${gmActive}`);
  }
});

test("an older server's encounter event without the players' view: the hook cards are whispered to the GMs", async () => {
  const ws = await clientOf("gm", { seq: 2 });
  const { players: _players, ...older } = sr2Start(3);
  ws.receive(older);
  await settle(client);
  const [card] = cardsOf(3);
  assert.deepEqual(card.whisper, [GM]);
  assert.equal(card.flags.rollbridge.view, "gm");
  assert.equal(card.flags.rollbridge.secret, true);
  assert.match(card.content, /guard 71/);
  const me = game.user;
  game.user = game.users.get(PLAYER);
  try {
    assert.equal(card.visible, false, "no player reads the GM's view");
  } finally {
    game.user = me;
  }
});
