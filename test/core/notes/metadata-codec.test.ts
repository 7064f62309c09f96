import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import type { CachedMetadata, Pos } from "../../../src/core/notes/metadata";
import { decodeMetadata, encodeMetadata } from "../../../src/core/notes/metadata-codec";
import { parseNote, stripBom } from "../../../src/core/notes/structure";
import { EDGE_VAULT, HELP_VAULT, vaultFiles } from "../../support/vaults";

function fixtureCaches(root: string): [string, CachedMetadata][] {
  return vaultFiles(root)
    .filter((file) => file.endsWith(".md"))
    .map((file) => [file, parseNote(stripBom(readFileSync(path.join(root, file), "utf8")))]);
}

const fixtures = [...fixtureCaches(HELP_VAULT), ...fixtureCaches(EDGE_VAULT)];

function roundTrip(cache: CachedMetadata): CachedMetadata | null {
  return decodeMetadata(encodeMetadata(cache));
}

test("every note of the fixture vaults comes back the same, key order included", () => {
  assert.ok(fixtures.length > 150);
  let packedBytes = 0;
  let jsonBytes = 0;
  for (const [file, cache] of fixtures) {
    const packed = encodeMetadata(cache);
    const decoded = decodeMetadata(packed);
    assert.equal(JSON.stringify(decoded), JSON.stringify(cache), file);
    assert.deepStrictEqual(decoded, cache, file);
    packedBytes += packed.length;
    jsonBytes += JSON.stringify(cache).length;
  }
  assert.ok(packedBytes * 4 < jsonBytes, `${packedBytes} packed bytes for ${jsonBytes} of JSON`);
});

test("an encoding stays valid while later notes are encoded, small or large", () => {
  const [, small] = fixtures[0]!;
  const large: CachedMetadata = {
    links: Array.from({ length: 3000 }, (_, index) => ({
      link: `note ${index}`,
      original: `[[note ${index}]]`,
      displayText: `note ${index}`,
      position: { start: { line: index, col: 0, offset: index * 20 }, end: { line: index, col: 13, offset: index * 20 + 13 } },
    })),
  };
  const packedSmall = encodeMetadata(small);
  const packedLarge = encodeMetadata(large);
  for (const [, cache] of fixtures) encodeMetadata(cache);
  assert.deepStrictEqual(decodeMetadata(packedSmall), small);
  assert.deepStrictEqual(decodeMetadata(packedLarge), large);
});

test("thousands of records of distinct shapes come back the same, and the next note starts with no shapes", () => {
  const words = ["title", "date", "created", "updated", "status", "author", "source", "url", "category", "draft", "tags", "aliases"];
  const records: Record<string, number>[] = [];
  for (const a of words) for (const b of words) for (const c of words) if (a !== b && b !== c && a !== c) records.push({ [a]: 1, [b]: 2, [c]: 3 });
  assert.ok(records.length > 1000);
  const many: CachedMetadata = { ...fixtures[0]![1], frontmatter: { list: records, again: records.slice(0, 50).map((record) => ({ ...record })) } };
  const packed = encodeMetadata(many).slice();
  const [, next] = fixtures[1]!;
  const packedNext = encodeMetadata(next);
  assert.deepStrictEqual(decodeMetadata(packed), many);
  assert.deepStrictEqual(decodeMetadata(packedNext), next);
});

function noteWithFrontmatter(yaml: string): CachedMetadata {
  return parseNote(`---\n${yaml}\n---\nBody with [[a link]] and #tag.\n`);
}

test("frontmatter values JSON has no form for come back as the tools print them", () => {
  const cache = noteWithFrontmatter(
    [
      "__proto__: polluted?",
      "negativeZero: -0",
      "notANumber: .nan",
      "minusInfinity: -.inf",
      "tooBig: 1e400",
      "huge: 123456789012345678901234567890",
      "float: -12.5e-3",
      "hex: 0x1F",
      "date: !!timestamp 2001-12-14",
      "binary: !!binary aGVsbG8=",
      "set: !!set {x, y}",
      'lone: "\\ud800 and \\udfff"',
      "pair: 😀",
      "empty:",
      "nested: {a: [1, {b: null}], position: {start: {line: 1, col: 2, offset: 3}, end: {line: 4, col: 5, offset: 6}}}",
      "'1': numeric key",
      "link: '[[Target|Alias]]'",
    ].join("\n"),
  );
  const frontmatter = cache.frontmatter ?? {};
  assert.equal(Object.getOwnPropertyNames(frontmatter)[1], "__proto__", "the YAML parser keeps __proto__ as a key");
  const decoded = roundTrip(cache);
  assert.equal(JSON.stringify(decoded), JSON.stringify(cache));
  const data = decoded?.frontmatter ?? {};
  assert.equal(Object.getPrototypeOf(data), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyNames(data), Object.getOwnPropertyNames(frontmatter));
  assert.equal(Object.getOwnPropertyDescriptor(data, "__proto__")?.value, "polluted?");
  assert.ok(Object.is(data["negativeZero"], -0));
  assert.ok(Number.isNaN(data["notANumber"]));
  assert.equal(data["minusInfinity"], -Infinity);
  assert.equal(data["tooBig"], Infinity);
  assert.equal(data["huge"], frontmatter["huge"]);
  assert.equal(data["lone"], "\ud800 and \udfff");
  assert.equal(data["date"], "2001-12-14T00:00:00.000Z", "a Date reads back as its JSON");
  assert.deepEqual(data["nested"], frontmatter["nested"]);
  assert.deepEqual(decoded?.frontmatterLinks, cache.frontmatterLinks);
});

/**
 * Our parser refuses a recursive anchor (see frontmatter.ts), but a cache from elsewhere (Obsidian's
 * own parser) may hold the cycle it makes: `list: &a [1, *a]` and `map: &m {name: x, self: *m}`.
 */
function cacheWithRecursiveAlias(): CachedMetadata {
  const list: unknown[] = [1];
  list.push(list);
  const map: Record<string, unknown> = { name: "x" };
  map["self"] = map;
  return { ...parseNote("Body with [[a link]]."), frontmatter: { list, map } };
}

test("a recursive YAML alias comes back as the same cycle", () => {
  const cache = cacheWithRecursiveAlias();
  const decoded = roundTrip(cache);
  const list = decoded?.frontmatter?.["list"] as unknown[];
  const map = decoded?.frontmatter?.["map"] as Record<string, unknown>;
  assert.equal(list[0], 1);
  assert.equal(list[1], list);
  assert.equal(map["name"], "x");
  assert.equal(map["self"], map);
  assert.deepEqual(decoded?.links, cache.links);
});

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom("", " ", "x", "paragraph", "position", "__proto__", "tags", "[[", "]]", "#tag"),
);
const key = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "position", "start", "end", "line", "tags", "links", "0", "10"));
const number = fc.oneof(fc.integer(), fc.nat(100), fc.double(), fc.constantFrom(-0, 2 ** 53, -(2 ** 60), 1e300));

/** Like YAML's data: any JSON value, keys that JavaScript treats specially included. */
const frontmatterValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie("value"), { maxLength: 4 }),
    tie("record"),
  ),
  record: fc.array(fc.tuple(key, tie("value")), { maxLength: 5 }).map((entries) => {
    const record: Record<string, unknown> = {};
    for (const [name, value] of entries) Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
    return record;
  }),
}));

const offset = fc.oneof({ weight: 5, arbitrary: fc.nat(5000) }, fc.nat(2 ** 31), fc.integer(), fc.double());
const plain = { noNullPrototype: true };
const loc = fc.record({ line: offset, col: offset, offset }, plain);
/** Mostly positions the parser could make; sometimes numbers or shapes it never makes. */
const parserPosition = fc
  .tuple(fc.nat(500), fc.nat(80), fc.nat(20000), fc.nat(3), fc.nat(200), fc.nat(80))
  .map(([line, col, start, lines, length, endCol]) => ({
    start: { line, col, offset: start },
    end: { line: line + lines, col: lines === 0 ? col + length : endCol, offset: start + length },
  }));
const position: fc.Arbitrary<Pos> = fc.oneof(
  { weight: 5, arbitrary: parserPosition },
  fc.record({ start: loc, end: loc }, plain),
  fc.record({ end: loc, start: loc }, plain),
  fc.record({ start: loc, end: loc, extra: fc.nat() }, plain),
);
const link = fc.tuple(text, text, fc.boolean(), position).map(([target, alias, wiki, at]) => ({
  link: target,
  original: wiki ? `[[${target}|${alias}]]` : `[${alias}](${target})`,
  displayText: alias,
  position: at,
}));
const listItem = fc.record(
  { parent: fc.integer({ min: -500, max: 500 }), position, task: fc.constantFrom(" ", "x", "?"), id: text },
  { requiredKeys: ["parent", "position"], noNullPrototype: true },
);
const cacheArbitrary: fc.Arbitrary<CachedMetadata> = fc.record(
  {
    frontmatterPosition: position,
    frontmatter: frontmatterValue.record,
    links: fc.array(link, { minLength: 1, maxLength: 6 }),
    embeds: fc.array(link, { minLength: 1, maxLength: 2 }),
    tags: fc.array(fc.record({ tag: text, position }, plain), { minLength: 1, maxLength: 4 }),
    headings: fc.array(fc.record({ heading: text, level: fc.integer({ min: 1, max: 6 }), position }, plain), { minLength: 1, maxLength: 3 }),
    sections: fc.array(fc.record({ type: text, position, id: text }, { requiredKeys: ["type", "position"], noNullPrototype: true }), { minLength: 1, maxLength: 5 }),
    listItems: fc.array(listItem, { minLength: 1, maxLength: 6 }),
    frontmatterLinks: fc.array(fc.record({ key, link: text, original: text, displayText: text }, plain), { minLength: 1, maxLength: 2 }),
    blocks: fc.dictionary(fc.string({ maxLength: 8 }), fc.record({ id: text, position }, plain), plain),
  },
  { requiredKeys: [], noNullPrototype: true },
);

test("any cache of the parser's shapes comes back the same, whatever its frontmatter and positions", () => {
  fc.assert(
    fc.property(cacheArbitrary, (cache) => {
      const decoded = roundTrip(cache);
      assert.equal(JSON.stringify(decoded), JSON.stringify(cache));
      assert.deepStrictEqual(decoded, cache);
    }),
    { numRuns: 500 },
  );
});

function largestFixtureEncoding(): Uint8Array {
  const cache = noteWithFrontmatter(`a: -.inf\nb: !!timestamp 2001-12-14\nc: "\\ud800"\nlong: ${"y".repeat(300)}`);
  const special = encodeMetadata({ ...cache, frontmatter: { ...cache.frontmatter, cyclic: cacheWithRecursiveAlias().frontmatter } });
  const largest = fixtures.map(([, cache]) => encodeMetadata(cache)).reduce((a, b) => (a.length >= b.length ? a : b));
  const bytes = new Uint8Array(special.length + largest.length);
  bytes.set(largest);
  bytes.set(special, largest.length);
  return bytes;
}

test("malformed bytes read as null and never throw: truncations, other versions, corruption", () => {
  const [, cache] = fixtures.reduce((a, b) => (encodeMetadata(a[1]).length >= encodeMetadata(b[1]).length ? a : b));
  const real = encodeMetadata(cache);
  assert.ok(real.length > 1000);
  for (let length = 0; length < real.length; length++) assert.equal(decodeMetadata(real.subarray(0, length)), null, `truncated at ${length}`);
  for (const version of [0, 2, 0x7f, 0xff]) {
    const other = real.slice();
    other[0] = version;
    assert.equal(decodeMetadata(other), null, `version ${version}`);
  }
  assert.equal(decodeMetadata(Uint8Array.of(...real, 0)), null, "trailing bytes");
  for (const bytes of [largestFixtureEncoding()]) {
    for (let at = 1; at < bytes.length; at++) {
      const corrupt = bytes.slice();
      corrupt[at] = (corrupt[at] ?? 0) ^ 0xa5;
      assert.doesNotThrow(() => decodeMetadata(corrupt));
    }
  }
});

test("random bytes read as null, or as a cache when they happen to be one, and never throw", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (random, versioned) => {
      const bytes = versioned ? Uint8Array.of(1, ...random) : random;
      const decoded = decodeMetadata(bytes);
      if (bytes[0] !== 1) assert.equal(decoded, null);
      else assert.ok(decoded === null || (typeof decoded === "object" && !Array.isArray(decoded)));
    }),
    { numRuns: 2000 },
  );
  assert.equal(decodeMetadata(new Uint8Array(0)), null);
  const deep = new Uint8Array(200001).fill(0x09);
  deep[0] = 1;
  for (let at = 2; at < deep.length; at += 2) deep[at] = 1;
  assert.equal(decodeMetadata(deep), null, "nesting deeper than the stack");
});

test("strings that start with U+FEFF come back with it: a block id, a tag, a heading", () => {
  const at = { start: { line: 0, col: 0, offset: 0 }, end: { line: 0, col: 0, offset: 0 } };
  const cache = {
    blocks: { "\uFEFF": { id: "\uFEFF", position: at } },
    tags: [{ tag: "\uFEFF#tag", position: at }],
    headings: [{ heading: "\uFEFFHeading with a long enough name to be decoded natively", level: 1, position: at }],
  } as unknown as CachedMetadata;
  assert.deepStrictEqual(roundTrip(cache), cache);
});
