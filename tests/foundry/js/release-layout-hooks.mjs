// The resolve hook of release-layout.mjs: …/adapters/foundry/module/scripts/client/X
// → …/adapters/client/X.
const BUNDLED = "/adapters/foundry/module/scripts/client/";
const SHARED = "/adapters/client/";
// the web table's pages import the same client from /client/ (core/server/webui/../client)
const WEB = "/core/server/client/";

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL && (specifier.startsWith(".") || specifier.startsWith("/"))) {
    const url = new URL(specifier, context.parentURL);
    for (const served of [BUNDLED, WEB]) {
      if (url.protocol === "file:" && url.pathname.includes(served)) {
        url.pathname = url.pathname.replace(served, SHARED);
        return nextResolve(url.href, context);
      }
    }
  }
  return nextResolve(specifier, context);
}
