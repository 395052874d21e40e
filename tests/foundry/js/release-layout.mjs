// Node's view of the Foundry module as it is released: the module's
// scripts/client/ is the shared browser client (adapters/client/), which the
// release build (adapters/foundry/release.py) bundles there. In a checkout the
// folder does not exist, so imports of it resolve to adapters/client/.
// Used as `node --import ./tests/foundry/js/release-layout.mjs --test …`.
import { register } from "node:module";

register("./release-layout-hooks.mjs", import.meta.url);
