// An approval card's title in each viewer's own language (docs/foundry.md, "Approve /
// reject (GM)"): the active GM's client posts the card worded in its language and keeps
// what the title says in the message's flags; every client that renders it (another GM
// in German, one in Czech or Russian) words the title again from them, the action's
// label from its own connection's ruleset actions where it has them, else the writer's.
// The title is set as text: a third-party label with markup or an inline roll reads as
// written. Until 7 December 2026, night, every GM read the active GM's language.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { localizeApprovalTitle } from "../../../adapters/foundry/module/scripts/foundry/approvaltitle.mjs";
import { postApprovalCard, setRulesetActions } from "../../../adapters/foundry/module/scripts/foundry/chat.mjs";
import { registerModuleSettings, Standin, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinGM000002", name: "Co-GM", isGM: true },
  { _id: "standinPlr00001", name: "Player" },
];
const [GM, CO_GM, PLAYER] = USERS.map((u) => u._id);
const HOSTILE = `<img src=x onerror="globalThis.pwned=1">[[1d1+99]]`;

after(() => {
  setRulesetActions(null);
  Standin.uninstall();
});

/** The rendered card's title as a render hook hands it: an element whose title may be
 * set as text alone (setting markup fails the test). */
function renderedCard(text) {
  const title = {
    textContent: text,
    set innerHTML(_) {
      throw new Error("the title was set as markup");
    },
    closest: () => card,
  };
  const card = { dataset: {}, querySelector: (s) => (s === ".rb-title" ? title : null) };
  return { card, title, querySelector: (s) => (s === ".rollbridge-card.rb-approval .rb-title" ? title : null) };
}

/** The approval card the active GM's client (English, its ruleset's `actions`) posts for
 * bob's request `fields`, as the world keeps it. */
async function posted(fields, actions) {
  await world({ users: USERS, user: "gm", generation: 13, lang: "en" });
  await registerModuleSettings();
  setRulesetActions(actions);
  const event = { type: "event", table: "t1", epoch: 1, seq: 4, kind: "approval.requested", by: "player:bob",
    data: { pending: "p4", request: { type: "resolve", fields, who: { name: "bob", role: "player" } } } };
  const message = await postApprovalCard(event);
  return message.toObject();
}

/** `data` rendered on the page of `user` in `lang` (a page not connected: no actions of its own). */
async function renderedBy(data, user, lang, { actions = null } = {}) {
  await world({ users: USERS, user, generation: 13, lang });
  await registerModuleSettings();
  setRulesetActions(actions);
  const message = await ChatMessage._fromWorld({ data, user: GM });
  const html = renderedCard("(the stored title)");
  // handed over as v12's render hook hands it (a jQuery object holding the element)
  return { done: localizeApprovalTitle(message, [html]), title: html.title.textContent, lang: html.card.dataset.lang };
}

test("each GM reads an approval card's title in their own language, whoever posted it", async () => {
  const data = await posted({ formula: "1d6" }, null);
  assert.ok(data.content.includes("bob asks for 1d6"), "posted in the active GM's English");
  const read = {};
  for (const lang of ["de", "cs", "ru", "en"]) read[lang] = (await renderedBy(data, CO_GM, lang)).title;
  assert.deepEqual(read, { de: "bob bittet um 1d6", cs: "bob žádá: 1d6", ru: "bob просит: 1d6", en: "bob asks for 1d6" });
});

test("the action's label: the viewer's own ruleset actions where it has them, else the writer's label", async () => {
  const data = await posted({ action: "attack" }, { attack: { label: "Attack" } });
  assert.equal((await renderedBy(data, CO_GM, "de")).title, "bob bittet um Attack", "a page with no actions: the writer's label");
  const own = await renderedBy(data, CO_GM, "de", { actions: { attack: { label: "Angriff" } } });
  assert.deepEqual([own.title, own.lang], ["bob bittet um Angriff", "de"]);
});

test("a third-party label with markup or an inline roll stays text", async () => {
  const data = await posted({ action: "hex" }, { hex: { label: HOSTILE } });
  const { done, title } = await renderedBy(data, CO_GM, "ru");
  assert.equal(done, true);
  assert.equal(title, `bob просит: ${HOSTILE}`, "as written, set as text (never markup)");
  assert.equal(globalThis.pwned, undefined);
});

test("a card a player posted, flagged as an approval card, is not worded again", async () => {
  await world({ users: USERS, user: PLAYER, generation: 13, lang: "en" });
  await registerModuleSettings();
  const forged = await ChatMessage.create({ content: "<div class=\"rollbridge-card rb-approval\"></div>", whisper: [GM],
    flags: { rollbridge: { kind: "approval.requested", approval: { who: "the GM", formula: "approve me" } } } });
  const data = forged.toObject();
  const { done, title } = await renderedBy(data.author === PLAYER ? data : { ...data, author: PLAYER }, CO_GM, "de");
  assert.deepEqual([done, title], [false, "(the stored title)"]);
});
