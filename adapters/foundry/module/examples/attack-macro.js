// A macro (type: script) for Foundry VTT: the selected token attacks the
// targeted token through rollbridge. The server rolls, resolves the sr2
// attack, and answers with the dice, the narration and the target's new
// state; the GM's client writes that state and posts the chat card.
const rb = game.modules.get("rollbridge")?.api;
if (!rb) return ui.notifications.error("The rollbridge module is not active.");
const attacker = canvas.tokens.controlled[0]?.actor;
const target = Array.from(game.user.targets)[0]?.actor;
if (!attacker || !target) return ui.notifications.warn("Select your token and target one.");
try {
  const event = await rb.resolve("attack", {
    actor: attacker,
    targets: [target],
    params: { weapon: "Hackler", rounds: 3, range: "short" },
  });
  console.log("rollbridge attack:", event.data?.narration);
} catch (error) {
  // the server's message is in the user's language; its code is for the console
  console.warn(`rollbridge | attack refused: ${error.code ?? "-"}: ${error.message}`);
  ui.notifications.error(`rollbridge: ${error.message}`);
}
