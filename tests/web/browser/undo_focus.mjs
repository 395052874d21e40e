// The GM's Undo button pressed from the keyboard until nothing is left to undo:
// where the keyboard's focus is then (tests/web/test_web_undo_focus.py).
import process from "node:process";

import { DESKTOP, flush, joinedPage, launch, seqOf, waitSeq } from "./pages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
const browser = await launch(env.RB_CHROMIUM);
const result = { steps: [] };
try {
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${env.RB_BASE}/tables/web`, TOKENS.web.gm, { tap: true });
  await gm.waitForSelector('#history button[name="undo"]:not([aria-disabled="true"])');
  await gm.waitForSelector("body[data-history]"); // the log from before: the kinds the buttons name
  await gm.focus('#history button[name="undo"]');
  for (let i = 0; i < 3; i++) {
    const seq = await seqOf(gm);
    await gm.keyboard.press("Enter");
    await waitSeq(gm, seq + 1);
    result.steps.push(await gm.evaluate(() => {
      const undo = document.querySelector('#history button[name="undo"]');
      const active = document.activeElement;
      return { undo: undo.textContent, disabled: undo.disabled || undo.getAttribute("aria-disabled") === "true",
        focus: active === document.body ? "body" : `${active.tagName.toLowerCase()}[name=${active.getAttribute("name")}]` };
    }));
  }
  // pressed again with nothing to undo: nothing is sent
  const seq = await seqOf(gm);
  const sent = () => gm.gate.sent.filter((m) => /"type":"(undo|redo)"/.test(m)).length;
  const count = sent();
  await gm.keyboard.press("Enter");
  // an undo, were one sent, went out before this ping and was answered before its pong
  const flushed = await flush(gm);
  result.after = { seq: await seqOf(gm), before: seq, sent: sent() - count, undos: count, flushed };
} finally {
  await browser.close();
}
console.log(`RESULT ${JSON.stringify(result)}`);
