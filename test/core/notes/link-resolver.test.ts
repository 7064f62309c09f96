import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { LinkResolver } from "../../../src/core/notes/link-resolver";
import { EDGE_VAULT, vaultFiles } from "../../support/vaults";



const edgeFiles = vaultFiles(EDGE_VAULT);
const edge = new LinkResolver(edgeFiles);
const INDEX = "wiki/index.md";

// What wiki/index.md says each of its links must reach (null: broken on purpose).
const INDEX_EXPECTATIONS: ReadonlyMap<string, string | null> = new Map([
  ["rate-limiting", "wiki/rate-limiting.md"],
  ["rate-limiting.md", "wiki/rate-limiting.md"],
  ["wiki/rate-limiting", "wiki/rate-limiting.md"],
  ["alpha/plan", "projects/alpha/plan.md"],
  ["/wiki/rate-limiting", "wiki/rate-limiting.md"],
  ["rate-limiting#Token bucket", "wiki/rate-limiting.md"],
  ["rate-limiting#^bucket-def", "wiki/rate-limiting.md"],
  ["diagram.png", "Attachments/diagram.png"],
  ["../projects/alpha/Team notes.md", "projects/alpha/Team notes.md"],
  ["../projects/alpha/plan", "projects/alpha/plan.md"],
  ["plan", "projects/beta/plan.md"],
  ["does-not-exist", null],
  ["#Links of every spelling", INDEX],
  ["Überlegungen", "Deutsch Notizen/Überlegungen.md"],
  ["日本語/ノート", "日本語/ノート.md"],
]);

/** A scan independent of the note parser: wiki targets without alias, local markdown targets decoded. */
function scanLinkpaths(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/!?\[\[([^\]]+)\]\]/g)) {
    found.push((match[1] ?? "").split("|")[0] ?? "");
  }
  for (const match of text.matchAll(/(?<!!)\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const target = match[1] ?? "";
    if (!/^[a-z]+:/i.test(target)) found.push(decodeURI(target));
  }
  return found;
}

test("every link in edge-vault wiki/index.md reaches what the note says", () => {
  const text = readFileSync(join(EDGE_VAULT, INDEX), "utf8");
  const linkpaths = scanLinkpaths(text);
  assert.ok(linkpaths.length >= INDEX_EXPECTATIONS.size);
  for (const linkpath of linkpaths) {
    assert.ok(INDEX_EXPECTATIONS.has(linkpath), `no expectation for ${linkpath}`);
    assert.equal(edge.resolve(linkpath, INDEX), INDEX_EXPECTATIONS.get(linkpath), linkpath);
  }
  assert.deepEqual(new Set(linkpaths), new Set(INDEX_EXPECTATIONS.keys()));
});

test("a shared basename picks the shorter path when no candidate shares the source folder", () => {
  const beta = "projects/beta/plan.md";
  const alpha = "projects/alpha/plan.md";
  assert.ok(beta.length < alpha.length);
  assert.deepEqual(edge.candidates("plan", INDEX), [beta, alpha]);
  assert.equal(edge.resolve("plan", alpha), alpha);
  assert.equal(edge.resolve("plan", beta), beta);
  assert.equal(edge.resolve("plan", "projects/alpha/Team notes.md"), alpha);
});

test("names and paths match ignoring case", () => {
  assert.equal(edge.resolve("RATE-LIMITING", INDEX), "wiki/rate-limiting.md");
  assert.equal(edge.resolve("Wiki/Rate-Limiting.MD", INDEX), "wiki/rate-limiting.md");
  assert.equal(edge.resolve("/WIKI/rate-limiting", "README.md"), "wiki/rate-limiting.md");
  assert.equal(edge.resolve("../PROJECTS/alpha/PLAN", INDEX), "projects/alpha/plan.md");
  assert.equal(edge.resolve("überlegungen", INDEX), "Deutsch Notizen/Überlegungen.md");
});

test("a file literally named Note beats Note.md, because .md is tried only after a full miss", () => {
  const resolver = new LinkResolver(["a/Note", "a/Note.md", "b/Note.md"]);
  assert.deepEqual(resolver.candidates("Note", "x.md"), ["a/Note"]);
  assert.equal(resolver.resolve("Note.md", "x.md"), "a/Note.md");
  resolver.removeFile("a/Note");
  assert.deepEqual(resolver.candidates("Note", "x.md"), ["a/Note.md", "b/Note.md"]);
});

test("a leading slash means the exact vault path only; a miss stays broken", () => {
  assert.equal(edge.resolve("/rate-limiting", INDEX), null);
  assert.equal(edge.resolve("/alpha/plan", INDEX), null);
  assert.equal(edge.resolve("/projects/alpha/plan", INDEX), "projects/alpha/plan.md");
  assert.equal(edge.resolve("/Attachments/diagram.png", INDEX), "Attachments/diagram.png");
});

test("./ and ../ join the source folder and never fall back to the bare name", () => {
  assert.equal(edge.resolve("./plan", INDEX), null);
  assert.equal(edge.resolve("../plan", "projects/alpha/plan.md"), null);
  assert.equal(edge.resolve("./Überlegungen", INDEX), null);
  assert.equal(edge.resolve("./rate-limiting", INDEX), "wiki/rate-limiting.md");
  assert.equal(edge.resolve("./plan", "projects/alpha/Team notes.md"), "projects/alpha/plan.md");
  assert.equal(edge.resolve("../beta/plan", "projects/alpha/plan.md"), "projects/beta/plan.md");
  assert.equal(edge.resolve("./../beta/plan", "projects/alpha/plan.md"), "projects/beta/plan.md");
  assert.equal(edge.resolve("../../../README", "projects/alpha/plan.md"), "README.md");
  assert.equal(edge.resolve("./wiki/index", "README.md"), INDEX);
});

test("aliases and titles are never consulted", () => {
  assert.equal(edge.resolve("Start", "README.md"), null);
  assert.equal(edge.resolve("Home page", "README.md"), null);
  assert.equal(edge.resolve("Index", "README.md"), "wiki/index.md");
  assert.equal(edge.resolve("Alpha plan", "README.md"), null);
  assert.equal(edge.resolve("Rate limiting", "README.md"), null);
});

test("the source folder and its subfolders come first; an ancestor folder gives no advantage", () => {
  const resolver = new LinkResolver(["a/deep/sub/Note.md", "b/Note.md", "aa/Note.md", "c/Note.md"]);
  assert.deepEqual(resolver.candidates("Note", "a/x.md"), [
    "a/deep/sub/Note.md",
    "b/Note.md",
    "c/Note.md",
    "aa/Note.md",
  ]);
  // An exact vault path is decided before any folder preference.
  resolver.addFile("Note.md");
  assert.deepEqual(resolver.candidates("Note", "a/x.md"), ["Note.md"]);
  const nested = new LinkResolver(["aa/Note.md", "c/Note.md"]);
  assert.equal(nested.resolve("Note", "aa/b/x.md"), "c/Note.md");
  // The folder prefix is a whole folder: "a" does not claim "ab/".
  const prefix = new LinkResolver(["ab/Note.md", "b/Note.md"]);
  assert.equal(prefix.resolve("Note", "a/x.md"), "b/Note.md");
});

test("from the vault root every candidate counts as same folder, so the shortest path wins", () => {
  const resolver = new LinkResolver(["z/Note.md", "y/long/Note.md", "b/Note.md"]);
  assert.deepEqual(resolver.candidates("Note", "root.md"), ["b/Note.md", "z/Note.md", "y/long/Note.md"]);
});

test("path suffixes are plain string suffixes, as in Obsidian", () => {
  const resolver = new LinkResolver(["a/b/Note.md", "xb/Note.md", "b/Other.md"]);
  assert.deepEqual(resolver.candidates("b/Note", "elsewhere/s.md"), ["xb/Note.md", "a/b/Note.md"]);
  assert.equal(resolver.resolve("a/b/Note", "elsewhere/s.md"), "a/b/Note.md");
  assert.equal(resolver.resolve("c/Note", "elsewhere/s.md"), null);
});

test("a relative miss continues with the joined path as a suffix, not with the bare name", () => {
  const resolver = new LinkResolver(["z/a/b/Note.md", "Note.md"]);
  assert.equal(resolver.resolve("./b/Note", "a/s.md"), "z/a/b/Note.md");
  assert.equal(resolver.resolve("./c/Note", "a/s.md"), null);
  // Joined at the vault root the path is the bare name, so there it behaves like [[Note]].
  assert.equal(resolver.resolve("../Note", "a/s.md"), "Note.md");
  assert.equal(resolver.resolve("./b/Note", "s.md"), "z/a/b/Note.md");
});

test("subpaths are stripped; an empty linkpath is the source itself", () => {
  assert.equal(edge.resolve("plan#Alpha plan", "projects/alpha/plan.md"), "projects/alpha/plan.md");
  assert.equal(edge.resolve("#Token bucket", "wiki/rate-limiting.md"), "wiki/rate-limiting.md");
  assert.equal(edge.resolve("#^bucket-def", "wiki/rate-limiting.md"), "wiki/rate-limiting.md");
  assert.equal(edge.resolve("", "board.canvas"), "board.canvas");
  assert.equal(edge.resolve("#H", "not/in/vault.md"), null);
});

test("attachments of any extension resolve; external-looking wiki targets are broken notes", () => {
  assert.equal(edge.resolve("board.canvas", INDEX), "board.canvas");
  assert.equal(edge.resolve("board", INDEX), null);
  assert.equal(edge.resolve("diagram", INDEX), null);
  assert.equal(edge.resolve("https://example.com", INDEX), null);
});

test("linkpaths in NFD find NFC file names", () => {
  assert.equal(edge.resolve("Überlegungen".normalize("NFD"), INDEX), "Deutsch Notizen/Überlegungen.md");
});

test("adding and removing files changes resolution without a rebuild", () => {
  const resolver = new LinkResolver(edgeFiles);
  assert.equal(resolver.resolve("does-not-exist", INDEX), null);
  resolver.addFile("inbox/does-not-exist.md");
  assert.equal(resolver.resolve("does-not-exist", INDEX), "inbox/does-not-exist.md");
  resolver.addFile("wiki/plan.md");
  assert.equal(resolver.resolve("plan", INDEX), "wiki/plan.md");
  resolver.removeFile("wiki/plan.md");
  resolver.removeFile("projects/beta/plan.md");
  assert.equal(resolver.resolve("plan", INDEX), "projects/alpha/plan.md");
  resolver.removeFile("projects/alpha/plan.md");
  assert.equal(resolver.resolve("plan", INDEX), null);
  assert.equal(resolver.hasFile("projects/alpha/plan.md"), false);
  resolver.setFiles(["plan.md"]);
  assert.equal(resolver.resolve("plan", INDEX), "plan.md");
  assert.equal(resolver.resolve("rate-limiting", INDEX), null);
});

test("two case variants of one path resolve deterministically to the exact spelling", () => {
  const resolver = new LinkResolver(["a/note.md", "A/Note.md"]);
  assert.equal(resolver.resolve("A/Note", "x.md"), "A/Note.md");
  assert.equal(resolver.resolve("a/note", "x.md"), "a/note.md");
  assert.equal(resolver.resolve("a/NOTE", "x.md"), "A/Note.md");
});

test("fileToLinktext follows the three newLinkFormat settings", () => {
  const alpha = "projects/alpha/plan.md";
  assert.equal(edge.fileToLinktext("wiki/rate-limiting.md", INDEX, "shortest"), "rate-limiting");
  assert.equal(edge.fileToLinktext("wiki/rate-limiting.md", INDEX, "shortest", false), "rate-limiting.md");
  assert.equal(edge.fileToLinktext(alpha, INDEX, "shortest"), "projects/alpha/plan");
  assert.equal(edge.fileToLinktext(alpha, "projects/alpha/Team notes.md", "shortest"), "projects/alpha/plan");
  assert.equal(edge.fileToLinktext("Attachments/diagram.png", INDEX, "shortest"), "diagram.png");
  assert.equal(edge.fileToLinktext(alpha, INDEX, "absolute"), "projects/alpha/plan");
  assert.equal(edge.fileToLinktext(alpha, INDEX, "absolute", false), alpha);
  assert.equal(edge.fileToLinktext(alpha, INDEX, "relative"), "../projects/alpha/plan");
  assert.equal(edge.fileToLinktext(alpha, "projects/beta/plan.md", "relative"), "../alpha/plan");
  assert.equal(edge.fileToLinktext(alpha, "projects/alpha/Team notes.md", "relative"), "plan");
  assert.equal(edge.fileToLinktext(alpha, "README.md", "relative"), "projects/alpha/plan");
  assert.equal(edge.fileToLinktext("README.md", "journal/2026/2026-01-05.md", "relative"), "../../README");
});

test("every linktext written for an edge-vault file resolves back to it", () => {
  for (const target of edgeFiles) {
    for (const source of edgeFiles.filter((path) => path.endsWith(".md"))) {
      for (const format of ["shortest", "relative", "absolute"] as const) {
        const linktext = edge.fileToLinktext(target, source, format);
        assert.equal(edge.resolve(linktext, source), target, `${format} ${source} → ${target}`);
      }
    }
  }
});

test("shortest and absolute linktexts round-trip in random vaults", () => {
  const segment = fc.constantFrom("a", "b", "Note", "plan", "x y", "Ü");
  const notePath = fc
    .array(segment, { minLength: 1, maxLength: 4 })
    .map((segments) => `${segments.join("/")}.md`);
  fc.assert(
    fc.property(fc.uniqueArray(notePath, { minLength: 1, maxLength: 12 }), fc.nat(), fc.nat(), (paths, t, s) => {
      const resolver = new LinkResolver(paths);
      const target = paths[t % paths.length] ?? "";
      const source = paths[s % paths.length] ?? "";
      for (const format of ["shortest", "absolute"] as const) {
        assert.equal(resolver.resolve(resolver.fileToLinktext(target, source, format), source), target);
      }
    }),
    { numRuns: 300 },
  );
});

test("20,000 files and 200,000 links: every resolution is one of the candidates, best first", () => {
  let seed = 42;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let mixed = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const folders = Array.from({ length: 400 }, (_, i) => `folder ${i % 40}/sub ${i}`);
  const names = Array.from({ length: 12000 }, (_, i) => `Note ${i}`);
  const paths = new Set<string>();
  while (paths.size < 20000) {
    const folder = folders[Math.floor(random() * folders.length)] ?? "";
    const name = names[Math.floor(random() * names.length)] ?? "";
    paths.add(`${folder}/${name}.md`);
  }
  const sources = [...paths];
  const resolver = new LinkResolver(sources);
  const links = Array.from({ length: 200000 }, () => {
    const name = names[Math.floor(random() * names.length * 1.1)] ?? "missing";
    return random() < 0.2 ? `sub ${Math.floor(random() * 400)}/${name}#Heading` : name;
  });
  let resolved = 0;
  for (let i = 0; i < links.length; i++) {
    const source = sources[i % sources.length] ?? "";
    const target = resolver.resolve(links[i] ?? "", source);
    if (target === null) continue;
    resolved++;
    if (i % 997 === 0) assert.equal(resolver.candidates(links[i] ?? "", source)[0], target);
  }
  assert.ok(resolved > 100000, `only ${resolved} links resolved`);
});
