import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { CachedMetadata } from "../../../src/core/notes/metadata";
import { findSection } from "../../../src/core/notes/sections";
import { isVisiblePath, resolveVaultPath } from "../../../src/core/notes/paths";
import { countWords, noteFacts, normalizeTag, parseNote, stripBom, type NoteFacts } from "../../../src/core/notes/structure";
import { isToolError } from "../../../src/core/errors";
import { EDGE_VAULT, HELP_VAULT } from "../../support/vaults";

function markdownFiles(root: string, dir = ""): string[] {
  const found: string[] = [];
  for (const name of readdirSync(path.join(root, dir))) {
    const relative = dir === "" ? name : `${dir}/${name}`;
    if (statSync(path.join(root, relative)).isDirectory()) found.push(...markdownFiles(root, relative));
    else if (name.endsWith(".md")) found.push(relative);
  }
  return found.sort();
}

interface Note {
  path: string;
  text: string;
  cache: CachedMetadata;
  facts: NoteFacts;
  lines: string[];
}

function load(relative: string): Note {
  const text = stripBom(readFileSync(path.join(EDGE_VAULT, relative), "utf8"));
  const cache = parseNote(text);
  return { path: relative, text, cache, facts: noteFacts(text, cache, relative), lines: text.split(/\r?\n/) };
}

/** The source text a position covers, to check offsets against the file itself. */
function covered(note: Note, position: { start: { offset: number }; end: { offset: number } }): string {
  return note.text.slice(position.start.offset, position.end.offset);
}

function assertPositionsConsistent(note: Note): void {
  const items = [...(note.cache.links ?? []), ...(note.cache.embeds ?? [])];
  for (const item of items) assert.equal(covered(note, item.position), item.original, `${note.path}: ${item.original}`);
  for (const tag of note.cache.tags ?? []) assert.equal(covered(note, tag.position), tag.tag);
  for (const entry of [...items, ...(note.cache.tags ?? []), ...(note.cache.headings ?? []), ...(note.cache.listItems ?? [])]) {
    const { start } = entry.position;
    const lineStart = note.text.split("\n").slice(0, start.line).reduce((sum, line) => sum + line.length + 1, 0);
    assert.equal(start.offset, lineStart + start.col, `${note.path}: line/col agree with offset`);
  }
}

const checks: Record<string, (note: Note) => void> = {
  ".trash/old.md": (note) => {
    assert.equal(isVisiblePath(note.path), false);
    assert.throws(() => resolveVaultPath(note.path), (error) => isToolError(error) && error.code === "invalid_path");
    assert.deepEqual(note.cache.sections?.map((s) => s.type), ["paragraph"]);
  },

  "Deutsch Notizen/Überlegungen.md": (note) => {
    assert.equal(note.facts.title, "Überlegungen");
    assert.deepEqual(note.facts.tags, ["deutsch"]);
    assert.deepEqual(note.cache.headings?.map((h) => h.heading), ["Überlegungen zur Größe"]);
    assert.equal(resolveVaultPath("Deutsch Notizen/U\u0308berlegungen", { note: true }), note.path.normalize("NFC"));
    assert.equal(note.cache.links, undefined);
  },

  "INSTRUCTIONS.md": (note) => {
    assert.equal(note.cache.frontmatterPosition, undefined);
    assert.equal(note.facts.title, "INSTRUCTIONS");
    assert.deepEqual(note.cache.headings?.map((h) => [h.heading, h.level]), [["Conventions of this vault", 1]]);
    assert.deepEqual(note.cache.listItems?.map((item) => [item.position.start.line, item.parent, item.task]), [
      [2, -2, undefined],
      [3, -2, undefined],
    ]);
    assert.equal(note.facts.tasks.length, 0);
  },

  "README.md": (note) => {
    assert.equal(note.facts.title, "Edge vault");
    assert.deepEqual(note.facts.tags, ["fixture"]);
    assert.deepEqual(note.cache.links?.map((l) => l.link), ["wiki/index"]);
  },

  "archive/orphan.md": (note) => {
    assert.equal(note.cache.links, undefined);
    assert.equal(note.cache.embeds, undefined);
    assert.equal(note.cache.frontmatter?.["updated"], "2024-01-01");
    assert.equal(note.facts.title, "Orphan");
  },

  "inbox/2026-01-06-0930-idea.md": (note) => {
    assert.equal(note.cache.frontmatter?.["captured"], "2026-01-06T09:30:00Z");
    assert.deepEqual(note.facts.tags, ["inbox"]);
    const body = note.text.slice(note.text.lastIndexOf("---\n") + 4);
    assert.equal(note.facts.words, body.trim().split(/\s+/).length, "frontmatter words are not counted");
  },

  "journal/2026/2026-01-05.md": (note) => {
    assert.equal(note.facts.title, "2026-01-05");
    assert.equal(note.cache.frontmatter?.["date"], "2026-01-05");
    assert.deepEqual(note.cache.headings?.map((h) => [h.heading, h.level, h.position.start.line]), [
      ["Monday, 5 January 2026", 1, 5],
      ["Log", 2, 7],
    ]);
    assert.deepEqual(note.cache.links?.map((l) => [l.link, l.position.start.line]), [["projects/alpha/plan", 9]]);
  },

  "projects/alpha/Team notes.md": (note) => {
    assert.equal(note.cache.frontmatterPosition, undefined);
    assert.equal(note.cache.frontmatter, undefined);
    assert.ok(!note.cache.sections?.some((s) => s.type === "yaml"));
    assert.equal(note.facts.title, "Team notes");
  },

  "projects/alpha/plan.md": (note) => {
    assert.deepEqual(note.cache.frontmatterLinks, [
      { key: "depends_on.0", link: "projects/beta/plan", original: "[[projects/beta/plan]]", displayText: "projects/beta/plan" },
    ]);
    assert.deepEqual(note.cache.links?.map((l) => l.link), ["plan"]);
    assert.equal(note.cache.frontmatter?.["due"], "2026-03-01");
    assert.equal(note.facts.title, "Alpha plan");
  },

  "projects/beta/plan.md": (note) => {
    assert.equal(note.facts.title, "Beta plan");
    assert.equal(note.cache.frontmatter?.["status"], "draft");
    assert.equal(note.cache.frontmatterLinks, undefined);
  },

  "templates/meeting.md": (note) => {
    assert.equal(note.facts.title, "{{title}}");
    assert.deepEqual(note.facts.tags, ["meeting"]);
    assert.deepEqual(note.cache.headings?.map((h) => h.heading), ["{{title}}", "Attendees", "Notes"]);
    assert.equal(note.cache.links, undefined);
    assert.equal(note.cache.tags, undefined);
  },

  "wiki/big-sections.md": (note) => {
    const body = (heading: string): string => {
      const match = findSection(note.text, note.cache, heading);
      return note.text.slice(match.bodyStart, match.end).trim();
    };
    assert.equal(body("A"), "a1");
    assert.equal(body("B"), "b1\n\n### B.1\n\nb11", "a sub-section belongs to its parent");
    assert.equal(body("B.1"), "b11");
    assert.equal(body("C"), "c1");
    const b = findSection(note.text, note.cache, "## b");
    assert.equal(b.heading, "B");
    assert.equal(note.text.slice(b.start, b.bodyStart), "## B\n");
    assert.equal(note.text.slice(b.end).split("\n")[0], "## C");
    const whole = findSection(note.text, note.cache, "Big");
    assert.equal(whole.end, note.text.length, "the H1 runs to the end: every later heading is lower");
  },

  "wiki/bom-crlf.md": (note) => {
    const raw = readFileSync(path.join(EDGE_VAULT, note.path), "utf8");
    assert.equal(raw.charCodeAt(0), 0xfeff);
    assert.deepEqual(note.cache.frontmatter, { title: "BOM and CRLF", tags: "crlf" });
    assert.deepEqual(note.facts.tags, ["crlf"], "a scalar tag is a one-item list");
    const heading = note.cache.headings?.[0];
    assert.equal(heading?.heading, "BOM and CRLF", "no \\r in heading text");
    assert.equal(covered(note, heading?.position ?? { start: { offset: 0 }, end: { offset: 0 } }), "# BOM and CRLF");
    assert.equal(note.cache.frontmatterPosition?.end.line, 3);

    const withBom = parseNote(raw);
    assert.equal(withBom.frontmatterPosition?.start.offset, 1, "offsets count a BOM that is left in");
    assert.equal(withBom.headings?.[0]?.position.start.offset, (heading?.position.start.offset ?? 0) + 1);
    assert.deepEqual(withBom.frontmatter, note.cache.frontmatter);
  },

  "wiki/dots-end.md": (note) => {
    assert.equal(note.cache.frontmatterPosition, undefined);
    assert.equal(note.cache.frontmatter, undefined);
    assert.equal(note.facts.title, "dots-end");
    assert.deepEqual(note.cache.headings?.map((h) => h.heading), ["Dots"]);
  },

  "wiki/hr-not-frontmatter.md": (note) => {
    assert.equal(note.cache.frontmatterPosition, undefined);
    const rule = note.cache.sections?.find((s) => s.type === "thematicBreak");
    assert.equal(rule?.position.start.line, 4);
    assert.deepEqual(note.cache.headings?.map((h) => h.heading), ["Horizontal rule"]);
  },

  "wiki/index.md": (note) => {
    const links = note.cache.links ?? [];
    const linkOf = (original: string): string | undefined => links.find((l) => l.original === original)?.link;
    const expected: Array<[string, string]> = [
      ["[[rate-limiting]]", "rate-limiting"],
      ["[[rate-limiting.md]]", "rate-limiting.md"],
      ["[[wiki/rate-limiting]]", "wiki/rate-limiting"],
      ["[[alpha/plan]]", "alpha/plan"],
      ["[[/wiki/rate-limiting]]", "/wiki/rate-limiting"],
      ["[[rate-limiting#Token bucket]]", "rate-limiting#Token bucket"],
      ["[[rate-limiting|limits]]", "rate-limiting"],
      ["[[rate-limiting#Token bucket|the bucket]]", "rate-limiting#Token bucket"],
      ["[[rate-limiting#^bucket-def]]", "rate-limiting#^bucket-def"],
      ["[Rate limiting](rate-limiting.md)", "rate-limiting.md"],
      ["[Team notes](../projects/alpha/Team%20notes.md)", "../projects/alpha/Team notes.md"],
      ["[[../projects/alpha/plan]]", "../projects/alpha/plan"],
      ["[[plan]]", "plan"],
      ["[[does-not-exist]]", "does-not-exist"],
      ["[[#Links of every spelling]]", "#Links of every spelling"],
      ["[[Überlegungen]]", "Überlegungen"],
      ["[[日本語/ノート]]", "日本語/ノート"],
    ];
    for (const [original, link] of expected) assert.equal(linkOf(original), link, original);
    assert.equal(links.length, expected.length, "nothing else is a link (the external URL is not)");
    assert.equal(links.find((l) => l.original === "[[rate-limiting|limits]]")?.displayText, "limits");
    assert.equal(links.find((l) => l.original === "[[rate-limiting#Token bucket|the bucket]]")?.displayText, "the bucket");
    assert.equal(links.find((l) => l.original === "[Team notes](../projects/alpha/Team%20notes.md)")?.displayText, "Team notes");
    assert.ok(!links.some((l) => l.link.includes("example.com")));

    assert.deepEqual(note.cache.embeds?.map((e) => [e.original, e.link]), [
      ["![[diagram.png]]", "diagram.png"],
      ["![[rate-limiting#Token bucket]]", "rate-limiting#Token bucket"],
    ]);
    assert.deepEqual(note.cache.tags?.map((t) => t.tag), ["#hub", "#Topic/Knowledge", "#project/alpha/"]);
    assert.deepEqual(note.facts.tags, ["hub", "project/alpha", "topic/knowledge"]);
    assert.deepEqual(note.facts.aliases, ["Start", "Home page"]);
    assert.equal(note.facts.title, "Index");
    assert.equal(note.cache.frontmatter?.["created"], "2026-01-05");
    assertPositionsConsistent(note);
  },

  "wiki/rate-limiting.md": (note) => {
    assert.deepEqual(note.cache.headings?.map((h) => [h.heading, h.level]), [
      ["Rate limiting", 1],
      ["Token bucket", 2],
      ["Details", 3],
      ["Leaky bucket", 2],
      ["Offene Fragen", 2],
    ]);
    const fileLine = (needle: string): number => note.lines.findIndex((line) => line.includes(needle)) + 1;
    assert.deepEqual(
      note.facts.tasks.map((t) => [t.line, t.text, t.done, t.status, t.heading]),
      [
        [fileLine("Decide default"), "Decide default for login attempts", false, " ", "Offene Fragen"],
        [fileLine("Document the refill"), "Document the refill formula", true, "x", "Offene Fragen"],
        [fileLine("nested subtask"), "nested subtask stays a task", false, " ", "Offene Fragen"],
        [fileLine("star bullet"), "star bullet task", false, " ", "Offene Fragen"],
        [fileLine("plus bullet"), "plus bullet task", true, "x", "Offene Fragen"],
      ],
    );
    assert.equal(note.facts.tasks[0]?.line, 23, "1-based file line, frontmatter included");
    const nested = note.cache.listItems?.find((item) => item.position.start.line === fileLine("nested subtask") - 1);
    assert.equal(nested?.parent, fileLine("Document the refill") - 1, "a nested item's parent is its parent's line");
    assert.equal(note.cache.listItems?.[0]?.parent, -(fileLine("Decide default") - 1));

    assert.equal(note.cache.links, undefined, "[[not-a-link]] is inside a fence");
    assert.equal(note.cache.tags, undefined, "#not-a-tag is inside a fence");
    assert.ok(!note.facts.tasks.some((t) => t.text.includes("inside code")));
    assert.ok(!note.cache.headings?.some((h) => h.heading.includes("not a heading") || h.heading.includes("shell comment")));
    assert.equal(note.cache.sections?.filter((s) => s.type === "code").length, 2);

    const block = note.cache.blocks?.["bucket-def"];
    assert.equal(block?.id, "bucket-def");
    assert.equal(covered(note, block?.position ?? { start: { offset: 0 }, end: { offset: 0 } }), "A bucket refills continuously over its window. ^bucket-def");
    assert.equal(findSection(note.text, note.cache, "token bucket").heading, "Token bucket");
    assertPositionsConsistent(note);
  },

  "wiki/secrets.md": (note) => {
    assert.deepEqual(note.cache.headings?.map((h) => h.heading), ["Secrets placeholder"]);
    assert.equal(note.cache.links, undefined);
    assert.equal(note.cache.tags, undefined);
    assert.equal(note.facts.title, "secrets");
  },

  "wiki/unterminated.md": (note) => {
    assert.equal(note.cache.frontmatterPosition, undefined);
    assert.equal(note.cache.frontmatter, undefined);
    assert.deepEqual(note.facts.tags, [], "tags: [broken] is body text, not frontmatter");
    assert.equal(note.facts.title, "unterminated");
    assert.deepEqual(note.cache.headings?.map((h) => [h.heading, h.position.start.line]), [["Unterminated frontmatter", 4]]);
  },

  "日本語/ノート.md": (note) => {
    assert.equal(note.facts.title, "日本語のノート");
    assert.deepEqual(note.facts.tags, ["日本語"]);
    assert.deepEqual(note.cache.headings?.map((h) => h.heading), ["東京の天気"]);
    const heading = "東京の天気".length;
    const sentence = [..."今日は東京で雨が降っています。検索で「東京」を探せるべきです。"].filter((c) => !"。「」".includes(c)).length;
    assert.equal(note.facts.words, heading + sentence, "each CJK character is one word");
  },
};

test("every note in the edge vault has a parsing check", () => {
  const notes = markdownFiles(EDGE_VAULT);
  assert.deepEqual(notes, Object.keys(checks).sort());
});

for (const [relative, check] of Object.entries(checks)) {
  test(`edge-vault ${relative}`, () => check(load(relative)));
}

/** An independent, deliberately simple scan: `[[…]]` outside frontmatter, fenced code and inline code. */
function wikiLinkStarts(text: string): number[] {
  const starts: number[] = [];
  let offset = 0;
  let fence: string | null = null;
  let inFrontmatter = text.startsWith("---\n");
  text.split("\n").forEach((raw, index) => {
    const line = raw.replace(/\r$/, "");
    const lineOffset = offset;
    offset += raw.length + 1;
    if (inFrontmatter) {
      if (index > 0 && line === "---") inFrontmatter = false;
      return;
    }
    const content = line.replace(/^(\s*>\s?)+/, "").trimStart();
    const marker = /^(`{3,}|~{3,})/.exec(content)?.[1];
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && content.trim() === marker) fence = null;
      return;
    }
    if (marker) {
      fence = marker;
      return;
    }
    const masked = line.replace(/(`+)(.+?)\1/g, (span) => " ".repeat(span.length)).replace(/\\\[/g, "  ");
    for (const match of masked.matchAll(/\[\[([^[\]]+?)\]\]/g)) starts.push(lineOffset + match.index);
  });
  return starts;
}

test("obsidian-help-en: all 173 notes parse, and every [[ outside code is a link or embed", () => {
  const files = markdownFiles(HELP_VAULT);
  assert.equal(files.length, 173);
  const texts = files.map((file) => readFileSync(path.join(HELP_VAULT, file), "utf8"));

  const caches = texts.map((text) => parseNote(text));
  texts.forEach((text, index) => noteFacts(text, caches[index] ?? {}, files[index] ?? ""));

  let counted = 0;
  texts.forEach((text, index) => {
    const cache = caches[index] ?? {};
    const found = new Set([
      ...(cache.links ?? []).map((l) => l.position.start.offset),
      ...(cache.embeds ?? []).map((e) => e.position.start.offset + (e.original.startsWith("!") ? 1 : 0)),
    ]);
    for (const start of wikiLinkStarts(text)) {
      counted++;
      assert.ok(found.has(start), `${files[index]}: ${JSON.stringify(text.slice(start, start + 50))} was not parsed as a link`);
    }
    for (const link of [...(cache.links ?? []), ...(cache.embeds ?? [])]) {
      assert.equal(text.slice(link.position.start.offset, link.position.end.offset), link.original, files[index]);
    }
  });
  assert.ok(counted > 1000, `only ${counted} wiki links counted`);
});

test("help vault spot checks: callout block id, standalone list block id, headings not in code", () => {
  const read = (file: string): { text: string; cache: CachedMetadata } => {
    const text = readFileSync(path.join(HELP_VAULT, file), "utf8");
    return { text, cache: parseNote(text) };
  };
  const internal = read("Linking notes and files/Internal links.md");
  assert.equal(internal.cache.blocks?.["callout-internal-links-link-text"]?.position.start.line, 174);
  assert.ok(internal.cache.blocks?.["b15695"]);
  assert.equal(internal.cache.blocks?.["37066f"], undefined, "an id inside a code fence is not a block");

  const basic = read("Editing and formatting/Basic formatting syntax.md");
  assert.ok(!basic.cache.headings?.some((h) => h.heading === "This is a heading 1"), "example headings sit in a code fence");
  assert.deepEqual(
    basic.cache.listItems?.filter((item) => item.task !== undefined).map((item) => item.task),
    ["x", " ", " ", " ", " ", " "],
  );
});

test("normalizeTag strips leading # and edge slashes and lower-cases", () => {
  assert.equal(normalizeTag("#Topic/Knowledge"), "topic/knowledge");
  assert.equal(normalizeTag("#project/alpha/"), "project/alpha");
  assert.equal(normalizeTag("/Lead/"), "lead");
  assert.equal(normalizeTag("##double"), "double");
  assert.equal(normalizeTag("Übung"), "übung");
  assert.equal(normalizeTag("U\u0308bung"), "übung");
  assert.equal(normalizeTag("#"), "");
});

test("frontmatter tags and aliases follow Obsidian: scalars are one item, never split", () => {
  const facts = (yaml: string, body = ""): NoteFacts => {
    const text = `---\n${yaml}---\n${body}`;
    return noteFacts(text, parseNote(text), "x/note.md");
  };
  assert.deepEqual(facts("tags: crlf\n").tags, ["crlf"]);
  assert.deepEqual(facts("tags: a, b\n").tags, [], "a scalar with a space is dropped, not split");
  assert.deepEqual(facts("tags: a,b\n").tags, ["a,b"]);
  assert.deepEqual(facts("tag: [One, '#two', 3, '', null]\n").tags, ["one", "two"]);
  assert.deepEqual(facts("Tags: [b, a]\n", "#a #C inline").tags, ["a", "b", "c"]);
  assert.deepEqual(facts("aliases: Home page\n").aliases, ["Home page"]);
  assert.deepEqual(facts("alias: [A, A, B, 7]\n").aliases, ["A", "B"]);
  assert.equal(facts("title: '  '\n").title, "note");
  assert.equal(facts("title: 42\n").title, "note");
  assert.equal(noteFacts("# x", parseNote("# x"), "Folder/My Note.MD").title, "My Note");
});

test("words: body only, apostrophes inside words, CJK one per character", () => {
  const count = (text: string): number => noteFacts(text, parseNote(text), "a.md").words;
  assert.equal(count("---\ntitle: many words here\n---\none two"), 2);
  assert.equal(count("don't stop — it's 2026"), 4);
  assert.equal(count("Straße Größe naïve"), 3);
  assert.equal(count("東京 tokyo"), 3);
  assert.equal(count(""), 0);
  assert.equal(count("rock 'n' roll, it’s a'東 x' 'y a''b"), 10, "an apostrophe joins only two word characters");
  assert.equal(count("e\u0301t\u00e9 😀😀 \ud800x"), 3, "combining marks and surrogates are word characters");
});

// The same rule as a regex: CJK characters stand alone, other letters, digits, marks and astral or lone
// surrogate code units form words that an apostrophe between two of them does not break.
function referenceWordCount(text: string): number {
  const cjk = /[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/gu;
  const cjkCount = text.match(cjk)?.length ?? 0;
  const word = "[\\p{L}\\p{N}\\p{M}\\u{10000}-\\u{10FFFF}\\uD800-\\uDFFF]";
  const words = text.replace(cjk, " ").match(new RegExp(`${word}+(?:['’]${word}+)*`, "gu"));
  return cjkCount + (words?.length ?? 0);
}

test("countWords agrees with a regex statement of the rule", () => {
  const unit = fc.constantFrom("a", "Z", "9", "'", "’", " ", "\n", "-", ".", "é", "e\u0301", "東", "カ", "ｶ", "😀", "\ud800", "\udc00", "\u00a0", "_", "٣", "ß");
  fc.assert(
    fc.property(fc.array(unit, { maxLength: 24 }), (units) => {
      const text = units.join("");
      assert.equal(countWords(text), referenceWordCount(text), JSON.stringify(text));
    }),
    { numRuns: 5000 },
  );
});
