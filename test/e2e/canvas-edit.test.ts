// Canvases through the official SDK client over real HTTP, on a temp copy of edge-vault: attachment_read
// gives board.canvas as nodes and edges, and canvas_edit changes it through the write path (hash check,
// dry run, diff, trash copy, history), refusing edits that break JSON Canvas 1.0.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;

// A canvas as Obsidian writes one (tabs), with fields other plugins add: they must survive every edit.
const EXTENDED = `${JSON.stringify(
  {
    nodes: [
      { id: "6f0ad84f44ce9c17", type: "group", x: -40, y: -40, width: 700, height: 300, label: "Ideas", "advanced-canvas": { shape: "round" } },
      { id: "a1b2c3d4e5f60708", type: "text", text: "First idea", x: 0, y: 0, width: 250, height: 60, color: "2", styleAttributes: { border: "dashed" } },
      { id: "b1b2c3d4e5f60708", type: "file", file: "wiki/rate-limiting.md", subpath: "#Limits", x: 300, y: 0, width: 300, height: 200 },
    ],
    edges: [{ id: "c1b2c3d4e5f60708", fromNode: "a1b2c3d4e5f60708", fromSide: "right", toNode: "b1b2c3d4e5f60708", toSide: "left", toEnd: "arrow", "x-weight": 3 }],
    metadata: { version: "1.0-1.0", frontmatter: {} },
  },
  null,
  "\t",
)}`;

function errorOf(result: ToolCallResult): { code: string; message: string; state: string } {
  assert.equal(result.isError, true, result.text);
  return result.structured.error as { code: string; message: string; state: string };
}

function onDisk(relative: string): string {
  return readFileSync(path.join(server.vault.dir, relative), "utf8");
}

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge" });
  writeFileSync(path.join(server.vault.dir, "projects/ideas.canvas"), EXTENDED);
});
after(async () => {
  await server.stop();
});

describe("attachment_read of a canvas", () => {
  test("board.canvas comes as its nodes and edges, with counts by type", async () => {
    const result = await server.call("attachment_read", { path: "board.canvas" });
    assert.equal(result.isError, false, result.text);
    const board = JSON.parse(onDisk("board.canvas")) as { nodes: unknown[]; edges: unknown[] };
    assert.equal(result.structured.format, "canvas");
    assert.deepEqual(result.structured.nodes, board.nodes);
    assert.deepEqual(result.structured.edges, board.edges);
    assert.equal(result.structured.total_nodes, 2);
    assert.equal(result.structured.total_edges, 1);
    assert.deepEqual(result.structured.node_types, { text: 1, file: 1 });
    assert.equal(result.structured.problems, undefined);
    assert.equal(result.structured.next_cursor, undefined);
  });

  test("a window of items continues through the cursor: nodes first, then edges", async () => {
    const first = await server.call("attachment_read", { path: "projects/ideas.canvas", limit: 2 });
    assert.equal((first.structured.nodes as unknown[]).length, 2);
    assert.deepEqual(first.structured.edges, []);
    const second = await server.call("attachment_read", { path: "projects/ideas.canvas", cursor: first.structured.next_cursor, limit: 2 });
    assert.deepEqual((second.structured.nodes as Array<{ id: string }>).map((node) => node.id), ["b1b2c3d4e5f60708"]);
    assert.deepEqual((second.structured.edges as Array<{ id: string }>).map((edge) => edge.id), ["c1b2c3d4e5f60708"]);
    assert.equal(second.structured.next_cursor, undefined);
  });
});

describe("canvas_edit", () => {
  test("a dry run shows the diff and writes nothing", async () => {
    const before = onDisk("board.canvas");
    const result = await server.call("canvas_edit", { path: "board.canvas", action: "add_node", fields: { type: "text", text: "Token bucket" }, dry_run: true });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.structured.dry_run, true);
    assert.match(result.structured.diff as string, /Token bucket/);
    assert.equal(onDisk("board.canvas"), before);
  });

  test("add_node and add_edge with the content_hash of the read: written, valid, a trash copy of each previous version", async () => {
    const read = await server.call("attachment_read", { path: "board.canvas" });
    const original = onDisk("board.canvas");
    const node = await server.call("canvas_edit", {
      path: "board.canvas",
      action: "add_node",
      fields: { type: "text", text: "Token bucket", color: "3" },
      content_hash: read.structured.content_hash,
      reason: "card for the algorithm",
    });
    assert.equal(node.isError, false, node.text);
    const id = node.structured.id as string;
    assert.deepEqual(node.structured.node, { id, type: "text", x: 0, y: 440, width: 250, height: 60, text: "Token bucket", color: "3" });
    assert.equal(readFileSync(path.join(server.vault.dir, node.structured.trash as string), "utf8"), original);
    const edge = await server.call("canvas_edit", {
      path: "board.canvas",
      action: "add_edge",
      fields: { fromNode: "n1", toNode: id, fromSide: "bottom", toSide: "top", label: "implemented by" },
      content_hash: node.structured.content_hash,
    });
    assert.equal(edge.isError, false, edge.text);
    const saved = JSON.parse(onDisk("board.canvas")) as { nodes: Array<{ id: string }>; edges: Array<Record<string, unknown>> };
    assert.deepEqual(saved.nodes.map((n) => n.id), ["n1", "n2", id]);
    assert.deepEqual(saved.edges.at(-1), { id: edge.structured.id, fromNode: "n1", toNode: id, fromSide: "bottom", toSide: "top", label: "implemented by" });
    const reread = await server.call("attachment_read", { path: "board.canvas" });
    assert.equal(reread.structured.content_hash, edge.structured.content_hash);
    assert.equal(reread.structured.problems, undefined, "still valid JSON Canvas");
    const history = await server.call("note_history", { path: "board.canvas" });
    assert.ok((history.structured.revisions as Array<{ message: string }>).some((revision) => revision.message.startsWith("canvas_edit(add_node): board.canvas")), history.text);
  });

  test("a stale content_hash is refused and nothing is written", async () => {
    const before = onDisk("board.canvas");
    const error = errorOf(await server.call("canvas_edit", { path: "board.canvas", action: "remove_node", id: "n1", content_hash: "0".repeat(32) }));
    assert.equal(error.code, "conflict");
    assert.equal(error.state, "not_applied");
    assert.equal(onDisk("board.canvas"), before);
  });

  test("edits that break the spec are refused unwritten, naming the rule", async () => {
    const before = onDisk("board.canvas");
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ action: "add_edge", fields: { fromNode: "n1", toNode: "ghost" } }, /toNode "ghost" is not a node of this canvas/],
      [{ action: "add_node", id: "n2", fields: { type: "text", text: "again" } }, /"n2" is already used/],
      [{ action: "add_node", fields: { type: "video", x: 0, y: 0 } }, /type must be one of text, file, link, group/],
      [{ action: "change_node", id: "n1", fields: { width: 12.5 } }, /width must be an integer/],
      [{ action: "change_node", id: "n1", fields: { color: "purple" } }, /color must be a preset/],
      [{ action: "change_edge", id: "e1", fields: { toEnd: "diamond" } }, /toEnd must be one of none, arrow/],
      [{ action: "change_node", id: "n2", fields: { file: null } }, /a file node needs `file`/],
    ];
    for (const [args, message] of cases) {
      const error = errorOf(await server.call("canvas_edit", { path: "board.canvas", ...args }));
      assert.equal(error.code, "invalid_argument", JSON.stringify(args));
      assert.match(error.message, message);
    }
    assert.equal(errorOf(await server.call("canvas_edit", { path: "board.canvas", action: "remove_edge", id: "nope" })).code, "not_found");
    assert.equal(onDisk("board.canvas"), before);
  });

  test("change_node keeps the fields other apps added, the key order and Obsidian's tab indentation", async () => {
    const result = await server.call("canvas_edit", {
      path: "projects/ideas.canvas",
      action: "change_node",
      id: "a1b2c3d4e5f60708",
      fields: JSON.stringify({ text: "First idea, refined", color: null }),
    });
    assert.equal(result.isError, false, result.text);
    const expected = JSON.parse(EXTENDED) as { nodes: Array<Record<string, unknown>> };
    expected.nodes[1]!.text = "First idea, refined";
    delete expected.nodes[1]!.color;
    assert.equal(onDisk("projects/ideas.canvas"), JSON.stringify(expected, null, "\t"));
    assert.match(result.structured.diff as string, /-\t\t\t"text": "First idea",\n\+\t\t\t"text": "First idea, refined",/);
  });

  test("remove_node removes its edges too, and a file node pointing nowhere is written with a warning", async () => {
    const removed = await server.call("canvas_edit", { path: "projects/ideas.canvas", action: "remove_node", id: "b1b2c3d4e5f60708" });
    assert.equal(removed.isError, false, removed.text);
    assert.deepEqual(removed.structured.removed_edges, ["c1b2c3d4e5f60708"]);
    const saved = JSON.parse(onDisk("projects/ideas.canvas")) as { edges: unknown[]; metadata: unknown };
    assert.deepEqual(saved.edges, []);
    assert.deepEqual(saved.metadata, { version: "1.0-1.0", frontmatter: {} }, "top-level fields besides nodes and edges stay");
    const missing = await server.call("canvas_edit", { path: "projects/ideas.canvas", action: "add_node", fields: { type: "file", file: "wiki/not-there.md", x: 0, y: 400 } });
    assert.equal(missing.isError, false, missing.text);
    assert.match((missing.structured.warnings as string[]).join(" "), /"wiki\/not-there.md", which is not a file of this vault/);
  });

  test("paths: only canvases, only inside the vault, and a missing canvas says how to create one", async () => {
    assert.equal(errorOf(await server.call("canvas_edit", { path: "../board.canvas", action: "remove_node", id: "n1" })).code, "invalid_path");
    assert.equal(errorOf(await server.call("canvas_edit", { path: ".trash/board.canvas", action: "remove_node", id: "n1" })).code, "invalid_path");
    assert.match(errorOf(await server.call("canvas_edit", { path: "wiki/rate-limiting.md", action: "remove_node", id: "n1" })).message, /not a canvas/);
    const missing = errorOf(await server.call("canvas_edit", { path: "nowhere.canvas", action: "add_node", fields: { text: "x" } }));
    assert.equal(missing.code, "not_found");
    assert.match(missing.message, /attachment_put/);
  });
});
