// Which languages a vault is written in, and the stems queries reach.
import { test } from "node:test";
import assert from "node:assert/strict";
import { detectLanguages, Stems } from "../../../src/core/search/languages";

const counts = (table: Record<string, number>) => (term: string): number => table[term] ?? 0;

test("a vault is detected by the function words most of its notes hold", () => {
  const english = { the: 95, and: 90, you: 60, is: 80, to: 90, of: 85, with: 50, that: 60, for: 70, this: 50, de: 3 };
  assert.deepEqual(detectLanguages(100, counts(english)), ["en"]);
  const spanish = { el: 90, los: 70, las: 60, que: 90, para: 80, con: 70, una: 60, por: 60, del: 60, se: 70, de: 98, the: 5 };
  assert.deepEqual(detectLanguages(100, counts(spanish)), ["es"]);
  const mixed = { ...english, der: 40, die: 45, und: 45, ist: 40, nicht: 30, mit: 35, sie: 30, ein: 30, auf: 30, zu: 35 };
  assert.deepEqual(detectLanguages(100, counts(mixed)), ["en", "de"]);
});

test("a vault without function words (empty, or a script without stems) stems as English", () => {
  assert.deepEqual(detectLanguages(0, counts({})), ["en"]);
  assert.deepEqual(detectLanguages(50, counts({ 東京: 20 })), ["en"]);
});

test("stems group inflections; the candidate prefix reaches every word of the stem", () => {
  const english = new Stems("en");
  assert.equal(english.of("restoring"), english.of("restored"));
  assert.equal(english.of("notes"), english.of("note"));
  assert.notEqual(english.of("heading"), english.of("reading"));
  // happy → happi: the prefix stops before the letter the stemmer changed.
  assert.equal(english.candidatePrefix("happiness", 3), "happ");
  assert.ok("happy".startsWith(english.candidatePrefix("happiness", 3)!));
  assert.equal(english.candidatePrefix("is", 3), null);
  const spanish = new Stems("es");
  assert.equal(spanish.of("notas"), spanish.of("nota"));
  const french = new Stems("fr");
  assert.equal(french.of("liens"), french.of("lien"));
});
