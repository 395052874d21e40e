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

/**
 * A FakeWebSocket that answers a `state` request with `at` as a real server does
 * (core/engine/table.py `view`): the table at that seq while the retained log holds
 * every event after it, else `invalid_request` "state.at: seq N is older than the
 * retained event log" with `details: {field: "at"}` (the words and details a real
 * `rollbridge serve --retain 1` sent). `LogSocket.oldest` is the oldest seq the log
 * still reaches back to; `LogSocket.refusal`, when set ({code, message}), is the
 * error a server that cannot read its log now answers instead (`store_error`, or
 * `busy` past the client's own retries); every other frame is the test's to answer.
 */
export class LogSocket extends FakeWebSocket {
  static oldest = 0;
  static refusal = null;
  /** false: a server older than requests that only repeat, refusing the field as
   * rollbridge's schema refuses any unknown one. */
  static knowsRepeat = true;
  /** A refusal every request asked only to repeat gets (a ruleset's, say), or null. */
  static repeatRefusal = null;

  send(data) {
    super.send(data);
    const message = JSON.parse(data);
    if (message.repeat === true && LogSocket.repeatRefusal) {
      const refusal = LogSocket.repeatRefusal;
      queueMicrotask(() => this.receive({ type: "error", id: message.id, ...refusal }));
      return;
    }
    if ("repeat" in message && !LogSocket.knowsRepeat) {
      const field = `${message.type}.repeat`;
      queueMicrotask(() => this.receive({ type: "error", id: message.id, code: "invalid_request", message: `${field}: is not a known field`, details: { field } }));
      return;
    }
    if (message.type !== "state" || !Number.isSafeInteger(message.at)) return;
    const at = message.at;
    const refusal = LogSocket.refusal;
    if (refusal) {
      queueMicrotask(() => this.receive({ type: "error", id: message.id, ...refusal }));
      return;
    }
    queueMicrotask(() => this.receive(at >= LogSocket.oldest
      ? { type: "result", id: message.id, table: { id: "t1", seq: at, actors: [] } }
      : { type: "error", id: message.id, code: "invalid_request", message: `state.at: seq ${at} is older than the retained event log`, details: { field: "at" } }));
  }
}

/** A stand-in for the browser's `localStorage` (the Web Storage API's getItem,
 * setItem, removeItem, key and length; values kept as strings, as a browser keeps
 * them): one per test "browser", shared by the pages (reloads) it opens. */
export class MemoryStorage {
  constructor() {
    this.items = new Map();
  }

  get length() {
    return this.items.size;
  }

  key(index) {
    return [...this.items.keys()][index] ?? null;
  }

  getItem(key) {
    return this.items.has(String(key)) ? this.items.get(String(key)) : null;
  }

  setItem(key, value) {
    this.items.set(String(key), String(value));
  }

  removeItem(key) {
    this.items.delete(String(key));
  }
}

/**
 * A STAND-IN for the browser's Web Locks API (`navigator.locks`: one LockManager per
 * origin, shared by its tabs), after the W3C Web Locks spec and MDN's LockManager.request():
 * `request(name, [options], callback)` queues a request for the lock `name`; an
 * `exclusive` one (the default) is granted when no lock of that name is held, a
 * `shared` one when only shared ones are, in the order they were asked; `ifAvailable`
 * calls the callback with null (not queued) when the lock cannot be granted at once;
 * the callback is called in a later task with the lock ({name, mode}), the lock is
 * released when the promise it returns settles, and the request's promise then
 * settles as it did. A name starting with "-" is refused (`NotSupportedError`), as is
 * `steal` with `ifAvailable`; `steal`, `signal` and `query()` are not modelled here and
 * are refused too, so a module using them fails here instead of passing untested.
 * The lock manager of a page with an opaque origin (`opaque`: a sandboxed frame)
 * refuses every request (`SecurityError`), as the spec's request() says.
 */
export class LockManagerStandin {
  constructor({ opaque = false } = {}) {
    /** @type {Map<string, {held: any[], pending: any[]}>} */
    this.names = new Map();
    this.opaque = opaque;
  }

  request(name, options, callback) {
    if (this.opaque) return Promise.reject(new DOMException("LockManager.request: the origin is opaque", "SecurityError"));
    if (typeof options === "function") [options, callback] = [{}, options];
    const { mode = "exclusive", ifAvailable = false, steal = false, signal } = options ?? {};
    if (typeof callback !== "function") return Promise.reject(new TypeError("LockManager.request: the callback is not a function"));
    if (mode !== "exclusive" && mode !== "shared") return Promise.reject(new TypeError(`LockManager.request: '${mode}' is not a valid LockMode`));
    const refuse = (why) => Promise.reject(new DOMException(`LockManager.request: ${why}`, "NotSupportedError"));
    if (String(name).startsWith("-")) return refuse("names starting with '-' are reserved");
    if (steal && ifAvailable) return refuse("steal and ifAvailable together");
    if (steal || signal) return refuse("steal and signal are not modelled by the stand-in");
    const lock = Object.freeze({ name: String(name), mode });
    const state = this.#state(lock.name);
    return new Promise((resolve, reject) => {
      if (ifAvailable && !(state.pending.length === 0 && this.#fits(state, mode))) {
        setImmediate(() => Promise.resolve().then(() => callback(null)).then(resolve, reject));
        return;
      }
      state.pending.push({ lock, callback, resolve, reject });
      this.#grant(lock.name);
    });
  }

  /** The locks held and asked for of `name`: [{mode}], for the tests. */
  held(name) {
    return (this.names.get(name)?.held ?? []).map(({ lock }) => lock.mode);
  }

  #state(name) {
    if (!this.names.has(name)) this.names.set(name, { held: [], pending: [] });
    return this.names.get(name);
  }

  #fits(state, mode) {
    return mode === "exclusive" ? state.held.length === 0 : state.held.every(({ lock }) => lock.mode === "shared");
  }

  #grant(name) {
    const state = this.#state(name);
    while (state.pending.length && this.#fits(state, state.pending[0].lock.mode)) {
      const request = state.pending.shift();
      state.held.push(request);
      setImmediate(() => {
        const release = () => {
          state.held.splice(state.held.indexOf(request), 1);
          this.#grant(name);
        };
        Promise.resolve()
          .then(() => request.callback(request.lock))
          .then(
            (value) => {
              release();
              request.resolve(value);
            },
            (error) => {
              release();
              request.reject(error);
            },
          );
      });
    }
  }
}

/**
 * A STAND-IN for one browser's tabs of one origin: one `localStorage` whose changes
 * fire a `storage` event (key, oldValue, newValue, storageArea, url) at each other
 * tab's window in a later task, as the HTML spec's Web Storage does (not at the tab
 * that wrote, and not when a value did not change), and one LockManagerStandin
 * (`locks`, or a new one). `openTab()` gives a tab's {window, localStorage, navigator}.
 */
export class BrowserStandin {
  constructor({ locks = new LockManagerStandin() } = {}) {
    this.store = new MemoryStorage();
    this.locks = locks;
    this.tabs = [];
  }

  openTab() {
    const store = this.store;
    const tab = { window: new EventTarget(), localStorage: null, navigator: { locks: this.locks } };
    const changed = (key, oldValue, newValue) => {
      for (const other of this.tabs) {
        if (other === tab) continue;
        const event = Object.assign(new Event("storage"), { key, oldValue, newValue, storageArea: other.localStorage, url: "https://foundry.example/game" });
        setImmediate(() => other.window.dispatchEvent(event));
      }
    };
    tab.localStorage = {
      get length() {
        return store.length;
      },
      key: (index) => store.key(index),
      getItem: (key) => store.getItem(key),
      setItem(key, value) {
        const old = store.getItem(key);
        store.setItem(key, value);
        if (old !== String(value)) changed(String(key), old, String(value));
      },
      removeItem(key) {
        const old = store.getItem(key);
        store.removeItem(key);
        if (old !== null) changed(String(key), old, null);
      },
    };
    this.tabs.push(tab);
    return tab;
  }
}
