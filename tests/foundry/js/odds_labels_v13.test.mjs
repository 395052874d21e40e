// `/rb odds` drops Foundry's labels as a roll's formula loses them, on Foundry v13
// (odds-labels.mjs).

import { test } from "node:test";

import { labelsDropped } from "./odds-labels.mjs";

test("v13: /rb odds 2d6[fire] + 1d4[cold] asks the odds of what /rb 2d6[fire] + 1d4[cold] rolls", () => labelsDropped(13));
