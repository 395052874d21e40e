import assert from "node:assert/strict";
import { test } from "node:test";

import { checkServerUrl, isLoopback, redact } from "../../../adapters/client/url.mjs";
import { en } from "./localization.mjs";

test("the table comes from the URL rollbridge prints", () => {
  const check = checkServerUrl("ws://127.0.0.1:8765/tables/friday-3fa2c1d0", { pageProtocol: "http:", i18n: en });
  assert.equal(check.ok, true);
  assert.equal(check.table, "friday-3fa2c1d0");
  assert.equal(check.loopback, true);
  assert.equal(check.warning, null);
});

test("an https page needs wss for a remote host", () => {
  const check = checkServerUrl("ws://dice.example.org:8765/tables/t1", { pageProtocol: "https:", i18n: en });
  assert.equal(check.ok, false);
  assert.equal(check.reason, "insecure");
  assert.match(check.message, /wss:\/\/dice\.example\.org:8765\/tables\/t1/);
  const secure = checkServerUrl("wss://dice.example.org/tables/t1", { pageProtocol: "https:", i18n: en });
  assert.equal(secure.ok, true);
  assert.equal(secure.secure, true);
});

test("ws to loopback is allowed from any page", () => {
  for (const host of ["127.0.0.1", "127.3.2.1", "localhost", "[::1]"]) {
    const check = checkServerUrl(`ws://${host}:9000/tables/t`, { pageProtocol: "https:", i18n: en });
    assert.equal(check.ok, true, host);
  }
});

test("ws to a remote host from an http page works with a warning", () => {
  const check = checkServerUrl("ws://10.0.0.5:8765/tables/t", { pageProtocol: "http:", i18n: en });
  assert.equal(check.ok, true);
  assert.match(check.warning, /not encrypted/);
});

test("bad URLs are refused with a reason", () => {
  const cases = {
    "": "missing",
    "not a url": "invalid",
    "http://127.0.0.1:8765/tables/t": "scheme",
    "ws://127.0.0.1:8765/": "no-table",
    "ws://127.0.0.1:8765/tables/t?token=rbt_abc": "secret-in-url",
    "ws://user:pw@127.0.0.1/tables/t": "secret-in-url",
  };
  for (const [url, reason] of Object.entries(cases)) {
    assert.equal(checkServerUrl(url).reason, reason, url);
  }
});

test("isLoopback", () => {
  assert.equal(isLoopback("127.0.0.1"), true);
  assert.equal(isLoopback("localhost"), true);
  assert.equal(isLoopback("::1"), true);
  assert.equal(isLoopback("128.0.0.1"), false);
  assert.equal(isLoopback("example.com"), false);
});

test("redact hides the token and anything shaped like one", () => {
  const token = "rbt_C55Z8HlpnVUFEIlxZrc2w3RiOVvpxhJ";
  assert.equal(redact(`hello ${token}`, [token]), "hello [token]");
  assert.equal(redact("other rbt_abcdefghijkl here"), "other [token] here");
  assert.equal(redact("custom-secret-value", ["custom-secret-value"]), "[token]");
});
