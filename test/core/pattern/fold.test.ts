// Case folding taken from the runtime's case mappings is the simple case folding that RegExp's `iu`
// uses, and the blocks the table is built from hold every character that has a case variant.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CASED_BLOCKS, computeFold, foldCodePoint, sameFold } from "../../../src/core/pattern/fold";

const inBlocks = (cp: number): boolean => CASED_BLOCKS.some(([low, high]) => cp >= low && cp <= high);
const single = (text: string): number | undefined => (Array.from(text).length === 1 ? text.codePointAt(0) : undefined);

test("no character outside the scanned blocks has a case variant", () => {
  const missed: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (!inBlocks(cp) && computeFold(cp) !== cp) missed.push(cp.toString(16));
  }
  assert.deepEqual(missed, []);
});

test("each character and its fold are equal to RegExp under iu, and so are its case mappings exactly when their folds are", () => {
  const wrong: string[] = [];
  for (const [low, high] of CASED_BLOCKS) {
    for (let cp = low; cp <= high; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const folded = foldCodePoint(cp);
      const same = new RegExp(`^\\u{${cp.toString(16)}}$`, "iu");
      if (!same.test(String.fromCodePoint(folded))) wrong.push(`${cp.toString(16)}→${folded.toString(16)}`);
      const text = String.fromCodePoint(cp);
      for (const variant of [text.toLowerCase(), text.toUpperCase(), text.toUpperCase().toLowerCase(), text.toLowerCase().toUpperCase()]) {
        const other = single(variant);
        if (other === undefined || other === cp) continue;
        if (same.test(variant) !== (foldCodePoint(other) === folded)) wrong.push(`${cp.toString(16)}~${other.toString(16)}`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test("the special cases: Kelvin sign, long s, final sigma, dotless and dotted i", () => {
  assert.deepEqual(sameFold(0x6b).sort((x, y) => x - y), [0x4b, 0x6b, 0x212a]);
  assert.deepEqual(sameFold(0x73).sort((x, y) => x - y), [0x53, 0x73, 0x17f]);
  assert.deepEqual(sameFold(0x3c2).sort((x, y) => x - y), [0x3a3, 0x3c2, 0x3c3]);
  assert.deepEqual(sameFold(0x131), [0x131]);
  assert.deepEqual(sameFold(0x130), [0x130]);
});
