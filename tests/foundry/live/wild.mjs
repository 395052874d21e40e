// What a wilddie walk through the stand-in starts from (tests/foundry/live/wildwalk.mjs):
// the sheets of a hero and a thug, a SWADE actor's system data, and a table on a real
// `rollbridge serve` with the GM's v13 SWADE world pointed at it.

import WebSocket from "ws";

import { registerModuleSettings, world } from "../js/standin.mjs";
import { freePort, newTable, serve } from "./night.mjs";

export const GM_USER = "standinGM000001";
/** A player character's wilddie sheet (WD-1, WD-5: Toughness 2 + 4 + 1). */
export const HERO_SHEET = { kind: "pc", armor: 1,
  attributes: { strength: "d6", vigor: "d8", coordination: "d8", reaction: "d8", intuition: "d6", character: "d6" },
  skills: { fighting: "d8", shooting: "d8", notice: "d6", stealth: "d6" } };
/** An NPC's (WD-5: Defense 2 + 3, Toughness 2 + 3). */
export const THUG_SHEET = { kind: "npc",
  attributes: { strength: "d8", vigor: "d6", coordination: "d6", reaction: "d6", intuition: "d4", character: "d6" },
  skills: { fighting: "d6", shooting: "d6", notice: "d4", intimidation: "d6" } };
/** A SWADE actor's system data before a fight. */
export const swadeSystem = () => ({ wounds: { value: 0, max: 3 }, fatigue: { value: 0 }, status: { isShaken: false } });

/** A wilddie table in `db` with a player token per `[userId, name]` of `players`, served
 * on a free port, and the GM's world (v13, SWADE) set to it: {table, tokens, url, server}. */
export async function wildTable(db, name, players) {
  const { table, tokens } = newTable(db, "wilddie", name, players);
  const port = await freePort();
  const server = await serve(db, port);
  const url = `ws://127.0.0.1:${port}/tables/${table}`;
  const users = [{ _id: GM_USER, name: "Gamemaster", role: 4 }, ...players.map(([id, user]) => ({ _id: id, name: user }))];
  await world({ generation: 13, users, user: GM_USER, system: "swade",
    settings: { "rollbridge.serverUrl": url, "rollbridge.token": tokens.gm } });
  globalThis.WebSocket = WebSocket;
  globalThis.CSS ??= { escape: (s) => s };
  await registerModuleSettings();
  game.ready = true;
  return { table, tokens, url, server };
}
