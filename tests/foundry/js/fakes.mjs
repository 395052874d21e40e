// Test doubles for Node's test runner: a clock whose timers run when the test
// says so, and a WebSocket the test opens, feeds and drops. They stand in for
// the browser's timers and socket only; no Foundry global is involved here.

const realClearTimeout = globalThis.clearTimeout;

export class FakeClock {
  constructor() {
    this.now = 0;
    this.timers = new Map();
    this.nextId = 1;
    this.delays = [];
  }

  setTimeout = (fn, ms) => {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now + ms, fn, ms });
    this.delays.push(ms);
    return id;
  };

  // a timer set before the clock stood in (a real one: a Node Timeout, not this clock's
  // number) is cleared for real, so that a connection stopped while the clock stands in
  // leaves no real timer behind to hold the test process open
  clearTimeout = (id) => {
    if (!this.timers.delete(id) && typeof id === "object") realClearTimeout(id);
  };

  /** Run every timer due within `ms`, in time order. */
  advance(ms) {
    const end = this.now + ms;
    for (;;) {
      let next = null;
      for (const [id, timer] of this.timers) {
        if (timer.at <= end && (next === null || timer.at < next[1].at)) next = [id, timer];
      }
      if (!next) break;
      this.timers.delete(next[0]);
      this.now = next[1].at;
      next[1].fn();
    }
    this.now = end;
  }

  pending() {
    return [...this.timers.values()].map((t) => t.at - this.now).sort((a, b) => a - b);
  }
}

export class FakeWebSocket {
  static instances = [];

  constructor(url) {
    this.url = url;
    this.sent = [];
    this.closedWith = null;
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    this.onerror = null;
    FakeWebSocket.instances.push(this);
  }

  static reset() {
    FakeWebSocket.instances = [];
  }

  static last() {
    return FakeWebSocket.instances.at(-1);
  }

  send(data) {
    this.sent.push(data);
  }

  close(code = 1000, reason = "") {
    this.closedWith = { code, reason };
  }

  // -- driven by the test --
  open() {
    this.onopen?.({});
  }

  receive(message) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }

  drop(code = 1006, reason = "") {
    this.onclose?.({ code, reason });
  }

  messages() {
    return this.sent.map((s) => JSON.parse(s));
  }
}
