import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ToolError } from "../../../src/core/errors";
import { readWindow, utf8Length } from "../../../src/core/notes/window";

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function refusedWith(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (error) => error instanceof ToolError && error.code === "invalid_argument" && pattern.test(error.message));
}

test("a window that fits returns everything without next_byte_offset", () => {
  const window = readWindow(encode("hello"), 0, 64);
  assert.deepEqual(window, { text: "hello", byte_offset: 0, byte_count: 5, total_bytes: 5 });
});

test("the end moves back to a character boundary", () => {
  const bytes = encode("aé日🙂z"); // 1 + 2 + 3 + 4 + 1 bytes
  const first = readWindow(bytes, 0, 5);
  assert.deepEqual([first.text, first.byte_count, first.next_byte_offset], ["aé", 3, 3]);
  const second = readWindow(bytes, 3, 6);
  assert.deepEqual([second.text, second.next_byte_offset], ["日", 6]);
  const third = readWindow(bytes, 6, 5);
  assert.deepEqual([third.text, third.next_byte_offset], ["🙂z", undefined]);
});

test("offsets inside a character, out of range, or too small a window are refused", () => {
  const bytes = encode("日本");
  refusedWith(() => readWindow(bytes, 1, 10), /next_byte_offset/);
  refusedWith(() => readWindow(bytes, 7, 10), /outside the file/);
  refusedWith(() => readWindow(bytes, -1, 10), /outside the file/);
  refusedWith(() => readWindow(bytes, 0, 2), /at least 4/);
  refusedWith(() => readWindow(bytes, 0, 0), /positive/);
  assert.deepEqual(readWindow(bytes, 6, 10), { text: "", byte_offset: 6, byte_count: 0, total_bytes: 6 });
});

test("a BOM stays in the text so text and byte counts agree", () => {
  const window = readWindow(encode("\uFEFF# x"), 0, 100);
  assert.equal(window.text, "\uFEFF# x");
  assert.equal(utf8Length(window.text), window.byte_count);
});

test("consecutive windows rebuild the exact text, invalid UTF-8 included", () => {
  const text = fc.string({ unit: fc.constantFrom("a", "é", "日", "🙂", "\n", "\uFEFF"), maxLength: 60 });
  fc.assert(
    fc.property(text, fc.integer({ min: 4, max: 20 }), fc.boolean(), (source, maxBytes, corrupt) => {
      const bytes = encode(source);
      if (corrupt && bytes.length > 2) bytes[Math.floor(bytes.length / 2)] = 0x80;
      let offset = 0;
      const parts: Uint8Array[] = [];
      for (;;) {
        const window = readWindow(bytes, offset, maxBytes);
        assert.ok(window.byte_count <= maxBytes);
        parts.push(bytes.subarray(offset, offset + window.byte_count));
        if (!corrupt) assert.equal(utf8Length(window.text), window.byte_count);
        if (window.next_byte_offset === undefined) break;
        assert.ok(window.next_byte_offset > offset);
        offset = window.next_byte_offset;
      }
      assert.deepEqual(Buffer.concat(parts), Buffer.from(bytes));
    }),
    { numRuns: 500 },
  );
});

test("utf8Length matches TextEncoder, lone surrogates as U+FFFD", () => {
  fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => assert.equal(utf8Length(text), encode(text).length)));
  assert.equal(utf8Length("\ud800"), 3);
  assert.equal(utf8Length("a\udc00b"), 5);
});
