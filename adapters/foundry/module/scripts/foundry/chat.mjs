// Foundry glue: the chat card of an event, with the server's dice as Foundry
// Rolls (Roll.fromData) and Dice So Nice's animation when that module is on.
//
// With Dice So Nice, the card's rolls are shown with game.dice3d.showForRoll
// (synchronised to every user) and the message is created without `rolls`, so
// Dice So Nice does not animate them a second time; the Roll JSON stays in the
// message's flags. Without it, the message carries the Rolls (Foundry plays
// its dice sound and other modules can read them).

import { renderCard } from "../core/card.mjs";
import { MODULE_ID, speakerFor } from "../core/state.mjs";

export function rebuildRolls(event) {
  return (event.foundry?.rolls ?? []).map((json) => Roll.fromData(JSON.parse(JSON.stringify(json))));
}

export async function postCard(event) {
  const actors = game.actors?.contents ?? [];
  const speaker = speakerFor(event.foundry?.speaker?.actor, actors, event.foundry?.speaker?.alias);
  const rolls = rebuildRolls(event);
  const secret = Boolean(event.gm_only);
  const whisper = secret ? ChatMessage.getWhisperRecipients("GM").map((u) => u.id) : [];
  // the card's own words in the user's language; the server's texts already are
  const content = renderCard(event, { speakerName: speaker.alias, showWho: false, i18n: game.i18n });
  const flags = {
    [MODULE_ID]: {
      table: event.table ?? null,
      epoch: event.epoch,
      seq: event.seq,
      kind: event.kind,
      request: event.request ?? null,
      rolls: event.foundry?.rolls ?? [],
    },
  };
  const data = { content, speaker, flags };
  if (secret) {
    data.whisper = whisper;
    data.blind = true;
  }
  if (game.dice3d?.showForRoll) {
    for (const roll of rolls) {
      await game.dice3d.showForRoll(roll, game.user, true, secret ? whisper : null, secret);
    }
  } else if (rolls.length) {
    data.rolls = rolls;
  }
  return ChatMessage.create(data);
}
