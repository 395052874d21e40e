// STAND-IN for the network cable — NOT part of the module.
//
// The browser test pulls the plug on the module's connection to a real
// `rollbridge serve`: `NetworkStandin.drop()` closes every open socket as a
// dropped link would, and while `NetworkStandin.offline` is true every new
// socket is pointed at a closed loopback port, so it fails the way an
// unreachable server does. The page's WebSocket is otherwise the browser's own.
// Used only by tests/foundry/browser/index.html.

(function installNetworkStandin() {
  "use strict";
  const RealWebSocket = globalThis.WebSocket;
  const open = new Set();
  const state = { offline: false, refused: 0, dropped: 0 };

  class StandinWebSocket extends RealWebSocket {
    constructor(url, protocols) {
      const target = state.offline ? "ws://127.0.0.1:9/unreachable" : url;
      super(target, protocols);
      if (state.offline) state.refused += 1;
      open.add(this);
      this.addEventListener("close", () => open.delete(this));
    }
  }

  globalThis.WebSocket = StandinWebSocket;
  globalThis.NetworkStandin = {
    get offline() {
      return state.offline;
    },
    set offline(value) {
      state.offline = Boolean(value);
    },
    drop() {
      for (const socket of open) {
        state.dropped += 1;
        socket.close(4001, "network stand-in: link dropped");
      }
    },
    stats: state,
    RealWebSocket,
  };
})();
