// note_split on the edge vault: each `##` section becomes its own note with promoted sub-headings, the
// original keeps its intro and a list of links, and every link that reached a heading or block —
// from another note, from the original, from inside the moved sections, relative ones included —
// still resolves to a note holding that text. Dry runs and refusals write nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { EDGE_VAULT, tempVault, vaultFiles } from "../../support/vaults";
import { startTestServer, type TestServer } from "../../support/server";

const ORIGINAL = "topics/Original.md";
const LINKER = "wiki/linker.md";
const FOLDER = "topics/parts";

const FENCE = "```";
const ORIGINAL_TEXT = [
  "---",
  "title: Original",
  "---",
  "Intro text before any heading, see [[#Section two]] and [[#Sub]].",
  "",
  "# Intro heading that stays",
  "",
  "More intro.",
  "",
  "## Section one",
  "",
  "One body, relative: [[../wiki/rate-limiting#Token bucket]] and [[plan]].",
  "",
  "### Sub one",
  "",
  "Sub one body.",
  "",
  "## Section two",
  "",
  "Two body with a block. ^blockid",
  "",
  "### Sub",
  "",
  "Sub body text.",
  "",
  `${FENCE}md`,
  "## not a heading",
  FENCE,
  "",
  "See [[#Section three]] and [[#Intro heading that stays]] and [[#Sub]].",
  "",
  "## Section three",
  "",
  "Three body, back to [[#Section two#Sub|the sub]].",
  "",
  "### Sub",
  "",
  "Third sub text.",
  "",
].join("\n");

const LINKER_TEXT = [
  "---",
  'related: "[[Original#Section two]]"',
  "---",
  "# Linker",
  "",
  "- [[Original#Section two]]",
  "- [[Original#Section two#Sub|the sub]]",
  "- ![[Original#^blockid]]",
  "- [[Original]]",
  "- [[Original#Intro heading that stays]]",
  "- [two](../topics/Original.md#Section%20two)",
  "- [[Original#Section three#Sub]]",
  "",
].join("\n");

function digests(root: string): Map<string, string> {
  return new Map(vaultFiles(root).map((file) => [file, createHash("sha256").update(readFileSync(path.join(root, file))).digest("hex")]));
}

function read(server: TestServer, relative: string): string {
  return readFileSync(path.join(server.vault.dir, relative), "utf8");
}

interface Outgoing {
  target: string;
  resolved: string;
}

async function outgoing(server: TestServer, note: string): Promise<Outgoing[]> {
  const result = await server.call("note_backlinks", { path: note, limit: 200 });
  assert.equal(result.isError, false, result.text);
  return result.structured.outgoing as Outgoing[];
}

/** The heading or block a link's subpath names exists in the note it resolves to (by the index). */
function pointsAtText(server: TestServer, from: string, link: Outgoing): boolean {
  // A self-link (`[[#Heading]]`) resolves to the note it is in.
  const resolved = link.target.startsWith("#") ? from : link.resolved;
  if (resolved === "") return false;
  const at = link.target.indexOf("#");
  if (at < 0) return true;
  const subpath = link.target.slice(at);
  const cache = server.server.hosts[0]!.engine.cache(resolved);
  if (subpath.startsWith("#^")) return cache?.blocks?.[subpath.slice(2).toLowerCase()] !== undefined;
  const wanted = subpath.split("#").filter((part) => part !== "");
  const last = wanted[wanted.length - 1]!.toLowerCase();
  return (cache?.headings ?? []).some((heading) => heading.heading.toLowerCase() === last);
}

async function setUp(server: TestServer): Promise<void> {
  for (const [note, content] of [
    [ORIGINAL, ORIGINAL_TEXT],
    [LINKER, LINKER_TEXT],
  ] as const) {
    const created = await server.call("note_create", { path: note, content });
    assert.equal(created.isError, false, created.text);
  }
}

const strip = (entries: unknown): unknown => (entries as Array<Record<string, unknown>>).map(({ trash: _trash, ...rest }) => rest);

test("note_split makes one note per ## section, leaves the intro and a list of links, and every link still reaches its text", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    await setUp(server);
    const linkerBefore = await outgoing(server, LINKER);
    assert.ok(linkerBefore.every((link) => pointsAtText(server, LINKER, link)), "the fixture's links resolve before the split");
    const before = digests(server.vault.dir);
    // note_create stamped created/updated into the frontmatter; the split keeps it as it is.
    const frontmatter = /^---\n[^]*?\n---\n/.exec(read(server, ORIGINAL))![0];
    assert.match(frontmatter, /title: Original/);

    const dry = await server.call("note_split", { path: ORIGINAL, folder: FOLDER, dry_run: true });
    assert.equal(dry.isError, false, dry.text);
    assert.deepEqual(digests(server.vault.dir), before, "a dry run writes nothing");

    const split = await server.call("note_split", { path: ORIGINAL, folder: FOLDER, reason: "one note per section" });
    assert.equal(split.isError, false, split.text);
    assert.deepEqual(split.structured.warnings, []);
    assert.deepEqual(split.structured.created, dry.structured.created, "the dry run created exactly these notes");
    assert.deepEqual(strip([split.structured.original]), strip([dry.structured.original]));
    assert.deepEqual(strip(split.structured.notes), strip(dry.structured.notes), "the dry run planned exactly these rewrites");
    assert.equal(split.structured.links_updated, dry.structured.links_updated);
    const created = (split.structured.created as Array<{ path: string }>).map((entry) => entry.path);
    assert.deepEqual(created, [`${FOLDER}/Section one.md`, `${FOLDER}/Section two.md`, `${FOLDER}/Section three.md`]);

    // The original: intro, the heading that stays, the list of links; nothing of the sections.
    assert.equal(
      read(server, ORIGINAL),
      frontmatter +
      [
        "Intro text before any heading, see [[Section two]] and [[Section two#Sub]].",
        "",
        "# Intro heading that stays",
        "",
        "More intro.",
        "",
        "- [[Section one]]",
        "- [[Section two]]",
        "- [[Section three]]",
        "",
      ].join("\n"),
    );

    // The new notes: the heading as title, sub-headings promoted, the fenced `##` line untouched.
    const two = read(server, `${FOLDER}/Section two.md`);
    assert.ok(two.includes("\n# Section two\n\nTwo body with a block. ^blockid\n\n## Sub\n\nSub body text.\n"), two);
    assert.ok(two.includes(`${FENCE}md\n## not a heading\n${FENCE}\n`), "the line in code is neither a split point nor promoted");
    assert.ok(two.endsWith("See [[Section three]] and [[Original#Intro heading that stays]] and [[#Sub]].\n"), two);
    const one = read(server, `${FOLDER}/Section one.md`);
    assert.ok(one.includes("\n# Section one\n\nOne body, relative: [[rate-limiting#Token bucket]] and [[plan]].\n\n## Sub one\n\nSub one body.\n"), one);
    const three = read(server, `${FOLDER}/Section three.md`);
    assert.ok(three.includes("\n# Section three\n\nThree body, back to [[Section two#Sub|the sub]].\n\n## Sub\n\nThird sub text.\n"), three);
    assert.equal(read(server, `${FOLDER}/Section one.md`).includes("## Section two"), false);

    // The other note: links into the sections point at the new notes, the rest is untouched.
    assert.equal(
      read(server, LINKER).replace(/^---\n[^]*?\n---\n/, ""),
      [
        "# Linker",
        "",
        "- [[Section two]]",
        "- [[Section two#Sub|the sub]]",
        "- ![[Section two#^blockid]]",
        "- [[Original]]",
        "- [[Original#Intro heading that stays]]",
        "- [two](Section%20two.md)",
        "- [[Section three#Sub]]",
        "",
      ].join("\n"),
    );
    assert.match(read(server, LINKER), /^---\nrelated: "\[\[Section two\]\]"\n/, "the frontmatter link is rewritten in place");
    const linkerAfter = await outgoing(server, LINKER);
    assert.equal(linkerAfter.length, linkerBefore.length);
    linkerAfter.forEach((link, index) => {
      assert.ok(pointsAtText(server, LINKER, link), `${link.target} reaches its text`);
      if (!linkerBefore[index]!.target.includes("#")) assert.equal(link.resolved, linkerBefore[index]!.resolved);
    });
    assert.equal(linkerAfter.find((link) => link.target === "Section three#Sub")?.resolved, `${FOLDER}/Section three.md`, "the chain picks the second Sub");
    for (const note of [ORIGINAL, ...created]) {
      for (const link of await outgoing(server, note)) assert.ok(pointsAtText(server, note, link), `${note}: ${link.target} reaches its text`);
    }
    const linked = server.server.hosts[0]!.engine.metadata().resolvedLinks()[LINKER] ?? {};
    assert.equal(linked[`${FOLDER}/Section two.md`], 5);

    // Notes the split did not touch keep their bytes.
    const touched = new Set([ORIGINAL, LINKER, ...created]);
    const after = digests(server.vault.dir);
    for (const [file, digest] of before) if (!touched.has(file)) assert.equal(after.get(file), digest, `${file} is byte-identical`);
    assert.equal(split.structured.links_updated, 6 + 6, "six rewrites in the linker (one in its frontmatter), six inside the original");

    // One summary commit for the original, the new notes and the linker.
    const history = await server.call("note_history", { path: ORIGINAL, limit: 1 });
    const newest = (history.structured.revisions as Array<{ message: string; reason?: string; commit: string }>)[0]!;
    assert.equal(newest.message, `note_split: ${ORIGINAL} -> 3 notes (12 links updated)`);
    assert.equal(newest.reason, "one note per section");
    for (const note of [`${FOLDER}/Section two.md`, LINKER]) {
      const revisions = (await server.call("note_history", { path: note, limit: 1 })).structured.revisions as Array<{ commit: string }>;
      assert.equal(revisions[0]!.commit, newest.commit, `${note} changed in the same commit`);
    }
  } finally {
    await server.stop();
  }
});

test("note_split refuses clashing, empty and existing names before writing anything", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    await setUp(server);
    const notes = {
      "topics/same.md": "# Same\n\n## A: b\n\none\n\n## A b\n\ntwo\n",
      "topics/empty.md": "## ???\n\nnothing to name\n",
      "topics/exists.md": "## Original\n\nwould overwrite topics/Original.md\n",
    };
    for (const [note, content] of Object.entries(notes)) assert.equal((await server.call("note_create", { path: note, content })).isError, false);
    const before = digests(server.vault.dir);
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["topics/same.md", {}, /"A b" \(line \d+\) gives the same note name as heading "A: b"/],
      ["topics/empty.md", {}, /"\?\?\?" \(line \d+\) gives an empty file name/],
      ["topics/exists.md", {}, /topics\/Original\.md, which already exists/],
      [ORIGINAL, { level: 4 }, /no level-4 headings/],
      [ORIGINAL, { content_hash: "0".repeat(32) }, /changed since you read it/],
    ];
    for (const [note, extra, message] of cases) {
      for (const dry_run of [true, false]) {
        const refused = await server.call("note_split", { path: note, dry_run, ...extra });
        assert.equal(refused.isError, true, `${note} is refused`);
        assert.match(refused.text, message);
        if (message.source.includes("name")) assert.match(refused.text, /note_section_edit|folder/);
      }
    }
    assert.deepEqual(digests(server.vault.dir), before, "refusals write nothing");
  } finally {
    await server.stop();
  }
});

test("note_split in the note's own folder, on a note with frontmatter and code, keeps the edge vault's links whole", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const target = "wiki/rate-limiting.md";
    const index = "wiki/index.md";
    const indexBefore = await outgoing(server, index);
    const reachedBefore = indexBefore.map((link) => pointsAtText(server, index, link));
    assert.ok(reachedBefore.filter(Boolean).length > 10);
    const split = await server.call("note_split", { path: target });
    assert.equal(split.isError, false, split.text);
    const created = (split.structured.created as Array<{ path: string }>).map((entry) => entry.path);
    assert.deepEqual(created, ["wiki/Token bucket.md", "wiki/Leaky bucket.md", "wiki/Offene Fragen.md"]);
    const original = read(server, target);
    assert.ok(original.startsWith("---\ntitle: Rate limiting\ntags: [networking]\n---\n# Rate limiting\n\nIntro paragraph about limits.\n\n- [[Token bucket]]\n- [[Leaky bucket]]\n- [[Offene Fragen]]\n"), original);
    const questions = read(server, "wiki/Offene Fragen.md");
    assert.ok(questions.includes("# this is a shell comment, not a heading\n"), "a # line in code is kept as it was");
    assert.ok(questions.includes("~~~\n## not a heading in a tilde fence\n~~~\n"));
    assert.equal(existsSync(path.join(server.vault.dir, "wiki/not a heading in a tilde fence.md")), false);
    const indexAfter = await outgoing(server, index);
    assert.equal(indexAfter.length, indexBefore.length);
    indexAfter.forEach((link, at) => {
      const was = indexBefore[at]!;
      // The fixture's broken links (a missing note, a self-link to a paragraph) stay as they were.
      if (!reachedBefore[at]) return assert.equal(link.target, was.target);
      assert.ok(pointsAtText(server, index, link), `${link.target} reaches its text`);
      if (!was.target.includes("#")) assert.equal(link.resolved, was.resolved, `${was.target} still reaches ${was.resolved}`);
    });
    const text = read(server, index);
    assert.ok(text.includes("- anchor: [[Token bucket]]\n"), text);
    assert.ok(text.includes("- anchor and alias: [[Token bucket|the bucket]]\n"));
    assert.ok(text.includes("- block reference: [[Token bucket#^bucket-def]]\n"));
    assert.ok(text.includes("- embed of a note section: ![[Token bucket]]\n"));
    assert.ok(text.includes("- plain basename: [[rate-limiting]]\n"), "links to the note itself are untouched");
  } finally {
    await server.stop();
  }
});

test("note_split at level 3 keeps the higher headings and their text, promotes by two levels and lists the sections where they were", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const note = "topics/groups.md";
    const content = "## G1\n\ntext one\n\n### a\n\nA text, see [[#G2]].\n\n#### deep\n\ndeep text\n### b\nB text\n\n## G2\n\n### c\n\nC text\n";
    assert.equal((await server.call("note_create", { path: note, content })).isError, false);
    const split = await server.call("note_split", { path: note, level: 3 });
    assert.equal(split.isError, false, split.text);
    assert.deepEqual((split.structured.created as Array<{ path: string }>).map((entry) => entry.path), ["topics/a.md", "topics/b.md", "topics/c.md"]);
    assert.equal(read(server, note).replace(/^---\n[^]*?\n---\n/, ""), "## G1\n\ntext one\n\n- [[a]]\n- [[b]]\n\n## G2\n\n- [[c]]\n");
    assert.ok(read(server, "topics/a.md").endsWith("# a\n\nA text, see [[groups#G2]].\n\n## deep\n\ndeep text\n"));
    assert.ok(read(server, "topics/b.md").endsWith("# b\nB text\n"));
    assert.equal(split.structured.links_updated, 1);
  } finally {
    await server.stop();
  }
});

test("a section the write path refuses (a credential in it) stops the whole split before anything is written", async () => {
  const vault = tempVault(EDGE_VAULT);
  // Written behind the server's back: no tool would store a credential in a note.
  mkdirSync(path.join(vault.dir, "topics"));
  writeFileSync(path.join(vault.dir, "topics/leaky.md"), "## Clean\n\nnothing here\n\n## Secret\n\nkey sk-ant-api03-Zq7Lm2Xc9Vb4Nn6Kk1Jh8Gf5Dd3Ss0Aa\n");
  const server = await startTestServer({ fixture: EDGE_VAULT, vault });
  try {
    const before = digests(server.vault.dir);
    const refused = await server.call("note_split", { path: "topics/leaky.md" });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /nothing was written.*credential/);
    assert.deepEqual(digests(server.vault.dir), before, "not even the clean section's note was created");
  } finally {
    await server.stop();
    vault.cleanup();
  }
});
