// The Foundry STAND-IN (tests/foundry/standin/foundry-standin.js, not Foundry)
// in Node: the same classic script the browser page loads, installed headless
// (no DOM: the chat log records what it would render), its language files read
// from the module's folder. The glue of scripts/foundry/ runs against it here;
// the browser test runs it in Chromium against a real server.

import { readFileSync } from "node:fs";

import "../standin/localization-standin.js";
import "../standin/foundry-standin.js";
import { FakeWebSocket } from "./fakes.mjs";
import { MANIFEST, MODULE_DIR } from "./localization.mjs";

export const Standin = globalThis.FoundryStandin;

/**
 * A fresh stand-in world: install (headless), the settings given, the module's
 * languages, WebSocket replaced by the test's fake; `settingsBy` the user who last
 * wrote a world setting given (by id; else the world's first GM). Returns {gm, player, log}.
 */
export async function world({ generation = 13, system = "shadowrun5e", user = "gm", lang = "en", settings = {}, users = null, settingsBy = {} } = {}) {
  FakeWebSocket.reset();
  globalThis.WebSocket = FakeWebSocket;
  const people = Standin.install({
    system, generation, user, language: lang, manifest: MANIFEST, headless: true, users, settingsBy,
    settings: { "rollbridge.serverUrl": "wss://rollbridge.example/tables/t1", "rollbridge.token": "rbt_test_token", ...settings },
    load: async (path) => JSON.parse(readFileSync(`${MODULE_DIR}${path}`, "utf8")),
  });
  await game.i18n.setLanguage(lang);
  return { ...people, log: Standin.log };
}

/** Register the module's settings as its init hook does. */
export async function registerModuleSettings() {
  const { registerSettings } = await import("../../../adapters/foundry/module/scripts/foundry/settings.mjs");
  registerSettings(() => {});
}

/** Open a FoundryClient's fake socket and welcome it (role gm or player). */
export function welcomeClient(client, { role = "gm", seq = 0, actors = [] } = {}) {
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role, epoch: 1, seq, locale: game.i18n.lang, table: { id: "t1", actors } });
  return ws;
}

/** Wait until the client's queue of arrivals has run. */
export async function settle(client) {
  for (let i = 0; i < 5; i++) {
    await client.queue;
    await new Promise((r) => setImmediate(r));
  }
}

/** What `check` returns once it is truthy, trying again after each turn of the event
 * loop (200 at most: a count, not a time); `what` names it when it never is. */
export async function until(check, what) {
  for (let i = 0; i < 200; i++) {
    const value = check();
    if (value) return value;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Open a FoundryClient's fake socket and welcome it as a resume from its saved
 * cursor: the server recovered `missed` events up to `seq`, which the test sends
 * next (replayed). Returns {ws, hello}.
 */
export function welcomeResumed(client, { role = "gm", seq, missed }) {
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role, epoch: 1, seq, locale: game.i18n.lang,
    resume: { recovered: true, missed }, table: { id: "t1", actors: [] } });
  return { ws, hello };
}

/**
 * The whole module booted (bootModule) in a fresh world (`world`'s options) and
 * welcomed at table t1 as `role`, at seq 0. Returns {api, ws, serve}: `serve(answer)`
 * waits for the next request the module sends, receives `answer(request)` as the
 * server's reply and returns the request.
 */
export async function joinedModule(options = {}, role = "player") {
  await world(options);
  const api = await bootModule();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role, epoch: 1, seq: 0, locale: game.i18n.lang, table: { id: "t1", actors: [] } });
  const serve = async (answer) => {
    const before = ws.messages().length;
    for (let i = 0; i < 100 && ws.messages().length === before; i++) await new Promise((r) => setTimeout(r, 5));
    const request = ws.messages().at(-1);
    ws.receive(answer(request));
    return request;
  };
  return { api, ws, serve };
}

/**
 * Load the whole module as Foundry does (its esmodules entry, then init, i18n,
 * setup and ready) and return its API; the test's end disconnects it and
 * uninstalls the stand-in.
 */
export async function bootModule() {
  const { after } = await import("node:test");
  await import("../../../adapters/foundry/module/scripts/rollbridge.mjs");
  await Standin.boot();
  const api = game.modules.get("rollbridge").api;
  after(() => {
    api.disconnect();
    Standin.uninstall();
  });
  return api;
}

/**
 * A GM roll of 2d6 made by `client` on its socket `ws` and held for the GM's approval
 * (the reply `pending`, its pending id `pending`): the request as sent.
 */
export async function heldGmRoll({ client, ws }, pending = "p4") {
  const mark = ws.messages().length; // a repeat of an earlier held request is not this one
  const rolling = client.roll("2d6", { rollMode: "gmroll", speaker: {} });
  const sent = await until(() => ws.messages().slice(mark).find((m) => m.type === "foundry.roll" && !m.repeat), "the request");
  ws.receive({ type: "result", id: sent.id, status: "pending", pending });
  await rolling;
  return sent;
}

/** The console's warn lines while `run` runs (and the lines alone: nothing printed). */
export async function consoleWarnings(run) {
  const lines = [];
  const warn = console.warn;
  console.warn = (...args) => lines.push(args.join(" "));
  try {
    await run();
  } finally {
    console.warn = warn;
  }
  return lines;
}

/** A 1d6 roll's event as the server's Foundry dialect sends it (its Roll JSON in `foundry.rolls`). */
export function rollEvent(seq, { request = `r${seq}`, gmOnly = false, total = 4 } = {}) {
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
