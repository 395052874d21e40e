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
  // errorNotice: the words in the user's language (the server's message, or the
  // module's own naming the code), escaped as text; the code goes to the console
  ui.notifications.error(`rollbridge: ${rb.errorNotice(error, "attack refused")}`);
}
