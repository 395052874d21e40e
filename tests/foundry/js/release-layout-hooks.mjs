// The resolve hook of release-layout.mjs: …/adapters/foundry/module/scripts/client/X
// → …/adapters/client/X.
const BUNDLED = "/adapters/foundry/module/scripts/client/";
const SHARED = "/adapters/client/";

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL && (specifier.startsWith(".") || specifier.startsWith("/"))) {
    const url = new URL(specifier, context.parentURL);
    if (url.protocol === "file:" && url.pathname.includes(BUNDLED)) {
      url.pathname = url.pathname.replace(BUNDLED, SHARED);
      return nextResolve(url.href, context);
    }
  }
  return nextResolve(specifier, context);
}
