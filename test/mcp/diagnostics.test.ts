// An unexpected failure is logged as its kind and stack frames, the frames' files by name only.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { LogRecord } from "../../src/core/ports";
import { logUnexpected } from "../../src/mcp/diagnostics";

test("logUnexpected logs no message and no folder of the host, only the frames' file names", () => {
  const error = new Error("note text that must not be logged");
  error.stack = [
    "Error: note text that must not be logged",
    "    at handler (/home/ada-lovelace/apps/secondbrain/dist/cli.js:12:3)",
    "    at file:///home/ada-lovelace/apps/secondbrain/x.mjs:1:2",
    "    at C:\\Users\\ada-lovelace\\secondbrain\\cli.js:4:5",
    "    at async Promise.all (index 0)",
    "    at node:internal/fs/promises:1:1",
  ].join("\n");
  const records: LogRecord[] = [];
  logUnexpected({ log: (record) => records.push(record) }, "tool_exception", error, { tool: "t" });
  const line = JSON.stringify(records);
  assert.ok(!line.includes("ada-lovelace") && !line.includes("/home") && !line.includes("note text"), line);
  assert.equal(records[0]?.stack, ["    at handler (cli.js:12:3)", "    at x.mjs:1:2", "    at cli.js:4:5", "    at async Promise.all (index 0)", "    at node:internal/fs/promises:1:1"].join("\n"));
});
