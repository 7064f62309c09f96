// The format registry: one reader per extension, looked up case-insensitively, and base64 without Buffer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FORMATS } from "../../../src/core/formats";
import { base64Of, FormatRegistry, type FormatReader } from "../../../src/core/formats/registry";

const reader = (format: string, extensions: string[]): FormatReader => ({ format, extensions, read: () => ({ body: {} }) });

test("a second reader for an extension is refused, naming both", () => {
  const registry = new FormatRegistry([reader("text", ["txt", "log"])]);
  assert.throws(() => registry.register(reader("other", ["log"])), /\.log already has the text reader; other/);
  assert.equal(registry.reader("LOG")?.format, "text");
  assert.equal(registry.reader("pdf"), undefined);
  assert.deepEqual(registry.extensions(), ["log", "txt"]);
});

test("the built-in registry reads logs and text as text", () => {
  assert.equal(FORMATS.reader("log")?.format, "text");
  assert.equal(FORMATS.reader("txt")?.format, "text");
});

test("base64Of matches Node's encoder for every length remainder and all byte values", () => {
  for (const length of [0, 1, 2, 3, 4, 5, 256, 10_000]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 255);
    assert.equal(base64Of(bytes), Buffer.from(bytes).toString("base64"), `length ${length}`);
  }
});
