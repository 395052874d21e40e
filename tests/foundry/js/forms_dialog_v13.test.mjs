// The action dialog on Foundry v13 (docs/foundry.md, "The action dialog"): `/rb do
// attack guard` opens DialogV2 (the stand-in, strict as its v13 declarations) and
// sends exactly the request `/rb do` with JSON sends; Escape sends nothing (v13's
// DialogV2.wait resolves null on dismissal).

import { test } from "node:test";

import { dialogRoundTrip, joined } from "./forms-world.mjs";

const world = await joined({ generation: 13 });

test("v13: /rb do attack guard — the dialog sends the request /rb do with JSON sends; Escape sends nothing", () => dialogRoundTrip(world));
