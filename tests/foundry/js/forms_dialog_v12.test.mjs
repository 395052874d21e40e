// The action dialog on Foundry v12 (docs/foundry.md, "The action dialog"): `/rb do
// attack guard` opens DialogV2 (the stand-in, strict as its v12 declarations) and
// sends exactly the request `/rb do` with JSON sends; Escape sends nothing (v12's
// DialogV2.wait rejects on dismissal by default: the module says rejectClose false).

import { test } from "node:test";

import { dialogRoundTrip, joined, ODD, oddLabel } from "./forms-world.mjs";

const world = await joined({ generation: 12, ruleset: ODD });

test("v12: /rb do attack guard — the dialog sends the request /rb do with JSON sends; Escape sends nothing", () => dialogRoundTrip(world));

test("v12: an action's label with & and < reads as the ruleset wrote it on the submit button", () => oddLabel(world));
