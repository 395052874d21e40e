// The server URL a GM pastes, checked before anything connects, and the rule
// that keeps the join token out of logs.
//
// Foundry-independent: no Foundry global is used here (tests/foundry/js/).
//
// The URL is the one `rollbridge serve` prints: ws://HOST:PORT/tables/TABLE.
// The rule for the scheme (docs/foundry.md):
//   - a Foundry page served over https may reach a remote server only over
//     wss:// (browsers block ws:// from https pages as mixed content);
//   - ws:// is allowed to this machine (127.0.0.0/8, localhost, [::1]) from any page;
//   - from an http page ws:// to a remote host works, but the token then
//     travels unencrypted: a warning says so.
// The token never goes in the URL: it travels in the `hello` message.

import { KEYS_ONLY } from "./i18n.mjs";

/** Whether a hostname is this machine (loopback). */
export function isLoopback(hostname) {
  const host = String(hostname || "").toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1" || host === "0:0:0:0:0:0:0:1") return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

/** The keys of the URL check's texts (their English is in lang/en.json). */
export const URL_KEYS = {
  missing: "ROLLBRIDGE.Url.Missing",
  invalid: "ROLLBRIDGE.Url.Invalid",
  scheme: "ROLLBRIDGE.Url.Scheme",
  "secret-in-url": "ROLLBRIDGE.Url.SecretInUrl",
  "no-table": "ROLLBRIDGE.Url.NoTable",
  insecure: "ROLLBRIDGE.Url.Insecure",
  unencrypted: "ROLLBRIDGE.Url.Unencrypted",
};

/**
 * Check a server URL for a page served with `pageProtocol` ("https:" or "http:").
 * The texts (`message`, `warning`) are in the language of `i18n` (game.i18n in
 * Foundry; core/i18n.mjs); `key` and `data` are what they were made from.
 * @returns {{ok: true, url: string, table: string, secure: boolean, loopback: boolean,
 *            warning: string|null} | {ok: false, reason: string, key: string, data: object, message: string}}
 */
export function checkServerUrl(text, { pageProtocol = "https:", i18n = KEYS_ONLY } = {}) {
  /** @type {(reason: string, data?: object) => {ok: false, reason: string, key: string, data: object, message: string}} */
  const refuse = (reason, data = {}) => {
    const key = URL_KEYS[reason];
    return { ok: false, reason, key, data, message: i18n.format(key, data) };
  };
  const raw = String(text ?? "").trim();
  if (!raw) return refuse("missing");
  let url;
  try {
    url = new URL(raw);
  } catch {
    return refuse("invalid", { url: redact(raw) });
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    return refuse("scheme", { scheme: `${url.protocol}//` });
  }
  if (url.username || url.password || /token/i.test(url.search)) return refuse("secret-in-url");
  const parts = url.pathname.split("/").filter(Boolean);
  const at = parts.lastIndexOf("tables");
  const table = at >= 0 && at === parts.length - 2 ? decodeURIComponent(parts[at + 1]) : null;
  if (!table) return refuse("no-table");
  const secure = url.protocol === "wss:";
  const loopback = isLoopback(url.hostname);
  if (!secure && !loopback && pageProtocol === "https:") {
    return refuse("insecure", { url: `wss://${url.host}${url.pathname}` });
  }
  const warning = !secure && !loopback
    ? i18n.format(URL_KEYS.unencrypted, { host: `ws://${url.host}` })
    : null;
  return { ok: true, url: url.href, table, secure, loopback, warning };
}

/** Replace every occurrence of the given secrets (and anything shaped like a
 * rollbridge token) in a text meant for a log or a notice. */
export function redact(text, secrets = []) {
  let out = String(text ?? "");
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[token]");
  }
  return out.replace(/rbt_[A-Za-z0-9_-]{8,}/g, "[token]");
}
