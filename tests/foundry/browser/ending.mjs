// The ending the browser scripts of several pages share (languages.mjs, privacy.mjs,
// tabs.mjs): no join token in any page, nor in the console; no page error; then the
// `RESULT {json}` line, or on a failure its `FAILED` lines with every token blanked out.

import assert from "node:assert/strict";
import process from "node:process";

/**
 * Check that no token of `secrets` is in any of `pages` ({key: page}) or in
 * `consoleLines`, and that `pageErrors` is empty; then print `summary` as the RESULT line.
 */
export async function passed({ pages, secrets, consoleLines, pageErrors, summary }) {
  for (const [key, page] of Object.entries(pages)) {
    const html = await page.content();
    for (const s of secrets) assert.ok(!html.includes(s), `a token in ${key}'s page`);
  }
  for (const line of consoleLines) for (const s of secrets) assert.ok(!line.includes(s), "a token in the console");
  assert.deepEqual(pageErrors, []);
  process.stdout.write(`RESULT ${JSON.stringify(summary)}\n`);
}

/** Print `error` and the last console lines and page errors, each token of `secrets`
 * blanked out, and make the script exit non-zero. */
export function failed(error, { secrets, consoleLines, pageErrors }) {
  const hide = (text) => secrets.reduce((t, s) => t.split(s).join("[token]"), String(text));
  process.stdout.write(`FAILED ${hide(error.stack ?? error)}\n`);
  process.stdout.write(`console: ${hide(JSON.stringify(consoleLines.slice(-40)))}\n`);
  process.stdout.write(`page errors: ${hide(JSON.stringify(pageErrors))}\n`);
  process.exitCode = 1;
}
