// The module in Czech, German, Russian and English (issue 14): its own words
// through game.i18n (here the Localization stand-in loading lang/*.json from
// module.json, as Foundry does), the server's texts shown as they come, the
// hello asking for the Foundry language, the welcome's fallback note.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { renderCard, tracksHtml } from "../../../adapters/foundry/module/scripts/core/card.mjs";
import { Connection } from "../../../adapters/client/connection.mjs";
import { KEYS_ONLY, labelOf, plural, pluralCategory, ROLE_LABELS } from "../../../adapters/client/i18n.mjs";
import {
  errorFromReply,
  errorText,
  helloMessage,
  isLocaleTag,
  localeNotice,
  parseChatCommand,
  resolveMessage,
  rollMessage,
} from "../../../adapters/foundry/module/scripts/core/protocol.mjs";
import { checkServerUrl } from "../../../adapters/client/url.mjs";
import { FakeClock, FakeWebSocket } from "./fakes.mjs";
import { en, LANGUAGES, localization } from "./localization.mjs";

const i18n = Object.fromEntries(await Promise.all(LANGUAGES.map(async (l) => [l, await localization(l)])));

// What the server sent for a Czech (German, Russian) hello: its texts already translated.
const SERVER = {
  cs: { narration: "Tukan zasáhl Strážného", step: "Útok: CÍL 6 = krátký dostřel 4 + zpětný ráz 2", condition: "Fyzické: Vážné", label: "Útočný test (Tukan)", track: "Fyzické" },
  de: { narration: "Tukan trifft die Wache", step: "Angriff: MW 6 = kurze Reichweite 4 + Rückstoß 2", condition: "Körperlich: Schwer", label: "Angriffsprobe (Tukan)", track: "Körperlich" },
  ru: { narration: "Тукан попадает по охраннику", step: "Атака: ЦЧ 6 = малая дистанция 4 + отдача 2", condition: "Физический: тяжёлый", label: "Проверка атаки (Тукан)", track: "Физический" },
  en: { narration: "Tukan hits Guard", step: "Attack TN 6 = short range 4 + recoil 2", condition: "Physical: Serious", label: "Attack test (Tukan)", track: "Physical" },
};

function attack(lang, successes = 2) {
  const t = SERVER[lang];
  return {
    type: "event",
    kind: "resolution",
    epoch: 1,
    seq: 5,
    data: {
      action: "attack",
      narration: t.narration,
      outcome: { hit: true, level: "S", boxes: 6, status: "impaired" },
      dice: [{
        label: t.label,
        formula: "3d6!!",
        target: 6,
        successes,
        dice: [
          { faces: 6, rolls: [6, 3], value: 9, tags: ["compounded", "success"] },
          { faces: 6, rolls: [2], value: 2, tags: ["failure"] },
          { faces: 6, rolls: [6, 6, 1], value: 13, tags: ["compounded", "success"] },
        ],
      }],
      steps: [t.step],
    },
    actors: [{
      id: "guard",
      name: "Guard",
      common: { status: "impaired", tracks: [{ key: "physical", label: t.track, value: 6, max: 10 }], conditions: [t.condition] },
    }],
  };
}

const text = (html) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

// The words a card of `attack()` must show in each language (from the language files, checked by hand).
const WORDS = {
  en: ["How", "hit", "yes", "level", "boxes", "status", "impaired", "2 successes", "vs 6"],
  cs: ["Postup", "zásah", "ano", "úroveň", "políčka", "stav", "oslabení", "2 úspěchy", "proti 6"],
  de: ["Rechenweg", "Treffer", "ja", "Stufe", "Kästchen", "Zustand", "beeinträchtigt", "2 Erfolge", "gegen 6"],
  ru: ["Расчёт", "попадание", "да", "уровень", "клетки", "состояние", "с ранениями", "2 успеха", "против 6"],
};

for (const lang of ["cs", "de", "ru", "en"]) {
  test(`a card for a ${lang} user: the module's words translated, the server's texts untouched`, () => {
    const loc = i18n[lang];
    loc.problems.length = 0;
    loc.fallbacks.length = 0;
    const html = renderCard(attack(lang), { i18n: loc });
    const shown = text(html);
    for (const word of WORDS[lang]) assert.ok(shown.includes(word), `${lang}: ${word} in ${shown}`);
    for (const server of Object.values(SERVER[lang])) assert.ok(shown.includes(server), `${lang}: ${server}`);
    assert.match(html, new RegExp(`<summary>${WORDS[lang][0]}</summary>`));
    // die tags in the tooltips
    const tooltip = html.match(/title="([^"]*)"/)[1];
    assert.ok(tooltip.includes(loc.localize("ROLLBRIDGE.Card.Tag.compounded")), tooltip);
    if (lang !== "en") {
      for (const english of ["How", "successes", "impaired", " vs "]) assert.ok(!shown.includes(english), `${lang}: ${english}`);
    }
    assert.deepEqual(loc.problems, []);
    assert.deepEqual(loc.fallbacks, [], `${lang} needed English for ${loc.fallbacks}`);
  });
}

test("counts take the language's plural forms", () => {
  const forms = (lang) => [1, 2, 5, 21, 1.5].map((n) => renderCard(
    { kind: "resolution", data: { action: "a", dice: [{ target: 5, successes: n, dice: [] }] } },
    { i18n: i18n[lang] },
  ).match(/class="rb-result">([^<]*)</)[1]);
  assert.deepEqual(forms("en"), ["1 success", "2 successes", "5 successes", "21 successes", "1.5 successes"]);
  assert.deepEqual(forms("cs"), ["1 úspěch", "2 úspěchy", "5 úspěchů", "21 úspěchů", "1.5 úspěchu"]);
  assert.deepEqual(forms("ru"), ["1 успех", "2 успеха", "5 успехов", "21 успех", "1.5 успеха"]);
  assert.deepEqual(forms("de"), ["1 Erfolg", "2 Erfolge", "5 Erfolge", "21 Erfolge", "1.5 Erfolge"]);
  assert.equal(pluralCategory("not a tag!", 1), "one");
  assert.equal(plural(KEYS_ONLY, { one: "k.one", other: "k.other" }, 3), "k.other");
});

test("the token HUD's panel names the status in the user's language", () => {
  const html = tracksHtml({ status: "dying", tracks: [] }, { name: "rollbridge", i18n: i18n.de });
  assert.match(html, /data-status="dying">im Sterben</);
  assert.match(html, /rb-status-dying/, "the CSS class keeps the code");
  assert.equal(labelOf(i18n.ru, ROLE_LABELS, "gm"), "мастер");
  assert.equal(labelOf(i18n.ru, ROLE_LABELS, "someone"), "someone", "a code without a label is shown as it is");
});

test("the URL check speaks the user's language and keeps its reason", () => {
  const check = checkServerUrl("ws://dice.example.org:8765/tables/t1", { pageProtocol: "https:", i18n: i18n.cs });
  assert.equal(check.reason, "insecure");
  assert.equal(check.key, "ROLLBRIDGE.Url.Insecure");
  assert.match(check.message, /^Tato stránka Foundry/);
  assert.ok(check.message.includes("wss://dice.example.org:8765/tables/t1"));
  const warned = checkServerUrl("ws://10.0.0.5:8765/tables/t", { pageProtocol: "http:", i18n: i18n.ru });
  assert.match(warned.warning, /^ws:\/\/10\.0\.0\.5:8765 не шифруется/);
  const bad = checkServerUrl("not a url", { i18n: i18n.de });
  assert.equal(bad.message, "„not a url“ ist keine URL; erwartet wird ws://HOST:PORT/tables/TABLE.");
  assert.deepEqual(i18n.de.problems, []);
});

test("the module's own errors carry a key; the server's come translated already", () => {
  const parsed = parseChatCommand("/rb do attack guard {oops");
  assert.equal(parsed.kind, "error");
  assert.match(i18n.de.format(parsed.key, parsed.data), /^die Parameter sind kein gültiges JSON: /);
  const empty = parseChatCommand("/rb # only a label");
  assert.equal(i18n.cs.format(empty.key, empty.data),
    "chybí vzorec hodu: napište /rb 2d6+1 nebo /rb do AKCE.");
  assert.throws(() => rollMessage({}), (e) => errorText(e, i18n.ru) === "для броска нужна формула кубиков.");
  assert.throws(() => resolveMessage({}), (e) => errorText(e, en) === "an action is needed.");
  assert.throws(() => rollMessage({ formula: "1d6", rollMode: "loud" }),
    (e) => errorText(e, i18n.cs).startsWith("neznámý režim hodu loud (známé: publicroll"));
  const server = errorFromReply({ type: "error", code: "not_found", message: "Akce „útok“ neexistuje." });
  assert.equal(errorText(server, i18n.cs), "not_found: Akce „útok“ neexistuje.");
  assert.equal(errorText(errorFromReply({ code: "busy" }), i18n.de), "der Server hat die Anfrage abgelehnt (busy).");
  for (const lang of LANGUAGES) assert.deepEqual(i18n[lang].problems, [], lang);
});

test("the hello carries the user's Foundry language", () => {
  assert.equal(helloMessage({ id: "h", table: "t", token: "k", locale: "cs" }).locale, "cs");
  assert.equal(helloMessage({ id: "h", table: "t", token: "k", locale: "pt-BR" }).locale, "pt-BR");
  assert.ok(!("locale" in helloMessage({ id: "h", table: "t", token: "k" })));
  assert.ok(!("locale" in helloMessage({ id: "h", table: "t", token: "k", locale: "x".repeat(40) })));
  assert.equal(isLocaleTag("de_AT"), true);
  assert.equal(isLocaleTag("cs; DROP"), false);
});

beforeEach(() => FakeWebSocket.reset());

function connect(locale) {
  const welcomes = [];
  const clock = new FakeClock();
  const connection = new Connection({
    url: "ws://127.0.0.1:8765/tables/t1", table: "t1", token: "rbt_SECRETsecretSECRETsecret",
    WebSocket: FakeWebSocket, timers: clock, random: () => 0.5, locale,
    onWelcome: (w) => welcomes.push(w), log: () => {},
  });
  connection.start();
  const ws = FakeWebSocket.last();
  ws.open();
  return { connection, ws, welcomes, clock };
}

test("the connection's hello asks for game.i18n.lang, again after a drop", () => {
  const { ws, clock } = connect(i18n.ru.lang);
  const [hello] = ws.messages();
  assert.equal(hello.type, "hello");
  assert.equal(hello.locale, "ru");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 0, locale: "ru", table: { id: "t1", actors: [] } });
  ws.drop();
  clock.advance(60_000);
  const again = FakeWebSocket.last();
  assert.notEqual(again, ws);
  again.open();
  const resumed = again.messages()[0];
  assert.equal(resumed.type, "hello");
  assert.equal(resumed.locale, "ru");
  assert.deepEqual(resumed.resume, { epoch: 1, seq: 0 });
  const { ws: plain } = connect(undefined);
  assert.ok(!("locale" in plain.messages()[0]), "no language, no locale: the server's default");
});

test("a welcome whose server fell back gives a notice in the user's language", () => {
  const { ws, welcomes } = connect("pl");
  const hello = ws.messages()[0];
  const note = { code: "locale_unavailable", message: "the locale pl is not available (available: cs, de, en, ru); texts are in en" };
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 0, locale: "en", notes: [note], table: { id: "t1", actors: [] } });
  assert.equal(welcomes.length, 1);
  const notice = localeNotice(welcomes[0], "pl");
  assert.deepEqual(notice, { key: "ROLLBRIDGE.Notice.LocaleUnavailable", data: { asked: "pl", used: "en" }, message: note.message });
  assert.equal(i18n.cs.format(notice.key, notice.data),
    "server nemá texty v jazyce pl; karty v chatu a zprávy serveru přicházejí v jazyce en.");
  assert.equal(localeNotice({ locale: "cs", notes: [] }, "cs"), null);
  assert.equal(localeNotice({ locale: "cs" }, "cs"), null);
  assert.deepEqual(i18n.cs.problems, []);
});

test("the stand-in's game.i18n is as strict as Foundry is lenient", async () => {
  const loc = await localization("cs");
  assert.equal(loc.lang, "cs");
  assert.deepEqual(loc.loaded, ["rollbridge/lang/cs.json", "rollbridge/lang/en.json"]);
  // an unknown key comes back as itself (as in Foundry) and is recorded
  assert.equal(loc.localize("ROLLBRIDGE.No.Such.Key"), "ROLLBRIDGE.No.Such.Key");
  assert.equal(loc.localize("ROLLBRIDGE.Card"), "ROLLBRIDGE.Card", "a group of keys is not a text");
  assert.equal(loc.has("ROLLBRIDGE.Card.How"), true);
  assert.equal(loc.has("ROLLBRIDGE.Card"), false);
  // a placeholder the data lacks becomes "undefined", as in Foundry — and is recorded
  assert.equal(loc.format("ROLLBRIDGE.Card.Against", {}), "proti undefined");
  assert.deepEqual(loc.problems, [
    { kind: "missing", key: "ROLLBRIDGE.No.Such.Key" },
    { kind: "missing", key: "ROLLBRIDGE.Card" },
    { kind: "unfilled", key: "ROLLBRIDGE.Card.Against", name: "target" },
  ]);
  // per key, a language that lacks it falls back to English
  loc.translations.ROLLBRIDGE.Card.How = undefined;
  assert.equal(loc.localize("ROLLBRIDGE.Card.How"), "How");
  assert.deepEqual(loc.fallbacks, ["ROLLBRIDGE.Card.How"]);
  // a language no package offers is English (Foundry: "Cannot set language …")
  const quiet = console.error;
  console.error = () => {};
  try {
    assert.equal((await localization("xx")).lang, "en");
  } finally {
    console.error = quiet;
  }
});
