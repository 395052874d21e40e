// The action dialog on Foundry v13 (docs/foundry.md, "The action dialog"): `/rb do
// attack guard` opens DialogV2 (the stand-in, strict as its v13 declarations) and
// sends exactly the request `/rb do` with JSON sends; Escape sends nothing (v13's
// DialogV2.wait resolves null on dismissal).

import { test } from "node:test";

import { dialogRoundTrip, joined, ODD, oddLabel } from "./forms-world.mjs";

const world = await joined({ generation: 13, ruleset: ODD });

test("v13: /rb do attack guard — the dialog sends the request /rb do with JSON sends; Escape sends nothing", () => dialogRoundTrip(world));

test("v13: an action's label with & and < reads as the ruleset wrote it on the submit button", () => oddLabel(world));
