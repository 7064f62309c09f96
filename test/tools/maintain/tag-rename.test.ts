// tag_rename through the official SDK client on a temp copy of edge-vault: what is a tag and what is
// not (code, inline code, word#tag, longer tags), byte stability of everything else, dry run = applied
// diffs, one summary commit for all notes, and the refusals with the call they name.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer, type ToolCallResult } from "../../support/server";
import { EDGE_VAULT, vaultFiles } from "../../support/vaults";

let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge", extra: { rateLimit: { perMinute: 100_000, burst: 10_000 } } });
});
after(async () => server.stop());

const disk = (note: string): Buffer => readFileSync(path.join(server.vault.dir, ...note.split("/")));

function snapshot(): Map<string, Buffer> {
  return new Map(vaultFiles(server.vault.dir).map((file) => [file, disk(file)]));
}

function changedFiles(before: Map<string, Buffer>): string[] {
  const after = snapshot();
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((file) => !before.get(file)?.equals(after.get(file) ?? Buffer.alloc(0))).sort();
}

interface RenameResult {
  vault: string;
  from: string;
  to: string;
  dry_run: boolean;
  total: number;
  returned: number;
  occurrences: number;
  notes: Array<{ path: string; occurrences: number; diff: string }>;
  warnings: string[];
}

function ok(result: ToolCallResult): RenameResult {
  assert.equal(result.isError, false, result.text);
  assert.equal(result.structured.vault, "edge");
  return result.structured as unknown as RenameResult;
}

function refused(result: ToolCallResult, code: string, next: RegExp): void {
  assert.equal(result.isError, true, "expected a refusal");
  const error = result.structured.error as { code: string; state: string };
  assert.equal(error.code, code, result.text);
  assert.equal(error.state, "not_applied", result.text);
  assert.match(result.text, next);
}

async function revisions(note: string): Promise<Array<{ commit: string; message: string }>> {
  const history = await server.call("note_history", { path: note });
  assert.equal(history.isError, false, history.text);
  return history.structured.revisions as Array<{ commit: string; message: string }>;
}

const CASES = [
  "---",
  "title: Tag cases",
  "# a comment that stays",
  "Tags:",
  '  - "#alpha"',
  "  - alpha/child   # nested, with a comment",
  "  - alphabet",
  "other: [alpha, 'x']",
  "---",
  "# Tag cases",
  "",
  "Inline #alpha and #ALPHA/Sub, longer #alphabet, glued word#alpha, code `#alpha` and `` #alpha ``.",
  "",
  "```sh",
  "echo #alpha",
  "```",
  "",
  "~~~",
  "#alpha in a tilde fence",
  "~~~",
  "",
  "Last #alpha.",
  "",
].join("\n");

/** The four places that are tags, and what they become; everything else in CASES must stay. */
const RENAMED: Array<[string, string]> = [
  ['- "#alpha"', '- "#Beta"'],
  ["- alpha/child ", "- Beta/child "],
  ["Inline #alpha and #ALPHA/Sub", "Inline #Beta and #Beta/Sub"],
  ["Last #alpha.", "Last #Beta."],
];

test("renames frontmatter and inline tags, nested ones too, and nothing in code, word#tag or longer tags", async () => {
  for (const note of ["tags/cases.md", "tags/second.md"]) {
    const created = await server.call("note_create", { path: note, content: note === "tags/cases.md" ? CASES : "---\ntags: alpha\n---\nSee #alpha/deep/er.\n" });
    assert.equal(created.isError, false, created.text);
  }
  const cases = disk("tags/cases.md").toString("utf8");
  const second = disk("tags/second.md").toString("utf8");
  for (const [place] of RENAMED) assert.ok(cases.includes(place), `the created note holds ${place}`);
  const expectedCases = RENAMED.reduce((text, [place, renamed]) => text.replace(place, renamed), cases);

  const before = snapshot();
  const dry = ok(await server.call("tag_rename", { from: "#alpha", to: "Beta", dry_run: true }));
  assert.deepEqual(changedFiles(before), [], "a dry run writes nothing");
  assert.equal(dry.dry_run, true);
  assert.deepEqual(
    dry.notes.map((note) => [note.path, note.occurrences]),
    [
      ["tags/cases.md", 5],
      ["tags/second.md", 2],
    ],
  );
  assert.equal(dry.total, 2);
  assert.equal(dry.returned, 2);
  assert.equal(dry.occurrences, 7);
  assert.match(dry.notes[0]!.diff, /^-Inline #alpha and #ALPHA\/Sub/m);

  const applied = ok(await server.call("tag_rename", { from: "alpha", to: "Beta", reason: "rename for the test" }));
  assert.equal(applied.dry_run, false);
  assert.deepEqual(applied.notes.map((note) => note.diff), dry.notes.map((note) => note.diff), "the dry run's diffs are the applied diffs");
  assert.deepEqual(changedFiles(before), ["tags/cases.md", "tags/second.md"]);
  assert.equal(disk("tags/cases.md").toString("utf8"), expectedCases, "code, inline code, word#tag, #alphabet and the other YAML are byte-identical");
  assert.equal(disk("tags/second.md").toString("utf8"), second.replace("tags: alpha", "tags: Beta").replace("#alpha/deep/er", "#Beta/deep/er"));

  const [cases1, cases2] = [await revisions("tags/cases.md"), await revisions("tags/second.md")];
  assert.equal(cases1[0]!.message, "tag_rename: #alpha -> #Beta (2 notes)");
  assert.equal(cases1[0]!.commit, cases2[0]!.commit, "one commit for all notes");
  assert.deepEqual(
    cases1.map((revision) => revision.message),
    ["tag_rename: #alpha -> #Beta (2 notes)", "note_create: tags/cases.md"],
    "the per-file writes made no commits of their own",
  );
  assert.ok(!(await revisions("wiki/index.md")).some((revision) => revision.message.startsWith("tag_rename")), "an untouched note gets no revision");

  const tags = await server.call("tag_list", { prefix: "beta" });
  assert.deepEqual((tags.structured.tags as Array<{ tag: string; count: number }>).map((entry) => `${entry.tag}:${entry.count}`), ["beta:2", "beta/child:1", "beta/deep/er:1", "beta/sub:1"]);
  refused(await server.call("tag_rename", { from: "alpha", to: "gamma" }), "not_found", /tag_list/);
});

test("keeps the edge vault's YAML comments, flow lists, BOM and CRLF, and its non-tags, byte for byte", async () => {
  const index = disk("wiki/index.md").toString("utf8");
  const topic = ok(await server.call("tag_rename", { from: "topic", to: "subject" }));
  assert.deepEqual(topic.notes.map((note) => [note.path, note.occurrences]), [["wiki/index.md", 2]]);
  assert.equal(
    disk("wiki/index.md").toString("utf8"),
    index.replace("  - Topic/Knowledge   # nested tag, mixed case, trailing comment", "  - subject/Knowledge   # nested tag, mixed case, trailing comment").replace("#hub #Topic/Knowledge", "#hub #subject/Knowledge"),
  );
  assert.match(disk("wiki/index.md").toString("utf8"), /but not#this nor `#code` nor &#35;entity\.$/m);

  const crlf = disk("wiki/bom-crlf.md");
  ok(await server.call("tag_rename", { from: "CRLF", to: "line-endings" }));
  assert.deepEqual(disk("wiki/bom-crlf.md"), Buffer.from(crlf.toString("utf8").replace("tags: crlf\r\n", "tags: line-endings\r\n"), "utf8"));

  const rate = disk("wiki/rate-limiting.md").toString("utf8");
  ok(await server.call("tag_rename", { from: "networking", to: "net" }));
  assert.equal(disk("wiki/rate-limiting.md").toString("utf8"), rate.replace("tags: [networking]", "tags: [net]"));
  assert.match(disk("wiki/rate-limiting.md").toString("utf8"), /echo "\[\[not-a-link\]\] #not-a-tag"/);
});

test("refuses invalid names, a rename to itself, tags that exist only in code or glued to a word, and too many notes", async () => {
  const before = snapshot();
  refused(await server.call("tag_rename", { from: "hub", to: "two words" }), "invalid_argument", /whitespace/);
  refused(await server.call("tag_rename", { from: "hub", to: "a.b" }), "invalid_argument", /not a valid tag: "\." would end the tag after "a"/);
  refused(await server.call("tag_rename", { from: "hub", to: "2026" }), "invalid_argument", /only digits/);
  refused(await server.call("tag_rename", { from: "hub", to: "a//b" }), "invalid_argument", /empty level/);
  refused(await server.call("tag_rename", { from: "#hub", to: "hub" }), "invalid_argument", /same tag/);
  for (const notATag of ["this", "code", "not-a-tag", "entity"]) {
    refused(await server.call("tag_rename", { from: notATag, to: "x" }), "not_found", /carries #.*tag_list/);
  }
  refused(await server.call("tag_rename", { from: "pro", to: "x" }), "not_found", /Similar tags: #project/);
  refused(await server.call("tag_rename", { from: "beta", to: "x", limit: 1, dry_run: true }), "invalid_argument", /would change 2 notes, more than limit \(1\)/);
  assert.deepEqual(changedFiles(before), [], "no refusal writes anything");
});
