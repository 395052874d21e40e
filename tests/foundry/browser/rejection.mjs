// The GM's *Reject with a reason…* in Chromium (docs/foundry.md, "Approve / reject
// (GM)"): a GM page and a page of Ivan's on the Foundry stand-in (its DialogV2 drawn
// as a modal <dialog>), against a real `rollbridge serve` (started by
// tests/foundry/test_foundry_browser.py) whose table holds players' requests for the
// GM's approval. Ivan's roll waits; on its approval card the GM presses *Reject with
// a reason…*, Escape closes the dialog (nothing sent); pressed again, the GM types
// the reason in the labelled field and presses Enter. The server gets the reject
// with the reason; Ivan's page tells him the GM's reason; the GM's card loses its
// buttons and says *Rejected* with the reason, as text, wrapped within the card. The
// reason's field has the focus as the dialog opens (the stand-in's default button has
// `autofocus`, as Foundry's has), so the GM types on the keyboard.
// Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_BASE, RB_WS_URL, RB_TOKENS (JSON {gm, ivan}; never printed),
// RB_GENERATION (12 or 13), RB_CHROMIUM, RB_USER_DATA.

import assert from "node:assert/strict";

import { failed, passed } from "./ending.mjs";
import { approvalWalk } from "./worldpages.mjs";

const { summary, consoleLines, pageErrors, sent, secrets: SECRETS, step, context, ivanWaits } = await approvalWalk("rejection");

// what the GM writes: spaces around it (trimmed), markup and an inline roll (shown as
// text), and an address far wider than the chat log, with nowhere to break (wrapped
// within the card all the same)
const WRITTEN = `  Not in this scene: <b>[[1d20]]</b> & more, see https://example.org/rules?page=${"0123456789".repeat(12)}  `;
const REASON = WRITTEN.trim();

const rejects = () => sent.gm.filter((m) => m.type === "reject");

try {
  const { gm, ivan, reply } = await ivanWaits();

  step("the GM's approval card: Approve, Approve with my dice…, Reject, Reject with a reason…");
  const card = gm.locator(`.rollbridge-card[data-kind="approval.requested"]`);
  const withReason = card.getByRole("button", { name: "Reject with a reason…" });
  await withReason.waitFor();
  summary.buttons = await card.locator("[data-rollbridge-action]").evaluateAll((nodes) => nodes.map((n) => n.textContent));
  assert.deepEqual(summary.buttons, ["Approve", "Approve with my dice…", "Reject", "Reject with a reason…"]);
  assert.equal(await ivan.locator("[data-rollbridge-action]").count(), 0, "Ivan's page: no approval card, no button");

  step("Escape: the dialog closes, nothing sent");
  await withReason.click();
  const dialog = gm.locator("dialog.standin-dialog[open]");
  await dialog.waitFor();
  await gm.keyboard.press("Escape");
  await gm.locator("dialog.standin-dialog").waitFor({ state: "detached" });
  await gm.evaluate(() => rbE2E.waitFor(() => !document.querySelector(".rollbridge-card[data-kind=\"approval.requested\"] button[disabled]"), 10000, "the button free again"));
  assert.deepEqual(rejects(), [], "nothing sent");

  step("the reason typed in the labelled field, Enter");
  await withReason.click();
  await dialog.waitFor();
  summary.title = (await dialog.locator("h1").textContent()).trim();
  const field = dialog.getByLabel("Reason, for the player (sent as you write it)", { exact: true });
  summary.focused = await gm.evaluate(() => document.activeElement?.name ?? null);
  summary.maxlength = await field.getAttribute("maxlength");
  // typed as the GM types, into whatever has the focus (the field, as the dialog opens)
  await gm.keyboard.type(WRITTEN);
  await gm.keyboard.press("Enter");

  step("Ivan reads the GM's reason; the GM's card says Rejected and why");
  const told = await ivan.evaluate(() => rbE2E.waitFor(
    () => FoundryStandin.log.notifications.find((n) => n.text.includes("rejected your request")), 20000, "Ivan told"));
  summary.ivan = told.text;
  assert.deepEqual(rejects().map(({ id: _id, ...m }) => m), [{ type: "reject", request: reply.pending, reason: REASON }]);
  const line = card.locator(".rb-settled");
  await line.waitFor();
  summary.line = (await line.textContent()).trim();
  summary.lineHtml = await card.locator(".rb-reason").innerHTML();
  // how far the line reaches past the card's right edge, in pixels (0: within it)
  summary.overflow = await card.evaluate((node) => {
    const line = node.querySelector(".rb-settled");
    return Math.max(0, Math.round(line.getBoundingClientRect().right - node.getBoundingClientRect().right), line.scrollWidth - line.clientWidth);
  });
  summary.left = await card.locator("[data-rollbridge-action]").count();
  // how it went, as the GM's client keeps it: the GM's record (the world setting
  // rollbridge.outcomes, core/outcomes.mjs), never the card's own flags
  summary.kept = await gm.evaluate((pending) => (game.settings.get("rollbridge", "outcomes")?.tables ?? [])
    .flatMap((t) => Object.entries(t.settled ?? {}).filter(([key]) => key.endsWith(`:${pending}`)).map(([, entry]) => entry)), reply.pending);
  summary.flagged = await gm.evaluate(() => game.messages.contents
    .find((m) => m.flags.rollbridge?.kind === "approval.requested")?.flags.rollbridge.outcome ?? null);
  summary.reason = REASON;
  await passed({ pages: { gm, ivan }, secrets: SECRETS, consoleLines, pageErrors, summary });
} catch (error) {
  failed(error, { secrets: SECRETS, consoleLines, pageErrors });
} finally {
  await context.close();
}
