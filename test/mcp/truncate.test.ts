import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeResult, fitResult, utf8Bytes, type TruncationNote } from "../../src/mcp/truncate";

function entries(count: number): Array<{ path: string; snippet: string }> {
  return Array.from({ length: count }, (_, index) => ({ path: `notes/${index}.md`, snippet: `text ${index} `.repeat(5) }));
}

function size(result: Record<string, unknown>): number {
  return utf8Bytes(encodeResult(result));
}

test("a result that fits is returned as it is", () => {
  const result = { vault: "v", hits: entries(3) };
  assert.equal(fitResult(result, 10_000), result);
});

test("the largest list loses items from its end until the encoded result fits", () => {
  const result = { vault: "v", total: 400, returned: 400, hits: entries(400), tags: ["a", "b"] };
  const fitted = fitResult(result, 8_000, { tool: "note_search", offset: 20, takesLimit: true });
  const hits = fitted.hits as unknown[];
  assert.ok(size(fitted) <= 8_000);
  assert.ok(hits.length > 20, `kept ${hits.length}`);
  assert.deepEqual(hits, result.hits.slice(0, hits.length));
  assert.equal(fitted.returned, hits.length);
  assert.equal(fitted.total, 400);
  assert.deepEqual(fitted.tags, ["a", "b"]);
  const note = fitted.response_truncated as TruncationNote;
  assert.deepEqual(note, {
    hint: `The result was cut to fit the response limit of 8000 bytes (it was ${size(result)}), keeping hits: ${hits.length} of 400 items. For the rest, call note_search again with offset: ${20 + hits.length} and the same other arguments (limit: ${hits.length} or less fits whole).`,
    actual_bytes: size(result),
    allowed_bytes: 8_000,
    cut: [{ field: "hits", kept: hits.length, of: 400, unit: "items" }],
  });
  assert.deepEqual(Object.keys(fitted).slice(0, 2), ["response_truncated", "vault"], "the note comes first");
  assert.ok(encodeResult(fitted).startsWith(`{\n  "response_truncated": {\n    "hint": "The result was cut`));
  assert.equal((result.hits as unknown[]).length, 400, "the input is not changed");
  // One more item would not have fitted.
  const oneMore = { ...fitted, hits: result.hits.slice(0, hits.length + 1), returned: hits.length + 1 };
  assert.ok(size(oneMore) > 8_000);
});

test("a long text is cut without splitting a character", () => {
  const result = { vault: "v", path: "a.md", content: "ab😀".repeat(20_000) };
  const fitted = fitResult(result, 10_000);
  const content = fitted.content as string;
  assert.ok(size(fitted) <= 10_000);
  assert.ok(content.length > 5_000);
  assert.ok(result.content.startsWith(content));
  assert.doesNotThrow(() => encodeURIComponent(content), "no lone surrogate");
  assert.deepEqual((fitted.response_truncated as TruncationNote).cut, [{ field: "content", kept: content.length, of: result.content.length, unit: "chars" }]);
});

test("several large parts are cut one after another, nested lists included", () => {
  const result = { vault: "v", outgoing: entries(200), incoming: entries(300), details: { matches: entries(100) } };
  const fitted = fitResult(result, 6_000);
  assert.ok(size(fitted) <= 6_000);
  const cut = (fitted.response_truncated as TruncationNote).cut.map((record) => record.field);
  assert.equal(cut[0], "incoming");
  assert.ok(cut.includes("outgoing"));
});

test("without an offset to page by, the hint says to narrow the call, and how small a limit fits", () => {
  const result = { vault: "v", total: 300, returned: 300, truncated: false, matches: entries(300) };
  const fitted = fitResult(result, 5_000, { tool: "vault_grep", takesLimit: true });
  const kept = (fitted.matches as unknown[]).length;
  assert.ok(size(fitted) <= 5_000);
  assert.match(
    (fitted.response_truncated as TruncationNote).hint,
    new RegExp(`keeping matches: ${kept} of 300 items\\. The rest is not in this result: narrow the call \\(prefix, glob, a more specific pattern or query\\) to reach it \\(limit: ${kept} or less fits whole\\)\\.$`),
  );
});

test("a result that cannot shrink enough is still returned, marked, with every list emptied", () => {
  const result = { vault: "v", note: "x".repeat(100), hits: entries(50) };
  const fitted = fitResult(result, 200);
  assert.deepEqual(fitted.hits, []);
  assert.equal((fitted.response_truncated as TruncationNote).allowed_bytes, 200);
});
