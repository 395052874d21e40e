// The GM's *Approve with my dice…* in Chromium (docs/foundry.md, "Approve / reject
// (GM)"): a GM page and a page of Ivan's on the Foundry stand-in (its DialogV2 drawn
// as a modal <dialog>), against a real `rollbridge serve` (started by
// tests/foundry/test_foundry_browser.py) whose table holds players' requests for the
// GM's approval. Ivan's 2d6 waits; on its approval card the GM presses *Approve with
// my dice…*, types what are not die results and presses Enter (told, nothing sent);
// pressed again, types "5, 2" in the labelled field (focused as the dialog opens) and
// presses Enter. The server gets the approval with the GM's dice and rolls with them:
// Ivan's page gets the roll of 7; the GM's card loses its buttons and says *Approved*.
// The approve request's `dice` is what a request held with a player's own dice for an
// action that became always secret needs (`held_dice_secret`: docs/protocol.md).
// Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_BASE, RB_WS_URL, RB_TOKENS (JSON {gm, ivan}; never printed),
// RB_GENERATION (12 or 13), RB_CHROMIUM, RB_USER_DATA.

import assert from "node:assert/strict";

import { failed, passed } from "./ending.mjs";
import { approvalWalk } from "./worldpages.mjs";

const { summary, consoleLines, pageErrors, sent, secrets: SECRETS, step, context, ivanWaits } = await approvalWalk("approvedice");

const approvals = () => sent.gm.filter((m) => m.type === "approve").map(({ id: _id, ...m }) => m);

try {
  const { gm, ivan, reply } = await ivanWaits();
  summary.pending = reply.pending;

  step("the GM's approval card: Approve, Approve with my dice…, Reject, Reject with a reason…");
  const card = gm.locator(`.rollbridge-card[data-kind="approval.requested"]`);
  const withDice = card.getByRole("button", { name: "Approve with my dice…" });
  await withDice.waitFor();
  summary.buttons = await card.locator("[data-rollbridge-action]").evaluateAll((nodes) => nodes.map((n) => n.textContent));

  step("what are not die results, Enter: told, nothing sent");
  await withDice.click();
  const dialog = gm.locator("dialog.standin-dialog[open]");
  await dialog.waitFor();
  summary.title = (await dialog.locator("h1").textContent()).trim();
  summary.focused = await gm.evaluate(() => document.activeElement?.name ?? null);
  await gm.keyboard.type("5 and 2");
  await gm.keyboard.press("Enter");
  const warned = await gm.evaluate(() => rbE2E.waitFor(
    () => FoundryStandin.log.notifications.find((n) => n.level === "warn"), 10000, "the GM told"));
  summary.warned = warned.text;
  await gm.locator("dialog.standin-dialog").waitFor({ state: "detached" });
  await gm.evaluate(() => rbE2E.waitFor(() => !document.querySelector(".rollbridge-card[data-kind=\"approval.requested\"] button[disabled]"), 10000, "the button free again"));
  assert.deepEqual(approvals(), [], "nothing sent");

  step("the GM's dice typed in the labelled field, Enter");
  await withDice.click();
  await dialog.waitFor();
  const field = dialog.getByLabel("Your die results, in the order they are used (such as 4 6 2)", { exact: true });
  assert.equal(await field.count(), 1, "the labelled field");
  await gm.keyboard.type("5, 2");
  await gm.keyboard.press("Enter");

  step("Ivan's roll made with the GM's dice; the GM's card says Approved");
  const line = card.locator(".rb-settled");
  await line.waitFor();
  summary.line = (await line.textContent()).trim();
  summary.left = await card.locator("[data-rollbridge-action]").count();
  summary.sent = approvals();
  summary.ivanCard = await ivan.evaluate(() => rbE2E.waitFor(
    () => { const n = document.querySelector('.rollbridge-card[data-kind="roll"] .rb-total'); return n ? n.dataset.total : null; }, 20000, "Ivan's card"));
  await passed({ pages: { gm, ivan }, secrets: SECRETS, consoleLines, pageErrors, summary });
} catch (error) {
  failed(error, { secrets: SECRETS, consoleLines, pageErrors });
} finally {
  await context.close();
}
