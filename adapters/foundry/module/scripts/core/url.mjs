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

/** Whether a hostname is this machine (loopback). */
export function isLoopback(hostname) {
  const host = String(hostname || "").toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1" || host === "0:0:0:0:0:0:0:1") return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Check a server URL for a page served with `pageProtocol` ("https:" or "http:").
 * @returns {{ok: true, url: string, table: string, secure: boolean, loopback: boolean,
 *            warning: string|null} | {ok: false, reason: string, message: string}}
 */
export function checkServerUrl(text, { pageProtocol = "https:" } = {}) {
  const raw = String(text ?? "").trim();
  if (!raw) {
    return refuse("missing", "No server URL is set: paste the URL `rollbridge serve` printed "
      + "(ws://HOST:PORT/tables/TABLE) in the module settings.");
  }
  let url;
  try {
    url = new URL(raw);
  } catch {
    return refuse("invalid", `"${raw}" is not a URL; expected ws://HOST:PORT/tables/TABLE.`);
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    return refuse("scheme", `The server URL must start with ws:// or wss://, not ${url.protocol}//.`);
  }
  if (url.username || url.password || /token/i.test(url.search)) {
    return refuse("secret-in-url", "Do not put the token in the URL: paste it in the token "
      + "setting, which stays on your side and travels only inside the connection.");
  }
  const parts = url.pathname.split("/").filter(Boolean);
  const at = parts.lastIndexOf("tables");
  const table = at >= 0 && at === parts.length - 2 ? decodeURIComponent(parts[at + 1]) : null;
  if (!table) {
    return refuse("no-table", "The server URL must end in /tables/TABLE (as `rollbridge serve` "
      + "and `rollbridge table create` print it).");
  }
  const secure = url.protocol === "wss:";
  const loopback = isLoopback(url.hostname);
  if (!secure && !loopback && pageProtocol === "https:") {
    return refuse("insecure", `This Foundry page is served over https, so the browser lets it `
      + `reach a remote rollbridge server only over wss://. Serve rollbridge behind TLS (a `
      + `reverse proxy) and use wss://${url.host}${url.pathname}, or run it on this machine `
      + `(ws://127.0.0.1).`);
  }
  const warning = !secure && !loopback
    ? `ws://${url.host} is not encrypted: the join token and the table travel in clear text. `
      + `Prefer wss:// for a server on another machine.`
    : null;
  return { ok: true, url: url.href, table, secure, loopback, warning };
}

function refuse(reason, message) {
  return { ok: false, reason, message };
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
