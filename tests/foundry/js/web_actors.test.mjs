// The web view keeps the table's actors in the table's order as events arrive: an
// actor an undone removal puts back goes where it stood (its view's `index`), as
// `state` lists it, not last (core/engine/places.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { withActors } from "../../../core/server/webui/session.mjs";

const actor = (id, extra = {}) => ({ id, name: id, ...extra });
const ids = (actors) => [...actors.keys()];

test("an actor put back goes where it stood; a new one last; a changed one stays", () => {
  let actors = new Map(["ana", "bo", "guard"].map((id) => [id, actor(id)]));
  actors = withActors(actors, [{ id: "bo", removed: true }]);
  assert.deepEqual(ids(actors), ["ana", "guard"]);
  actors = withActors(actors, [actor("bo", { index: 1 })]);
  assert.deepEqual(ids(actors), ["ana", "bo", "guard"]);
  actors = withActors(actors, [actor("xena")]);
  assert.deepEqual(ids(actors), ["ana", "bo", "guard", "xena"]);
  actors = withActors(actors, [{ id: "ana", removed: true }, actor("ana", { index: 0 })]);
  assert.deepEqual(ids(actors), ["ana", "bo", "guard", "xena"]);
  actors = withActors(actors, [actor("guard", { name: "Guard 2" })]);
  assert.deepEqual(ids(actors), ["ana", "bo", "guard", "xena"]);
  assert.equal(actors.get("guard").name, "Guard 2");
  actors = withActors(actors, [actor("zed", { index: 99 })]); // past the end: last
  assert.deepEqual(ids(actors).at(-1), "zed");
});
