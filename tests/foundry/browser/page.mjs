// The test page's set-up: the Foundry stand-in world, two actors, the real
// module loaded as Foundry would load its esmodules entry, then init and ready.
// The server URL comes from the page's query; the token is handed over by the
// test runner before the page loads (window.__RB_E2E__), never through a URL.

const params = new URLSearchParams(location.search);
const wsUrl = params.get("ws");
const generation = Number(params.get("generation") ?? 13);
const secrets = window.__RB_E2E__ ?? {};
// the user's Foundry language; the module's languages come from its own module.json
const language = params.get("lang") ?? "en";
const manifest = await (await fetch("/adapters/foundry/module/module.json")).json();

const settings = { "rollbridge.serverUrl": wsUrl };
// v13 keeps the token per user, v12 per client: either way the stand-in's store holds it
if (secrets.token) settings["rollbridge.token"] = secrets.token;
// the world setting "The server's dice for every roll" (issue 15, item 6), when the test asks
if (params.get("serverDice") === "1") settings["rollbridge.serverDice"] = true;
// Polish stands for a language Foundry has (a core translation module) but rollbridge has not
// the world's users and who this page is (several pages can play one world's clients)
const users = params.get("users") ? JSON.parse(params.get("users")) : null;
const user = params.get("user") ?? "gm";
FoundryStandin.install({
  system: "shadowrun5e", generation, settings, language, manifest,
  moduleRoot: "/adapters/foundry/module/", coreLanguages: { pl: "Polski" }, users, user,
});
FoundryStandin.installDiceSoNice();

const track = () => ({ track: { physical: { value: 0, overflow: { value: 0 } }, stun: { value: 0 } } });
const tukan = FoundryStandin.addActor({ _id: "fvttTukan0000001", name: "Tukan", system: track() });
const guard = FoundryStandin.addActor({ _id: "fvttGuard0000002", name: "Guard", system: track() });
// a scene with two unlinked tokens of one base actor (each its own synthetic actor)
const goblin = FoundryStandin.addActor({ _id: "fvttGoblin000003", name: "Goblin", type: "npc", system: track() });
const scene = FoundryStandin.addScene({ _id: "standinScene0001", name: "Warehouse" });
const goblinTokens = ["A", "B"].map((letter) => FoundryStandin.addToken(scene, {
  _id: `tokGoblin${letter}000000`, name: `Goblin ${letter}`, actorId: goblin.id, actorLink: false,
}));

await import("/adapters/foundry/module/scripts/rollbridge.mjs");
await FoundryStandin.boot();

window.rbE2E = {
  ready: true,
  api: () => game.modules.get("rollbridge").api,
  tukan,
  guard,
  goblin,
  goblinTokens,
  waitFor: async (predicate, timeout = 20000, what = "condition") => {
    const start = performance.now();
    for (;;) {
      const value = await predicate();
      if (value) return value;
      if (performance.now() - start > timeout) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  },
};
