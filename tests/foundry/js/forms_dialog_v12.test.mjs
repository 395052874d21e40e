// The action dialog on Foundry v12 (docs/foundry.md, "The action dialog"): `/rb do
// attack guard` opens DialogV2 (the stand-in, strict as its v12 declarations) and
// sends exactly the request `/rb do` with JSON sends; Escape sends nothing (v12's
// DialogV2.wait rejects on dismissal by default: the module says rejectClose false).

import { test } from "node:test";

import { dialogRoundTrip, joined } from "./forms-world.mjs";

const world = await joined({ generation: 12 });

test("v12: /rb do attack guard — the dialog sends the request /rb do with JSON sends; Escape sends nothing", () => dialogRoundTrip(world));
