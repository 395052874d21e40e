// One labelled text field, as the approval card's dialogs hold it (core/rejection.mjs,
// core/approvedice.mjs). Foundry-independent (tests/foundry/js/buttons.test.mjs).

import { escapeHtml } from "./card.mjs";

/**
 * A form group of one text field named `name`, with the id `id`, labelled `label`,
 * its `attrs` (name → value) written after its name, then autocomplete off.
 * @param {{kind: string, id: string, name: string, label: string, attrs?: Record<string, string | number>}} field
 * @returns {string}
 */
export function labelledFieldHtml({ kind, id, name, label, attrs = {} }) {
  const extra = Object.entries(attrs).map(([key, value]) => ` ${key}="${escapeHtml(value)}"`).join("");
  return `<div class="form-group rollbridge-${kind}">`
    + `<label for="${id}">${escapeHtml(label)}</label>`
    + `<input type="text" id="${id}" name="${name}"${extra} autocomplete="off">`
    + `</div>`;
}
