// JSON Canvas 1.0 checks and edits on the fixture's canvas and on what the spec allows and forbids.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { applyCanvasEdit, canvasProblems, parseCanvas, serializeCanvas, type Canvas } from "../../../src/core/formats/canvas";
import { EDGE_VAULT } from "../../support/vaults";

const BOARD = readFileSync(path.join(EDGE_VAULT, "board.canvas"), "utf8");

function board(): Canvas {
  return parseCanvas("board.canvas", BOARD);
}

test("the fixture's canvas is valid JSON Canvas", () => {
  assert.deepEqual(canvasProblems(board()), []);
});

test("each rule of the spec is checked: ids, types, integers, required fields, colors, sides, ends, edge targets", () => {
  const canvas = parseCanvas("x.canvas", JSON.stringify({
    nodes: [
      { id: "a", type: "text", text: "A", x: 0, y: 0, width: 10, height: 10, color: "7" },
      { id: "a", type: "file", x: 0.5, y: 0, width: 10, height: 10 },
      { id: "g", type: "group", x: 0, y: 0, width: 10, height: 10, backgroundStyle: "stretch", color: "#12345" },
      { id: "s", type: "shape", x: 0, y: 0, width: 0, height: 10 },
      { id: "f", type: "file", file: "x.md", subpath: "heading", x: 0, y: 0, width: 10, height: 10 },
    ],
    edges: [
      { id: "e", fromNode: "a", toNode: "missing", fromSide: "middle", toEnd: "circle" },
      { id: "e", fromNode: "a", toNode: "g", color: "#FF0000" },
    ],
  }));
  const problems = canvasProblems(canvas).join("\n");
  for (const expected of [
    /node "a": color must be a preset "1" to "6"/,
    /node "a": x must be an integer/,
    /node "a": a file node needs `file`/,
    /node "a": the id is used by more than one node/,
    /node "g": backgroundStyle must be one of cover, ratio, repeat/,
    /node "g": color must be/,
    /node "s": type must be one of text, file, link, group/,
    /node "s": width must be positive/,
    /node "f": subpath must start with #/,
    /edge "e": toNode "missing" is not a node of this canvas/,
    /edge "e": fromSide must be one of top, right, bottom, left/,
    /edge "e": toEnd must be one of none, arrow/,
    /edge "e": the id is used by more than one node or edge/,
  ]) assert.match(problems, expected);
  assert.doesNotMatch(problems, /edge "e": color/, "a six-digit hex color is fine");
});

test("add_node fills id, position and size; add_edge links it; unknown fields are kept", () => {
  const canvas = board();
  const added = applyCanvasEdit(canvas, { action: "add_node", fields: { type: "link", url: "https://jsoncanvas.org", "x-app": { pinned: true } } }, "board.canvas");
  assert.match(added.id, /^[0-9a-f]{16}$/);
  assert.deepEqual(added.item, { id: added.id, type: "link", x: 0, y: 440, width: 400, height: 400, url: "https://jsoncanvas.org", "x-app": { pinned: true } });
  const edge = applyCanvasEdit(canvas, { action: "add_edge", id: "e2", fields: { fromNode: "n2", toNode: added.id, toEnd: "arrow", label: "see" } }, "board.canvas");
  assert.equal(edge.id, "e2");
  assert.deepEqual(canvasProblems(canvas), []);
  assert.equal(canvas.nodes.length, 3);
  assert.equal(canvas.edges.length, 2);
});

test("edits that break the spec are refused and name the rule; the canvas is not half-changed by a refused add", () => {
  const canvas = board();
  assert.throws(() => applyCanvasEdit(canvas, { action: "add_edge", fields: { fromNode: "n1", toNode: "nope" } }, "b.canvas"), /toNode "nope" is not a node/);
  assert.throws(() => applyCanvasEdit(canvas, { action: "add_node", id: "n1", fields: { text: "dup" } }, "b.canvas"), /"n1" is already used/);
  assert.throws(() => applyCanvasEdit(canvas, { action: "add_node", fields: { type: "text" } }, "b.canvas"), /a text node needs `text`/);
  assert.throws(() => applyCanvasEdit(canvas, { action: "change_node", id: "n1", fields: { color: "red" } }, "b.canvas"), /color must be/);
  assert.throws(() => applyCanvasEdit(canvas, { action: "change_node", id: "n1", fields: { id: "n9" } }, "b.canvas"), /id cannot be changed/);
  assert.throws(() => applyCanvasEdit(canvas, { action: "change_edge", id: "e1", fields: { fromSide: "inside" } }, "b.canvas"), /fromSide must be one of/);
  assert.throws(() => applyCanvasEdit(canvas, { action: "remove_node", id: "zz" }, "b.canvas"), (error: Error & { code?: string }) => error.code === "not_found");
});

test("change_node sets and removes fields; remove_node takes its edges with it", () => {
  const canvas = board();
  applyCanvasEdit(canvas, { action: "change_node", id: "n1", fields: { text: "Rate limits", color: "4", x: 20 } }, "b.canvas");
  assert.deepEqual(canvas.nodes[0], { id: "n1", type: "text", text: "Rate limits", x: 20, y: 0, width: 250, height: 60, color: "4" });
  applyCanvasEdit(canvas, { action: "change_node", id: "n1", fields: { color: null } }, "b.canvas");
  assert.equal(canvas.nodes[0].color, undefined);
  const removed = applyCanvasEdit(canvas, { action: "remove_node", id: "n2" }, "b.canvas");
  assert.deepEqual(removed.removed_edges, ["e1"]);
  assert.deepEqual(canvas.edges, []);
  assert.deepEqual(canvasProblems(canvas), []);
});

test("serialising keeps the file's style: one line stays one line, tabs stay tabs, two spaces stay two spaces", () => {
  const canvas = board();
  assert.equal(serializeCanvas(canvas, BOARD), JSON.stringify(JSON.parse(BOARD)) + (BOARD.endsWith("\n") ? "\n" : ""));
  const tabbed = JSON.stringify(JSON.parse(BOARD), null, "\t") + "\n";
  assert.equal(serializeCanvas(parseCanvas("t.canvas", tabbed), tabbed), tabbed);
  const spaced = JSON.stringify(JSON.parse(BOARD), null, 2);
  assert.equal(serializeCanvas(parseCanvas("s.canvas", spaced), spaced), spaced);
});
