// A die's tag of a ruleset's own is said as *marked* and its code (render.mjs's
// dieSaid): the code is any string a ruleset gives, and it went as it was into the
// die's title and the text a screen reader reads beside the die — a bidi override
// (U+202E) turned the rest of the title around, a line break split it, a cut at 40
// UTF-16 units left half an emoji (a lone surrogate, read as *�*), and a code in
// Hebrew reordered the words after it.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import { dieSaid } from "../../../core/server/webui/render.mjs";
import { i18n, useLanguage } from "../../../core/server/webui/texts.mjs";

const LANG = new URL("../../../core/server/webui/lang/", import.meta.url);
const fromDisk = async (url) => {
  const name = url.split("/").pop();
  return { ok: true, json: async () => JSON.parse(await readFile(new URL(name, LANG), "utf-8")) };
};

const saidOf = (...tags) => dieSaid({ faces: 10, value: 7, tags }, "7");
/** Any control or format character but the isolates the page adds itself. */
const CONTROLS = /[\p{Cc}\p{Zl}\p{Zp}\u200b-\u200f\u202a-\u202e\u2066\u2067\ufeff]/u;
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

for (const lang of ["en", "cs", "de", "ru"]) {
  test(`an invented tag's code is said plain, whole and isolated (${lang})`, async () => {
    await useLanguage(lang, fromDisk);
    const marked = (code) => i18n.format("ROLLBRIDGE.Web.Dice.Marked", { code });
    const success = i18n.localize("ROLLBRIDGE.Web.Dice.Tag.success");
    const said = (words) => i18n.format("ROLLBRIDGE.Web.Dice.Said", { die: "7", tags: words });
    // a bidi override, a line break, a zero width space, a NUL: gone, the spaces one
    assert.equal(saidOf("\u202eglimmer\u202c", "success"), said(`${marked("glimmer")}, ${success}`));
    assert.equal(saidOf("dim\n\nglow\u200b\u0000"), said(marked("dim glow")));
    // cut at 40 characters whole: the emoji at the cut kept whole or left out, never half
    const long = saidOf(`${"a".repeat(39)}\u{1f600}tail`);
    assert.equal(long, said(marked(`${"a".repeat(39)}\u{1f600}`)));
    assert.ok(!LONE.test(saidOf(`${"a".repeat(39)}\u{1f600}`)));
    // right-to-left text isolated from the words after it
    assert.equal(saidOf("שלום", "success"), said(`${marked("\u2068שלום\u2069")}, ${success}`));
    // a code of controls alone says nothing
    assert.equal(saidOf("\u202e\u202c", "success"), said(success));
    for (const code of ["\u202eglimmer", "a\u2029b", "x\u2066y\u2069", "\u061cq"]) {
      assert.ok(!CONTROLS.test(saidOf(code, "success")), code);
    }
  });
}
