// The chat cards of an encounter event's turn hooks: what the ruleset's round
// and turn rules did (a dying bandit's countdown, BD-8; sr2's Combat Pool refill,
// SR-14; wilddie's Shaken recovery roll, WD-9). Foundry-independent
// (tests/foundry/js/hooks.test.mjs).
//
// The server's `encounter.started` and `encounter.turn` events carry `data.hooks`,
// each turn hook's result as a resolution's data ({hook, actor, narration,
// outcome, steps, dice}) rendered for the connection's audience (a player's has
// "(hidden)" where the GM's has an NPC's numbers). The Foundry dialect adds
// `foundry.hooks` (by the same index: {rolls, speaker}), and a GM's frame carries
// the players' view as `players`, as for a resolution. A hook's card is that
// result shaped as a card's event — kind and seq its event's, `hook` its index —
// so the card, its Rolls, its flags, its drawing again in a viewer's language
// and its de-duplication are those of a resolution's card (core/card.mjs,
// core/state.mjs, foundry/chat.mjs).

/** The event kinds whose `data.hooks` hold turn hooks' results. */
export const HOOK_KINDS = new Set(["encounter.started", "encounter.turn"]);

/** Whether a hook's result has anything a card shows (a narration, steps, dice). */
export function hookShows(entry) {
  if (!entry || typeof entry !== "object") return false;
  return Boolean(entry.narration) || (entry.steps ?? []).length > 0 || (entry.dice ?? []).length > 0;
}

function hooksOf(event) {
  const hooks = HOOK_KINDS.has(event?.kind) ? event.data?.hooks : null;
  return Array.isArray(hooks) ? hooks : [];
}

/**
 * The actors the card of hook `index` shows, of those the event changed (its
 * `actors`, their state after every hook): a turn hook's its own actor, a round
 * hook's all of them; an actor no card shows so (another actor a turn hook
 * changed) is shown on the event's last card.
 */
function hookActors(event, index) {
  const hooks = hooksOf(event);
  const entry = hooks[index];
  const concerns = (actor, hook) => !hook.actor || actor?.id === hook.actor;
  let last = -1;
  hooks.forEach((hook, i) => {
    if (hookShows(hook)) last = i;
  });
  return (event.actors ?? []).filter((actor) => concerns(actor, entry)
    || (index === last && !hooks.some((hook) => hookShows(hook) && concerns(actor, hook))));
}

/**
 * The card's event of hook `index` of an encounter event (as a connection
 * received it, with its players' view when it carries one), or null when the
 * event has no such hook or it shows nothing.
 */
export function hookCard(event, index) {
  const entry = hooksOf(event)[index];
  if (!Number.isInteger(index) || !hookShows(entry)) return null;
  const actor = entry.actor ?? null;
  const shown = event.foundry?.hooks?.[index] ?? {};
  const alias = (event.actors ?? []).find((a) => a?.id === actor)?.name ?? null;
  const card = {
    type: event.type,
    table: event.table,
    epoch: event.epoch,
    seq: event.seq,
    kind: event.kind,
    request: event.request ?? null,
    hook: index,
    data: {
      hook: entry.hook,
      actor,
      narration: entry.narration ?? "",
      outcome: entry.outcome ?? null,
      steps: entry.steps ?? [],
      dice: entry.dice ?? [],
    },
    actors: hookActors(event, index),
    foundry: { rolls: shown.rolls ?? [], speaker: shown.speaker ?? (actor ? { actor, alias } : null) },
  };
  if (event.gm_only) card.gm_only = true;
  const players = event.players ? hookCard(event.players, index) : null;
  if (players) card.players = players;
  return card;
}

/**
 * The cards the world's writer posts for an encounter event, in the hooks' order
 * (none for another event). `role` is the writer's role at the table: a GM's
 * event without the players' view (a server older than it) would show players
 * the GM's view, so its cards are GM-only (whispered to the GMs) instead.
 */
export function hookCards(event, { role = null } = {}) {
  const cards = [];
  for (let index = 0; index < hooksOf(event).length; index += 1) {
    const card = hookCard(event, index);
    if (!card) continue;
    if (role === "gm" && !card.players) card.gm_only = true;
    cards.push(card);
  }
  return cards;
}
