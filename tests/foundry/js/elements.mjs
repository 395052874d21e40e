// A rendered chat message as Node's tests stand it in (Node has no DOM): the
// element a render hook hands over, with the card's element in it when the
// message is a rollbridge card, and what the module's buttons do with them
// (insertAdjacentHTML, querySelector, click listeners). v13's render hook hands
// the element (an HTMLElement), v12's a jQuery object holding it.

import assert from "node:assert/strict";

export class FakeButtons {
  constructor(html) {
    this.html = html;
    this.listeners = [];
    this.removed = false;
  }
  addEventListener(type, fn) {
    this.listeners.push([type, fn]);
  }
  remove() {
    this.removed = true;
  }
  /** Press the button of `action`, as a click on it bubbles to the container. */
  click(action) {
    const button = { dataset: { rollbridgeAction: action }, disabled: false };
    for (const [type, fn] of this.listeners) {
      if (type === "click") fn({ target: { closest: () => button }, preventDefault() {} });
    }
    return button;
  }
}

export class FakeCard {
  constructor() {
    this.buttons = null;
    this.classList = new Set(); // the classes the module adds (add, has)
  }
  querySelector(selector) {
    return selector === ".rollbridge-buttons" && this.buttons && !this.buttons.removed ? this.buttons : null;
  }
  insertAdjacentHTML(where, html) {
    assert.equal(where, "beforeend");
    this.buttons = new FakeButtons(html);
  }
  /** The buttons' HTML as shown ("" for none). */
  get shown() {
    return this.buttons && !this.buttons.removed ? this.buttons.html : "";
  }
}

globalThis.HTMLElement ??= class HTMLElement {};

/** A message's element; `card`: whether it holds a rollbridge card. */
export class FakeMessageElement extends globalThis.HTMLElement {
  constructor({ card = true } = {}) {
    super();
    this.card = card ? new FakeCard() : null;
    this.appended = []; // the elements the module appends (a note: {className, textContent})
  }
  querySelector(selector) {
    if (selector === ".rollbridge-card") return this.card;
    return this.appended.find((node) => selector === `.${node.className}`) ?? null;
  }
  append(...nodes) {
    this.appended.push(...nodes);
  }
}

/**
 * Headless, the chat log draws each message it shows into a fake element
 * (FoundryStandin.headlessElement), and the module's render hook (rollbridge.mjs:
 * v13's renderChatMessageHTML, v12's renderChatMessage) hands it to `render`
 * (message, html): the buttons' addButtons. Returns message id → the element it
 * was last drawn into.
 */
export function drawMessages(generation, render) {
  const elements = new Map();
  globalThis.FoundryStandin.headlessElement = (message) => {
    const element = new FakeMessageElement({ card: String(message.content).includes("rollbridge-card") });
    elements.set(message.id, element);
    return element;
  };
  Hooks.on(generation >= 13 ? "renderChatMessageHTML" : "renderChatMessage", render);
  return elements;
}
