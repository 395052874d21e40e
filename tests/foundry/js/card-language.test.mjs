// Each viewer's card in its own language (the issue "the module asks the
// server for the user's Foundry language, so chat cards arrive in it"): the
// bounded cache of the events a client's own connection received, and the
// rule for when a rendered card is drawn again from it (core/state.mjs). The
// drawing itself, in both render hooks, runs in the browser test
// (test_foundry_languages.py).

import assert from "node:assert/strict";
import { test } from "node:test";

import { ENRICHER_CUT, renderCard } from "../../../adapters/foundry/module/scripts/core/card.mjs";
import {
  CARD_EVENTS, cardEvent, cardToLocalize, cardView, EventCache, eventKey,
} from "../../../adapters/foundry/module/scripts/core/state.mjs";
import { en, localization } from "./localization.mjs";

const event = (seq, extra = {}) => ({
  type: "event", table: "t1", epoch: 1, seq, kind: "resolution",
  data: { action: "attack", narration: `Тукан попадает ${seq}`, steps: [] }, actors: [], ...extra,
});
const flags = (seq, extra = {}) => ({ table: "t1", epoch: 1, seq, kind: "resolution", lang: "cs", secret: false, ...extra });
const player = { id: "ivan", isGM: false };
const gm = { id: "gm", isGM: true };
const shown = { whisper: [], blind: false, visible: true, isContentVisible: true };

test("the cache keeps the last 200 roll and resolution events by table, epoch and seq", () => {
  assert.equal(CARD_EVENTS, 200);
  const cache = new EventCache();
  for (let seq = 1; seq <= 250; seq += 1) cache.add(event(seq));
  assert.equal(cache.size, 200);
  assert.equal(cache.get("t1", 1, 50), null, "the oldest ones are gone");
  assert.equal(cache.get("t1", 1, 51).seq, 51);
  assert.equal(cache.get("t1", 1, 250).seq, 250);
  assert.equal(cache.get("t2", 1, 250), null, "another table's seq is another event");
  assert.equal(cache.get("t1", 2, 250), null, "another epoch's seq is another event");
  assert.equal(eventKey("t1", 1, 5), "t1|1|5");
  assert.equal(eventKey("t1", undefined, 5), null);
});

test("the cache keeps only what a card shows: no hidden (GM-only) event, no actor change", () => {
  const cache = new EventCache(3);
  assert.equal(cache.add({ type: "event", table: "t1", epoch: 1, seq: 1, kind: "hidden" }), null);
  assert.equal(cache.add(event(2, { kind: "adjusted" })), null);
  assert.equal(cache.add(event(3, { kind: "roll" })), "t1|1|3");
  assert.equal(cache.add(event(4, { seq: undefined })), null);
  assert.equal(cache.size, 1);
});

test("a card in another language is drawn again from this client's own event", () => {
  const cache = new EventCache();
  cache.add(event(7));
  assert.equal(cardToLocalize({ flags: flags(7), lang: "ru", cache, user: player, message: shown }).seq, 7);
  // the same language: the stored card stays
  assert.equal(cardToLocalize({ flags: flags(7), lang: "cs", cache, user: player, message: shown }), null);
  // an event this client does not hold (no connection, a reload, another table): stored card
  assert.equal(cardToLocalize({ flags: flags(8), lang: "ru", cache, user: player, message: shown }), null);
  assert.equal(cardToLocalize({ flags: flags(7, { table: "t2" }), lang: "ru", cache, user: player, message: shown }), null);
  assert.equal(cardToLocalize({ flags: flags(7), lang: "ru", cache: new EventCache(), user: player, message: shown }), null);
  // a card from before the language was stored, or no flags at all
  assert.equal(cardToLocalize({ flags: flags(7, { lang: undefined }), lang: "ru", cache, user: player, message: shown }), null);
  assert.equal(cardToLocalize({ flags: null, lang: "ru", cache, user: player, message: shown }), null);
  // a flag's kind that does not match the event's
  assert.equal(cardToLocalize({ flags: flags(7, { kind: "roll" }), lang: "ru", cache, user: player, message: shown }), null);
});

test("a whispered or blind card is never drawn for a user who may not see it", () => {
  const cache = new EventCache();
  cache.add(event(9));
  cache.add(event(10, { gm_only: true }));
  const toGM = { whisper: ["gm"], blind: true, visible: false, isContentVisible: false };
  assert.equal(cardToLocalize({ flags: flags(9, { secret: true }), lang: "ru", cache, user: player, message: toGM }), null);
  // even were the message shown to the player, a blind or secret card is not drawn for them
  assert.equal(cardToLocalize({ flags: flags(9), lang: "ru", cache, user: player, message: { ...shown, blind: true } }), null);
  assert.equal(cardToLocalize({ flags: flags(9, { secret: true }), lang: "ru", cache, user: player, message: shown }), null);
  assert.equal(cardToLocalize({ flags: flags(9), lang: "ru", cache, user: player, message: { ...shown, whisper: ["gm"] } }), null);
  assert.equal(cardToLocalize({ flags: flags(9), lang: "ru", cache, user: player, message: { ...shown, isContentVisible: false } }), null);
  assert.equal(cardToLocalize({ flags: flags(10), lang: "ru", cache, user: player, message: shown }), null, "a GM-only event");
  // a recipient of the whisper (the GM) may
  const forGM = { whisper: ["gm"], blind: true, visible: true, isContentVisible: true };
  assert.equal(cardToLocalize({ flags: flags(10, { secret: true }), lang: "ru", cache, user: gm, message: forGM }).seq, 10);
});

test("the card drawn again has the viewer's words and the server's texts of the viewer's connection", async () => {
  const ru = await localization("ru");
  const cache = new EventCache();
  cache.add(event(11, { data: { action: "attack", narration: "Тукан попадает по охраннику", steps: ["Атака: ЦЧ 6"], outcome: { hit: true } } }));
  const own = cardToLocalize({ flags: flags(11), lang: "ru", cache, user: player, message: shown });
  const html = renderCard(own, { showWho: false, i18n: ru });
  assert.ok(html.includes("Тукан попадает по охраннику"));
  assert.ok(html.includes(ru.localize("ROLLBRIDGE.Card.How")));
  assert.ok(html.includes(ru.localize("ROLLBRIDGE.Card.Outcome.hit")));
  assert.deepEqual(ru.problems, []);
});

// Whose view a card is in: a public card is posted from the players' view (the GM's
// event carries it as `players`), and only a GM's client draws it again from the GM's.
const gmEvent = (seq, extra = {}) => event(seq, {
  data: { action: "attack", narration: "Tukan hits Guard", steps: ["Resistance TN 2 = power 10 - ballistic armour 8"] },
  players: event(seq, { data: { action: "attack", narration: "Tukan hits Guard", steps: ["Resistance TN hidden"] } }),
  ...extra,
});

test("a public card is posted from the players' view; a GM-only card keeps the GM's", () => {
  const public_ = gmEvent(20);
  assert.equal(cardEvent(public_), public_.players);
  assert.equal(cardView(public_, "gm"), "players");
  const secret = event(21, { gm_only: true });
  assert.equal(cardEvent(secret), secret);
  assert.equal(cardView(secret, "gm"), "gm");
  // a player writing (no GM in the world): its own event is the players' view
  assert.equal(cardEvent(event(22)).seq, 22);
  assert.equal(cardView(event(22), "player"), "players");
  // a GM's event without `players` (a server that does not send it) is the GM's view
  assert.equal(cardView(event(23), "gm"), "gm");
  const html = renderCard(cardEvent(public_), { showWho: false });
  assert.ok(html.includes("Resistance TN hidden") && !html.includes("armour 8"));
});

test("a GM holding the GM's event sees the full card; nobody else is drawn a GM's view", () => {
  const cache = new EventCache();
  cache.add(gmEvent(30));
  const card = flags(30, { lang: "en", view: "players" });
  // the GM, in the card's language: drawn again from the GM's own event
  assert.equal(cardToLocalize({ flags: card, lang: "en", cache, user: gm, message: shown }), cache.get("t1", 1, 30));
  // a card stored as the GM's view (a GM-only card), same language: nothing to add
  assert.equal(cardToLocalize({ flags: { ...card, view: "gm" }, lang: "en", cache, user: gm, message: shown }), null);
  // a player whose client holds a GM's event (a GM's token): the players' view only
  assert.equal(cardToLocalize({ flags: card, lang: "en", cache, user: player, message: shown }), null);
  const drawn = cardToLocalize({ flags: card, lang: "ru", cache, user: player, message: shown });
  assert.equal(drawn, cache.get("t1", 1, 30).players);
  assert.ok(!renderCard(drawn).includes("armour 8"));
  // a GM whose cached event is a players' view (no `players`), same language: the stored card
  const plain = new EventCache();
  plain.add(event(31));
  assert.equal(cardToLocalize({ flags: flags(31, { lang: "en", view: "players" }), lang: "en", cache: plain, user: gm, message: shown }), null);
});

// A chip's card (wilddie WD-4) names the roll it rerolls by its request id in its steps
// (the ruleset's words, plugins/wilddie/messages.py chip.spent.hidden, which older logs
// verify against): the card shows the roll's readable name instead, the label of the
// dice group whose `roll` is that id, quoted in the viewer's language.
const ROLL_ID = "fvtt@standinGM000001-7aeb16db-ed7b-4c84-9626-bff0da3d1740";
const CHIP_STEPS = {
  en: [`chip spent on roll ${ROLL_ID} (trait): rerolls the trait die`, "the trait die's 5 is replaced"],
  cs: [`žeton na hod ${ROLL_ID} (zkouška vlastnosti): přehazuje kostku vlastnosti`],
  de: [`Chip auf Wurf ${ROLL_ID} (Eigenschaftsprobe) eingesetzt: würfelt den Eigenschaftswürfel neu`],
  ru: [`потрачена фишка на бросок ${ROLL_ID} (проверка характеристики): перебрасывается кость характеристики`],
};
const LABELS = { en: "Notice d6", cs: "Všímavost k6", de: "Wahrnehmung W6", ru: "Внимание к6" };
const QUOTED = { en: "“Notice d6”", cs: "„Všímavost k6“", de: "„Wahrnehmung W6“", ru: "«Внимание к6»" };
const chipEvent = (lang) => event(40, {
  data: {
    action: "chip", narration: `Hero → ${LABELS[lang]}`, steps: CHIP_STEPS[lang],
    outcome: { action: "chip", roll: ROLL_ID, roll_kind: "trait", total: 1 },
    dice: [{ label: LABELS[lang], formula: "{1d6!!, 1d6!!}kh", total: 1, roll: ROLL_ID,
      dice: [{ faces: 6, rolls: [5], value: 5, kept: false, tags: ["rerolled"] }, { faces: 6, rolls: [1], value: 1, tags: ["reroll"] }] }],
  },
});

for (const lang of ["en", "cs", "de", "ru"]) {
  test(`${lang}: a chip's card names the roll it rerolls by its label, not its request id`, async () => {
    const i18n = await localization(lang);
    const html = renderCard(chipEvent(lang), { showWho: false, i18n });
    // (a card's text has an empty span after each "@": escapeText's ENRICHER_CUT)
    assert.ok(!html.includes(ROLL_ID.split("@")[1]), `the request id is shown: ${html}`);
    const steps = html.slice(html.indexOf('<details class="rb-steps">'));
    assert.ok(steps.includes(`${CHIP_STEPS[lang][0].split(ROLL_ID)[0]}${QUOTED[lang]}`), `${lang}: ${steps}`);
    assert.ok(steps.includes(CHIP_STEPS[lang][0].split(ROLL_ID)[1]), "the rest of the step as the server wrote it");
    assert.deepEqual(i18n.problems, []);
  });
}

test("an event whose groups name no roll keeps its steps as they are; without the key the label alone", async () => {
  const plain = event(41, { data: { action: "trait", steps: [`roll ${ROLL_ID}`], dice: [{ label: "Notice d6", total: 5, dice: [] }] } });
  assert.ok(renderCard(plain, { i18n: en }).includes(`roll fvtt@${ENRICHER_CUT}${ROLL_ID.split("@")[1]}`));
  assert.ok(renderCard(chipEvent("en")).includes("chip spent on roll Notice d6 (trait)"), "KEYS_ONLY: the label alone");
});

// The readable name is a text of the event's (a group's label, which may hold an actor's
// or a roll's name someone typed): put into the step before the step is escaped, in every
// language's quotes, it is text on every client's card — no element, no inline roll.
for (const lang of ["en", "cs", "de", "ru"]) {
  test(`${lang}: a chip's roll named by a label holding markup and an inline roll shows it as text`, async () => {
    const i18n = await localization(lang);
    const label = `<img src=x onerror="alert(1)">[[1d1+99]] & "Notice"`;
    const chip = chipEvent(lang);
    chip.data.dice[0].label = label;
    const html = renderCard(chip, { showWho: false, i18n });
    const steps = html.slice(html.indexOf('<details class="rb-steps">'));
    assert.ok(!steps.includes("<img"), `no element from the label: ${steps}`);
    assert.ok(steps.includes(`&lt;img src=x onerror=&quot;alert(1)&quot;&gt;[${ENRICHER_CUT}[${ENRICHER_CUT}1d1+99]] &amp; &quot;Notice&quot;`), steps);
    assert.ok(!steps.includes(ROLL_ID.split("@")[1]), "named, not by its id");
  });
}

test("two groups of the same roll: the first one's label names it; a roll id naming no group is left as it is", async () => {
  const i18n = await localization("en");
  const chip = chipEvent("en");
  chip.data.dice.push({ ...chip.data.dice[0], label: "Second d6" });
  chip.data.steps = [...chip.data.steps, "also roll fvtt-nosuchroll"];
  const html = renderCard(chip, { showWho: false, i18n });
  assert.ok(html.includes("chip spent on roll “Notice d6” (trait)"), html);
  assert.ok(!html.includes("“Second d6”"));
  assert.ok(html.includes("also roll fvtt-nosuchroll"));
});

// A roll is named where its whole id stands, not where its id is a part of a longer one
// (another roll's id it is the prefix of, one a word runs into), nor inside the name
// put in for another roll; a step's punctuation after an id still ends it.
test("a roll id that is a prefix or a part of another's text is not named there; whole ids are", async () => {
  const i18n = await localization("en");
  const chip = chipEvent("en");
  const SHORT = "fvtt-7aeb";
  chip.data.dice.push({ ...chip.data.dice[0], roll: SHORT, label: `Fight d8 ${ROLL_ID}` });
  chip.data.steps = [
    `chip spent on roll ${SHORT} (trait)`,
    `also roll ${SHORT}-2, roll ${SHORT}x and roll x${SHORT}; roll ${SHORT}.1`,
    `then roll ${ROLL_ID}.`,
  ];
  const html = renderCard(chip, { showWho: false, i18n });
  const steps = html.slice(html.indexOf('<details class="rb-steps">'));
  assert.ok(steps.includes(`chip spent on roll “Fight d8 fvtt@${ENRICHER_CUT}${ROLL_ID.split("@")[1]}” (trait)`), steps);
  assert.ok(steps.includes(`also roll ${SHORT}-2, roll ${SHORT}x and roll x${SHORT}; roll ${SHORT}.1`), `not within longer ids: ${steps}`);
  assert.ok(steps.includes("then roll “Notice d6”."), `a step's full stop ends an id: ${steps}`);
});

// A request id is the asker's choice: one that is also a word of the steps ("roll",
// "chip", "wild") cannot be told from that word, so it is named nowhere (the steps as
// the server wrote them); an id with a pattern's special characters is named as written.
test("a roll id that is also a word of the card's steps is left as written; ids with a pattern's characters are named", async () => {
  const i18n = await localization("en");
  for (const id of ["roll", "chip", "wild", "spent", "die;"]) {
    const chip = chipEvent("en");
    chip.data.dice[0].roll = id;
    chip.data.steps = [`chip spent on roll ${id} (trait): rerolls the wild die; 3 → 2 chips`, "the wild die: 1 → 6"];
    const html = renderCard(chip, { showWho: false, i18n });
    assert.ok(!html.includes("“Notice d6”"), `${id}: ${html}`);
    for (const step of chip.data.steps) assert.ok(html.includes(step.replace("→", "→")), `${id}: ${step} as written`);
  }
  for (const id of ["a(b)c", "a|bb", "[x]y", "$&ab", "\\d+x", "a.bc", "a*b?", "p-12)", "^a$b", "{2}ab"]) {
    const chip = chipEvent("en");
    chip.data.dice[0].roll = id;
    chip.data.steps = [`chip spent on roll ${id} (trait): rerolls the wild die`, "aaa bbb xxx"];
    const html = renderCard(chip, { showWho: false, i18n });
    assert.ok(html.includes("chip spent on roll “Notice d6” (trait): rerolls the wild die"), `${id}: ${html}`);
    assert.ok(html.includes("aaa bbb xxx"), id);
  }
});
