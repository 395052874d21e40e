// Foundry glue: the actors a table's actors can be — world actors and the
// synthetic actors of unlinked tokens on every scene (core/state.mjs keys those
// by their token's UUID) — and the actor a chat speaker stands for.

/** The world's actors, then every unlinked token's synthetic actor on every scene. */
export function foundryActors() {
  const out = [...(game.actors?.contents ?? [])];
  for (const scene of game.scenes?.contents ?? []) {
    for (const token of scene.tokens?.contents ?? []) {
      if (token.actorLink) continue; // a linked token's actor is the world actor
      const actor = token.actor;
      if (actor) out.push(actor);
    }
  }
  return out;
}

/** The Foundry actor of a ChatMessage speaker: its token's actor (synthetic when
 * the token is unlinked) when it names a token, else the world actor. */
export function speakerActor(speaker) {
  if (!speaker) return null;
  if (speaker.token) {
    const scene = speaker.scene ? game.scenes?.get(speaker.scene) : null;
    const token = scene?.tokens?.get(speaker.token) ?? null;
    if (token?.actor) return token.actor;
  }
  return speaker.actor ? game.actors?.get(speaker.actor) ?? null : null;
}
