// The action dialog in Chromium (docs/foundry.md, "The action dialog"): the GM's
// page on the Foundry stand-in (its DialogV2 drawn as a modal <dialog>) and a real
// `rollbridge serve` (started by tests/foundry/test_foundry_browser.py). Tukan and
// the guard are put on the table with sr2's example sheets; api.actionDialog("attack")
// opens the dialog, built from the welcome's spec, which the test works as a user
// would, with the keyboard: every control labelled, the first one focused, Tukan's
// weapons offered; a number below its bound typed and Enter pressed says so in the
// dialog and sends nothing, and so does a number Chromium cannot read (1e); a good
// number and Enter resolve the attack at the server (its card posted); a second
// dialog dismissed with Escape resolves null and sends nothing.
// Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_BASE, RB_WS_URL, RB_TOKENS (JSON {gm}; never printed),
// RB_SHEETS (JSON {Tukan, "Guard A"}), RB_GENERATION (12 or 13), RB_CHROMIUM,
// RB_USER_DATA; RB_SCREENSHOT (optional): where to save a picture of the dialog.

import assert from "node:assert/strict";
import process from "node:process";

import { openGmPage } from "./gmpage.mjs";

const env = process.env;
const SHEETS = JSON.parse(env.RB_SHEETS);
const step = (name) => process.stderr.write(`dialog: ${name}\n`);

const { context, page, consoleLines, pageErrors, hide } = await openGmPage();
try {
  await page.evaluate(async (s) => {
    const api = rbE2E.api();
    await api.addActor(rbE2E.tukan, s.Tukan);
    await api.addActor(rbE2E.guard, s["Guard A"]);
  }, SHEETS);
  const open = () => page.evaluate(() => {
    window.__outcome = null;
    rbE2E.api().actionDialog("attack", { actor: rbE2E.tukan, targets: [rbE2E.guard] })
      .then((value) => { window.__outcome = { value }; }, (error) => { window.__outcome = { error: String(error) }; });
  });
  const outcome = () => page.evaluate(() => rbE2E.waitFor(() => window.__outcome, 20000, "the dialog's outcome"));
  const messages = () => page.evaluate(() => FoundryStandin.log.messages.length);

  step("the dialog: labelled controls, the first focused, Tukan's weapons");
  await open();
  const dialog = page.locator("dialog.standin-dialog[open]");
  await dialog.waitFor();
  const shown = await page.evaluate(() => {
    const box = document.querySelector("dialog.standin-dialog[open]");
    const controls = [...box.querySelectorAll(".dialog-content [name]")];
    return {
      title: box.querySelector("h1").textContent,
      unlabelled: controls.filter((c) => !c.labels?.length || !c.labels[0].textContent.trim()).map((c) => c.name),
      names: controls.map((c) => c.name),
      focused: document.activeElement?.name ?? null,
      weapons: [...box.querySelector('select[name="weapon"]').options].map((o) => o.value),
      weapon: box.querySelector('select[name="weapon"]').value,
      range: box.querySelector('select[name="range"]').value,
    };
  });
  assert.equal(shown.title, "Attack");
  assert.deepEqual(shown.unlabelled, []);
  assert.ok(shown.names.includes("rounds") && shown.names.includes("range"), JSON.stringify(shown.names));
  assert.equal(shown.focused, "weapon");
  assert.deepEqual(shown.weapons, ["", "Hackler", "Stun baton"]);
  assert.deepEqual([shown.weapon, shown.range], ["Hackler", "short"]);

  step("a number below its bound: said in the dialog, nothing sent");
  const before = await messages();
  const rounds = dialog.getByLabel("Rounds fired", { exact: true });
  await rounds.fill("0");
  await rounds.press("Enter");
  const alert = page.locator("dialog.standin-dialog[open] [role=alert]");
  await alert.waitFor();
  const problem = (await alert.textContent()).trim();
  assert.equal(problem, "The smallest value allowed is 1.");
  const invalid = await page.evaluate(() => document.activeElement?.getAttribute("aria-invalid") === "true"
    && document.activeElement.name);
  assert.equal(invalid, "rounds", "the field with the problem has the focus");
  // a picture of the dialog with its problem, when asked for (RB_SCREENSHOT: a path)
  if (env.RB_SCREENSHOT) await page.locator("dialog.standin-dialog[open]").screenshot({ path: env.RB_SCREENSHOT });
  assert.equal(await messages(), before, "nothing sent, no card");

  step("a number Chromium cannot read (typed 1e): said in the dialog, nothing sent");
  // Chromium's number input reads "" for it (validity.badInput); left out as if
  // empty, the attack would have gone with the server's default rounds
  const typed = page.locator("dialog.standin-dialog[open]").getByLabel("Rounds fired", { exact: true });
  await typed.fill("");
  await typed.pressSequentially("1e");
  await typed.press("Enter");
  const unreadable = await page.evaluate(() => rbE2E.waitFor(() => {
    const line = document.querySelector("dialog.standin-dialog[open] [role=alert]");
    return line && line.textContent.trim() !== "The smallest value allowed is 1." ? line.textContent.trim() : null;
  }, 10000, "the problem with 1e"));
  assert.equal(unreadable, "Enter a whole number.");
  assert.equal(await messages(), before, "nothing sent, no card");

  step("Enter: the attack resolved at the server");
  await page.locator("dialog.standin-dialog[open]").getByLabel("Rounds fired", { exact: true }).fill("2");
  await page.locator("dialog.standin-dialog[open]").getByLabel("Rounds fired", { exact: true }).press("Enter");
  const done = await outcome();
  assert.equal(done.error, undefined, done.error);
  const event = done.value;
  assert.equal(event.kind, "resolution");
  assert.equal(event.data.action, "attack");
  assert.equal(event.data.actor, "fvttTukan0000001");
  assert.deepEqual(event.data.targets, ["fvttGuard0000002"]);
  await page.evaluate((seq) => rbE2E.waitFor(() => document.querySelector(`.rollbridge-card[data-seq="${seq}"]`), 10000, "the card"), event.seq);
  assert.equal(await page.locator("dialog.standin-dialog").count(), 0, "the dialog closed");

  step("Escape: null, nothing sent");
  const cards = await messages();
  await open();
  await dialog.waitFor();
  await page.keyboard.press("Escape");
  const escaped = await outcome();
  assert.deepEqual(escaped, { value: null });
  assert.equal(await messages(), cards);
  assert.deepEqual(pageErrors, []);
  process.stdout.write(`RESULT ${JSON.stringify({ shown, problem, unreadable, event: { seq: event.seq, action: event.data.action, narration: event.data.narration } })}\n`);
} catch (error) {
  process.stderr.write(hide(`${error?.stack ?? error}\n--- console ---\n${consoleLines.join("\n")}\n${pageErrors.join("\n")}\n`));
  process.exitCode = 1;
} finally {
  await context.close();
}
