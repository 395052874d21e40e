// The command-line switches every browser script starts Debian's headless Chromium
// with: no sandbox (root in CI), no GPU, no QUIC, and nothing that reaches out to the
// network by itself (first-run, background networking, component updates, sync).

export const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];
