// An approval card the active GM's client posted in English, rendered on another GM's
// page in German through the module's own render hook (rollbridge.mjs, loaded whole as
// Foundry loads it): its title reads in German. Until 7 December 2026, night, every
// GM read the active GM's language (approvaltitle.test.mjs has the rule's details).

import assert from "node:assert/strict";
import { test } from "node:test";

import { postApprovalCard, setRulesetActions } from "../../../adapters/foundry/module/scripts/foundry/chat.mjs";
import "./elements.mjs"; // HTMLElement, which Node lacks
import { bootModule, registerModuleSettings, world } from "./standin.mjs";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinGM000002", name: "Co-GM", isGM: true },
];

/** A rendered message's element (v13's hook hands it) whose card has a title. */
class TitledElement extends globalThis.HTMLElement {
  constructor(text) {
    super();
    this.card = { dataset: {}, classList: new Set(), querySelector: () => null };
    this.title = { textContent: text, closest: () => this.card };
  }
  querySelector(selector) {
    if (selector === ".rollbridge-card.rb-approval .rb-title") return this.title;
    return selector === ".rollbridge-card" ? this.card : null;
  }
  append() {}
}

test("another GM's page in German renders the English GM's approval card titled in German", async () => {
  await world({ users: USERS, user: "gm", generation: 13, lang: "en" });
  await registerModuleSettings();
  setRulesetActions(null);
  const event = { type: "event", table: "t1", epoch: 1, seq: 4, kind: "approval.requested", by: "player:bob",
    data: { pending: "p4", request: { type: "roll", fields: { formula: "1d6" }, who: { name: "bob", role: "player" } } } };
  const data = (await postApprovalCard(event)).toObject();
  assert.ok(data.content.includes("bob asks for 1d6"));

  await world({ users: USERS, user: USERS[1]._id, generation: 13, lang: "de" });
  await bootModule();
  let element = null;
  globalThis.FoundryStandin.headlessElement = () => (element = new TitledElement("bob asks for 1d6"));
  await ChatMessage._fromWorld({ data, user: USERS[0]._id });
  assert.ok(element, "the message was rendered");
  assert.equal(element.title.textContent, "bob bittet um 1d6");
});
