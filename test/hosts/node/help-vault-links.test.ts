import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CachedMetadata, Pos, Reference } from "../../../src/core/notes/metadata";
import { NodeMetadata } from "../../../src/hosts/node/node-metadata";
import { HELP_VAULT, vaultFiles } from "../../support/vaults";

const SNAPSHOT = join(__dirname, "help-vault-unresolved.json");

type Category = "external-url" | "placeholder-example" | "image-attachment-not-shipped" | "missing-note";

interface UnresolvedEntry {
  source: string;
  link: string;
  category: Category;
}


const files = vaultFiles(HELP_VAULT);
const notes = files.filter((path) => path.endsWith(".md"));
const texts = new Map(notes.map((path) => [path, readFileSync(join(HELP_VAULT, path), "utf8")]));
const metadata = new NodeMetadata();
for (const path of files) metadata.addFile(path);
for (const [path, text] of texts) metadata.update(path, text);

function cacheOf(path: string): CachedMetadata {
  const cache = metadata.getCache(path);
  assert.ok(cache, `no cache for ${path}`);
  return cache;
}

type AnyReference = Reference & { position?: Pos };

function referencesOf(cache: CachedMetadata): AnyReference[] {
  return [...(cache.links ?? []), ...(cache.embeds ?? []), ...(cache.frontmatterLinks ?? [])];
}

/** Wiki links and embeds found line by line, skipping fenced code (also inside callouts) and those starting in code spans. */
function scanWikiLinks(text: string): string[] {
  const found: string[] = [];
  let fence: string | null = null;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/^(?:\s*>)+/, "");
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (marker?.startsWith(fence)) fence = null;
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    const spans = [...line.matchAll(/(`+)[^`]*?\1/g)].map((span) => [span.index, span.index + span[0].length]);
    for (const match of line.matchAll(/!?\[\[[^[\]]*?\]\]/g)) {
      if (!spans.some(([start = 0, end = 0]) => match.index > start && match.index < end)) found.push(match[0]);
    }
  }
  return found;
}

function withoutSubpath(link: string): string {
  return link.split("#")[0] ?? "";
}

function lastSegment(path: string): string {
  return path.split("/").pop() ?? "";
}

const MEDIA = /\.(png|jpe?g|gif|svg|webp|bmp|avif|ico|mp4|webm|mov|mkv|ogv|ogg|mp3|wav|m4a|flac|3gp|pdf)$/i;

/** By rule, never by name: a link whose syntax is shown in a code span on its own line is a demo. */
function categorise(source: string, reference: AnyReference): Category {
  const linkpath = withoutSubpath(reference.link);
  if (/^[a-z][a-z0-9+.-]*:/i.test(linkpath)) return "external-url";
  if (reference.position) {
    const text = (texts.get(source) ?? "").split(/\r?\n/)[reference.position.start.line] ?? "";
    const spans = [...text.matchAll(/(`+)([^`]*?)\1/g)].map((match) => match[2] ?? "");
    if (spans.some((span) => span.includes(reference.original))) return "placeholder-example";
  }
  if (MEDIA.test(linkpath)) return "image-attachment-not-shipped";
  return "missing-note";
}

function compareEntries(a: UnresolvedEntry, b: UnresolvedEntry): number {
  for (const key of ["source", "link", "category"] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}

test("all 173 notes are parsed and every note has a link-map entry", () => {
  assert.equal(notes.length, 173);
  assert.deepEqual(Object.keys(metadata.resolvedLinks()).sort(), notes);
  assert.deepEqual(Object.keys(metadata.unresolvedLinks()).sort(), notes);
  assert.deepEqual(metadata.getCache("site-options.json"), {});
});

test("every wiki link and embed is extracted, as an independent scan outside code finds them", () => {
  let total = 0;
  for (const [path, text] of texts) {
    const parsed = referencesOf(cacheOf(path))
      .map((reference) => reference.original)
      .filter((original) => original.startsWith("[[") || original.startsWith("![["));
    assert.deepEqual([...parsed].sort(), scanWikiLinks(text).sort(), path);
    total += parsed.length;
  }
  assert.ok(total > 1500, `only ${total} wiki links and embeds`);
});

test("every link whose target note exists resolves to a note of that name", () => {
  const noteNames = new Set(notes.map((path) => lastSegment(path).toLowerCase()));
  let checked = 0;
  for (const path of notes) {
    for (const reference of referencesOf(cacheOf(path))) {
      const linkpath = withoutSubpath(reference.link);
      const destination = metadata.getFirstLinkpathDest(reference.link, path);
      if (linkpath === "") {
        assert.equal(destination, path, `${path}: ${reference.original}`);
        continue;
      }
      const name = lastSegment(linkpath).toLowerCase();
      const wanted = noteNames.has(name) ? name : noteNames.has(`${name}.md`) ? `${name}.md` : null;
      if (wanted === null) continue;
      checked++;
      assert.ok(destination, `${path}: ${reference.original} did not resolve`);
      assert.equal(lastSegment(destination).toLowerCase(), wanted, `${path}: ${reference.original}`);
    }
  }
  assert.ok(checked > 1000, `only ${checked} links checked`);
});

test("resolved counts add up to the resolved links of every note", () => {
  const resolved = metadata.resolvedLinks();
  for (const path of notes) {
    const expected: Record<string, number> = {};
    for (const reference of referencesOf(cacheOf(path))) {
      const destination = metadata.getFirstLinkpathDest(reference.link, path);
      if (destination !== null) expected[destination] = (expected[destination] ?? 0) + 1;
    }
    assert.deepEqual(resolved[path], expected, path);
  }
});

test("the unresolved links are exactly the committed snapshot", () => {
  const unresolvedKeys = new Set<string>();
  for (const [source, links] of Object.entries(metadata.unresolvedLinks())) {
    for (const link of Object.keys(links)) unresolvedKeys.add(JSON.stringify([source, link]));
  }
  const entries = new Map<string, UnresolvedEntry>();
  const seenKeys = new Set<string>();
  for (const source of notes) {
    for (const reference of referencesOf(cacheOf(source))) {
      if (metadata.getFirstLinkpathDest(reference.link, source) !== null) continue;
      const link = withoutSubpath(reference.link);
      seenKeys.add(JSON.stringify([source, link]));
      const entry: UnresolvedEntry = { source, link, category: categorise(source, reference) };
      entries.set(JSON.stringify(entry), entry);
    }
  }
  assert.deepEqual(seenKeys, unresolvedKeys, "unresolvedLinks() disagrees with the broken references");
  const computed = [...entries.values()].sort(compareEntries);

  if (process.env["UPDATE_SNAPSHOTS"] === "1") {
    writeFileSync(SNAPSHOT, `${JSON.stringify(computed, null, 2)}\n`);
    return;
  }
  const committed = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as UnresolvedEntry[];
  const key = (entry: UnresolvedEntry): string => `${entry.source} :: ${entry.link} :: ${entry.category}`;
  const committedKeys = new Set(committed.map(key));
  const computedKeys = new Set(computed.map(key));
  const added = [...computedKeys].filter((entry) => !committedKeys.has(entry));
  const gone = [...committedKeys].filter((entry) => !computedKeys.has(entry));
  assert.ok(
    added.length === 0 && gone.length === 0,
    `unresolved links differ from ${SNAPSHOT} (rerun with UPDATE_SNAPSHOTS=1 if intended)\n` +
      [...added.map((entry) => `+ ${entry}`), ...gone.map((entry) => `- ${entry}`)].join("\n"),
  );
  assert.deepEqual(computed, committed, "snapshot is not sorted or has duplicates");
});

test("the committed snapshot uses the four categories, and its missing notes really are missing", () => {
  const committed = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as UnresolvedEntry[];
  const allowed = new Set<string>(["external-url", "placeholder-example", "image-attachment-not-shipped", "missing-note"]);
  for (const entry of committed) assert.ok(allowed.has(entry.category), `${entry.link}: ${entry.category}`);
  // The fixture ships every note but no media, so the attachments dominate.
  const media = committed.filter((entry) => entry.category === "image-attachment-not-shipped");
  assert.ok(media.length > committed.length / 2);
  for (const entry of committed.filter((item) => item.category === "missing-note")) {
    const name = lastSegment(entry.link).toLowerCase();
    assert.ok(!notes.some((path) => [name, `${name}.md`].includes(lastSegment(path).toLowerCase())), entry.link);
  }
});
