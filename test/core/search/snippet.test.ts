import { test } from "node:test";
import assert from "node:assert/strict";
import { parseQuery } from "../../../src/core/search/query";
import { makeSnippet } from "../../../src/core/search/snippet";

const filler = (words: number, word = "lorem"): string => Array.from({ length: words }, () => word).join(" ");

test("matches are marked with << >>", () => {
  assert.equal(makeSnippet("When empty, the bucket refills slowly.", parseQuery("bucket")), "When empty, the <<bucket>> refills slowly.");
});

test("marks follow the index: case, diacritics, explicit prefixes and the terms the hit matched", () => {
  const snippet = makeSnippet("Die Größe der Straße. Many Snapshots were taken.", parseQuery("grosse strasse snapshot"), { matchedTerms: ["snapshots"] });
  assert.equal(snippet, "Die <<Größe>> der <<Straße>>. Many <<Snapshots>> were taken.");
  assert.equal(makeSnippet("Many Snapshots were taken.", parseQuery("snap*")), "Many <<Snapshots>> were taken.");
  assert.equal(makeSnippet("Many Snapshots were taken.", parseQuery("snapshot")), "Many Snapshots were taken.", "without the hit's terms, only the word itself");
});

test("stop words are not marked when the query has real words", () => {
  assert.equal(makeSnippet("the bucket of the well", parseQuery("the bucket")), "the <<bucket>> of the well");
});

test("phrase words are marked", () => {
  assert.equal(makeSnippet("a token bucket here", parseQuery('"token bucket"')), "a <<token>> <<bucket>> here");
});

test("the window sits on the densest cluster of distinct query words, cut at word boundaries", () => {
  const body = `${filler(60)} bucket ${filler(60)} the token bucket refills at a fixed rate ${filler(60)} rate`;
  const snippet = makeSnippet(body, parseQuery("token bucket rate"));
  assert.match(snippet, /<<token>> <<bucket>> refills at a fixed <<rate>>/);
  assert.ok(snippet.startsWith("…") && snippet.endsWith("…"), snippet);
  const visible = snippet.replace(/<<|>>|…/g, "");
  assert.ok(visible.length <= 220 && visible.length >= 150, String(visible.length));
  const whole = ["lorem", "the", "token", "bucket", "refills", "at", "a", "fixed", "rate"];
  for (const word of visible.split(" ")) assert.ok(whole.includes(word), `a cut word: ${word}`);
});

test("newlines are collapsed to single spaces", () => {
  assert.equal(makeSnippet("First line\n\n  second   bucket\tline\n", parseQuery("bucket")), "First line second <<bucket>> line");
});

test("maxChars sets the window size", () => {
  const body = `${filler(100)} bucket ${filler(100)}`;
  const short = makeSnippet(body, parseQuery("bucket"), { maxChars: 60 });
  assert.ok(short.replace(/<<|>>|…/g, "").length <= 70, short);
  assert.match(short, /<<bucket>>/);
});

test("CJK matches are marked inside a run without spaces", () => {
  assert.equal(makeSnippet("今日は東京で雨が降っています", parseQuery("東京")), "今日は<<東京>>で雨が降っています");
});

test("without a visible match (a fuzzy hit) the snippet is the start of the body", () => {
  const body = `Intro words here ${filler(80)} end`;
  const snippet = makeSnippet(body, parseQuery("bocket"));
  assert.ok(snippet.startsWith("Intro words here lorem"));
  assert.ok(snippet.endsWith("lorem…"), snippet);
  assert.ok(snippet.length <= 202);
  assert.equal(makeSnippet("  short body\n", parseQuery("zebra")), "short body");
});

test("an empty body gives an empty snippet", () => {
  assert.equal(makeSnippet("", parseQuery("bucket")), "");
});

test("a match deep in a long note gets its window without the note being read from the start", () => {
  const body = `${filler(3000)} the token bucket refills ${filler(3000)}`;
  const snippet = makeSnippet(body, parseQuery("bucket"));
  assert.match(snippet, /^…lorem .*the token <<bucket>> refills lorem.*…$/);
  assert.ok(snippet.replace(/<<|>>|…/g, "").length <= 220);
});

test("a folded match before a plain one still counts, and a word inside another word is no match", () => {
  const folded = `Die Größe ${filler(500)} the restart`;
  assert.match(makeSnippet(folded, parseQuery("grosse start")), /<<Größe>>/);
  const inside = `${filler(500)} a restart here`;
  assert.equal(makeSnippet(inside, parseQuery("start")).includes("<<"), false);
});
