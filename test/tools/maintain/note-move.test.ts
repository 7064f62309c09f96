// note_move on a real vault (a temp copy of the Obsidian Help): every link that resolved to the moved
// note resolves to its new path afterwards, notes that did not link to it keep their bytes, and the
// dry run's planned edits are exactly what the real run applies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { HELP_VAULT, EDGE_VAULT, vaultFiles } from "../../support/vaults";
import { startTestServer, type TestServer } from "../../support/server";

type LinkMap = Readonly<Record<string, Readonly<Record<string, number>>>>;

function linkMaps(server: TestServer): LinkMap {
  return server.server.hosts[0]!.engine.metadata().resolvedLinks();
}

function digests(root: string): Map<string, string> {
  return new Map(vaultFiles(root).map((file) => [file, createHash("sha256").update(readFileSync(path.join(root, file))).digest("hex")]));
}

/** Incoming link counts per source for one target. */
function incoming(links: LinkMap, target: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const [source, targets] of Object.entries(links)) {
    const count = targets[target];
    if (count) found.set(source, count);
  }
  return found;
}

async function moveAndCheck(server: TestServer, from: string, to: string): Promise<void> {
  const before = digests(server.vault.dir);
  const linkedBefore = incoming(linkMaps(server), from);
  assert.ok(linkedBefore.size > 0);

  const dry = await server.call("note_move", { path: from, to, dry_run: true });
  assert.equal(dry.isError, false, dry.text);
  assert.deepEqual(digests(server.vault.dir), before, "a dry run writes nothing");

  const moved = await server.call("note_move", { path: from, to, reason: "tidy up" });
  assert.equal(moved.isError, false, moved.text);
  assert.deepEqual(moved.structured.warnings, []);
  const strip = (notes: unknown): unknown => (notes as Array<Record<string, unknown>>).map(({ trash: _trash, ...rest }) => rest);
  assert.deepEqual(strip(moved.structured.notes), strip(dry.structured.notes), "the dry run planned exactly what was applied");
  assert.equal(moved.structured.links_updated, dry.structured.links_updated);

  // Every link that resolved to the note resolves to the new path, as often as before.
  const linksAfter = linkMaps(server);
  const renamedSource = (source: string): string => (source === from ? to : source);
  assert.deepEqual(incoming(linksAfter, to), new Map([...linkedBefore].map(([source, count]) => [renamedSource(source), count])));
  assert.equal(incoming(linksAfter, from).size, 0);

  // Notes the plan did not touch keep their bytes; the moved note is the same file at its new path
  // unless its own links had to change.
  const touched = new Set((moved.structured.notes as Array<{ path: string }>).map((note) => note.path));
  const after = digests(server.vault.dir);
  for (const [file, digest] of before) {
    if (file === from) continue;
    if (file.startsWith(".")) continue;
    if (!touched.has(file)) assert.equal(after.get(file), digest, `${file} is byte-identical`);
    else assert.notEqual(after.get(file), digest, `${file} was rewritten`);
  }
  if (!touched.has(to)) assert.equal(after.get(to), before.get(from));
  assert.equal(after.has(from), false);

  // One summary commit for the whole move.
  const history = await server.call("note_history", { path: to, limit: 1 });
  const newest = (history.structured.revisions as Array<{ message: string; reason?: string; commit: string }>)[0]!;
  assert.equal(newest.message, `note_move: ${from} -> ${to} (${String(moved.structured.links_updated)} links updated)`);
  assert.equal(newest.reason, "tidy up");
  for (const note of [...touched].slice(0, 3)) {
    const revisions = (await server.call("note_history", { path: note, limit: 1 })).structured.revisions as Array<{ commit: string }>;
    assert.equal(revisions[0]!.commit, newest.commit, `${note} changed in the same commit`);
  }
}

function mostLinked(links: LinkMap): string {
  const counts = new Map<string, number>();
  for (const targets of Object.values(links)) for (const [target, count] of Object.entries(targets)) if (target.endsWith(".md")) counts.set(target, (counts.get(target) ?? 0) + count);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
}

/** The plans here touch dozens of notes, every diff compared: they must come back whole, past the default limit. */
const WHOLE_PLANS = { maxResponseBytes: 1024 * 1024 };

test("moving the most-linked note of the Help vault into another folder rewrites exactly the links that need it", async () => {
  const server = await startTestServer({ fixture: HELP_VAULT, extra: WHOLE_PLANS });
  try {
    const from = mostLinked(linkMaps(server));
    const folder = from.includes("/") ? "Archive/Moved" : "Moved";
    await moveAndCheck(server, from, `${folder}/${path.posix.basename(from)}`);
  } finally {
    await server.stop();
  }
});

test("renaming the most-linked note within its folder rewrites every spelling of a link to it", async () => {
  const server = await startTestServer({ fixture: HELP_VAULT, extra: WHOLE_PLANS });
  try {
    const from = mostLinked(linkMaps(server));
    await moveAndCheck(server, from, `${path.posix.dirname(from) === "." ? "" : `${path.posix.dirname(from)}/`}Renamed note.md`);
  } finally {
    await server.stop();
  }
});

test("note_move rewrites aliases, headings, embeds, markdown and frontmatter links in the edge vault, and refuses an existing target", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const created = await server.call("note_create", {
      path: "wiki/linker.md",
      content: '---\nrelated: "[[rate-limiting]]"\n# a comment that must survive\n---\nSee [[rate-limiting|rate-limiting]], [[rate-limiting#Token bucket|buckets]], ![[rate-limiting]] and [the note](rate-limiting.md).\n`[[rate-limiting]] in code`\n',
    });
    assert.equal(created.isError, false, created.text);
    const refused = await server.call("note_move", { path: "wiki/rate-limiting.md", to: "wiki/index.md" });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /already exists/);
    const moved = await server.call("note_move", { path: "wiki/rate-limiting.md", to: "Limits.md" });
    assert.equal(moved.isError, false, moved.text);
    const text = readFileSync(path.join(server.vault.dir, "wiki/linker.md"), "utf8");
    assert.match(text, /^---\nrelated: "\[\[Limits\]\]"\n# a comment that must survive\n/, "the frontmatter link is rewritten in place, the YAML comment kept");
    assert.ok(
      text.endsWith("---\nSee [[Limits|Limits]], [[Limits#Token bucket|buckets]], ![[Limits]] and [the note](Limits.md).\n`[[rate-limiting]] in code`\n"),
      text,
    );
    const linker = (moved.structured.notes as Array<{ path: string; edits: unknown[] }>).find((note) => note.path === "wiki/linker.md");
    assert.equal(linker?.edits.length, 5, "five references, the one in code untouched");
  } finally {
    await server.stop();
  }
});
