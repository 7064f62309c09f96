// vault_replace through the official SDK client on a temp copy of edge-vault: dry run by default, the
// limit refuses before anything is written, a real run writes exactly the matching files with one
// summary commit, dry-run diffs equal the applied ones, and the refusals name the call to make.
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

interface ReplaceResult {
  vault: string;
  pattern: string;
  dry_run: boolean;
  total: number;
  returned: number;
  occurrences: number;
  notes: Array<{ path: string; occurrences: number; diff: string; trash?: string }>;
  warnings: string[];
}

function ok(result: ToolCallResult): ReplaceResult {
  assert.equal(result.isError, false, result.text);
  assert.equal(result.structured.vault, "edge");
  return result.structured as unknown as ReplaceResult;
}

function refused(result: ToolCallResult, code: string, next: RegExp): void {
  assert.equal(result.isError, true, "expected a refusal");
  const error = result.structured.error as { code: string; state: string };
  assert.equal(error.code, code, result.text);
  assert.equal(error.state, "not_applied", result.text);
  assert.match(result.text, next);
}

async function revisions(note: string): Promise<Array<{ commit: string; id: string; message: string; reason?: string }>> {
  const history = await server.call("note_history", { path: note });
  assert.equal(history.isError, false, history.text);
  return history.structured.revisions as Array<{ commit: string; id: string; message: string; reason?: string }>;
}

/** The first start commits a baseline in the background; wait for it so counts are stable. */
async function baseline(note: string): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = await revisions(note);
    if (found.length > 0) return found.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`no baseline revision of ${note}`);
}

test("over the limit, a dry run and a real run both refuse and write nothing", async () => {
  const before = snapshot();
  const dry = await server.call("vault_replace", { pattern: "^title: ", flags: "m", replace: "title: X ", limit: 3 });
  refused(dry, "invalid_argument", /would change 1\d notes, more than limit \(3\), so nothing was written\. They are in: wiki \(\d+\), .*prefix or glob.*raise limit/);
  const real = await server.call("vault_replace", { pattern: "^title: ", flags: "m", replace: "title: X ", limit: 3, dry_run: false });
  refused(real, "invalid_argument", /more than limit \(3\), so nothing was written/);
  assert.deepEqual(changedFiles(before), [], "the vault is byte for byte as it was");
});

test("a real run writes exactly the matching files, with the dry run's diffs, as one commit", async () => {
  const [alphaCount, betaCount, indexCount] = [await baseline("projects/alpha/plan.md"), await baseline("projects/beta/plan.md"), await baseline("wiki/index.md")];
  const alpha = disk("projects/alpha/plan.md").toString("utf8");
  const beta = disk("projects/beta/plan.md").toString("utf8");
  const args = { pattern: "^title: (?<name>Alpha|Beta) plan$", flags: "m", replace: "title: $<name> Plan ($1)", prefix: "projects" };

  const before = snapshot();
  const dry = ok(await server.call("vault_replace", args));
  assert.equal(dry.dry_run, true, "dry run is the default");
  assert.deepEqual(changedFiles(before), [], "a dry run writes nothing");
  assert.deepEqual(dry.notes.map((note) => [note.path, note.occurrences]), [["projects/alpha/plan.md", 1], ["projects/beta/plan.md", 1]]);
  assert.equal(dry.total, 2);
  assert.equal(dry.returned, 2);
  assert.match(dry.notes[0]!.diff, /^\+title: Alpha Plan \(Alpha\)$/m);

  const applied = ok(await server.call("vault_replace", { ...args, dry_run: false, reason: "capitalise plan titles" }));
  assert.equal(applied.dry_run, false);
  assert.equal(applied.occurrences, 2);
  assert.deepEqual(applied.notes.map((note) => note.diff), dry.notes.map((note) => note.diff), "the dry run's diffs are the applied diffs");
  assert.deepEqual(changedFiles(before), ["projects/alpha/plan.md", "projects/beta/plan.md"], "exactly the matching files changed");
  assert.equal(disk("projects/alpha/plan.md").toString("utf8"), alpha.replace("title: Alpha plan\n", "title: Alpha Plan (Alpha)\n"));
  assert.equal(disk("projects/beta/plan.md").toString("utf8"), beta.replace("title: Beta plan\n", "title: Beta Plan (Beta)\n"));
  for (const note of applied.notes) assert.ok(note.trash && disk(note.trash).toString("utf8") === (note.path.includes("alpha") ? alpha : beta), `trash copy of ${note.path}`);

  const [alphaHistory, betaHistory] = [await revisions("projects/alpha/plan.md"), await revisions("projects/beta/plan.md")];
  assert.equal(alphaHistory[0]!.id, betaHistory[0]!.id, "both notes' newest commit is the same one");
  assert.equal(alphaHistory[0]!.message, "vault_replace: 2 notes, 2 occurrences");
  assert.equal(alphaHistory[0]!.reason, "capitalise plan titles");
  assert.equal(alphaHistory.length, alphaCount + 1, "exactly one new commit");
  assert.equal(betaHistory.length, betaCount + 1, "exactly one new commit");
  assert.equal((await revisions("wiki/index.md")).length, indexCount, "an untouched note gets no commit");
});

test("literal mode, glob and a deleting replacement", async () => {
  const note = disk("wiki/hr-not-frontmatter.md").toString("utf8");
  const result = ok(await server.call("vault_replace", { pattern: "Some text.", literal: true, replace: "$& (literal $1)", glob: "wiki/*.md", dry_run: false }));
  assert.deepEqual(result.notes.map((entry) => entry.path), ["wiki/hr-not-frontmatter.md"]);
  assert.equal(disk("wiki/hr-not-frontmatter.md").toString("utf8"), note.replace("Some text.", () => "$& (literal $1)"), "$ is taken as typed");
  const glob = ok(await server.call("vault_replace", { pattern: "plan", flags: "i", replace: "", glob: "projects/beta/*" }));
  assert.deepEqual(glob.notes.map((entry) => entry.path), ["projects/beta/plan.md"], "glob keeps the other plan out");
  assert.ok(glob.occurrences >= 3);
});

test("refuses what cannot be meant, and a guard's refusal for one note stops all", async () => {
  const before = snapshot();
  refused(await server.call("vault_replace", { pattern: "", replace: "x" }), "invalid_argument", /pattern is empty.*vault_grep/);
  refused(await server.call("vault_replace", { pattern: "Index", literal: true, replace: "Index" }), "invalid_argument", /same text/);
  refused(await server.call("vault_replace", { pattern: "(Index)", replace: "$1" }), "invalid_argument", /leaves every match as it was/);
  refused(await server.call("vault_replace", { pattern: "(plan) \\1", replace: "x" }), "invalid_argument", /backreference \(\\1\).*RE2 syntax.*second step/);
  refused(await server.call("vault_replace", { pattern: "plan(?= )", replace: "x" }), "invalid_argument", /lookahead.*no lookaround.*\\b/);
  refused(await server.call("vault_replace", { pattern: "(unclosed", replace: "x" }), "invalid_argument", /not a valid regular expression.*literal: true/);
  refused(await server.call("vault_replace", { pattern: "x", replace: "y", flags: "y" }), "invalid_argument", /Unsupported regex flag/);
  refused(await server.call("vault_replace", { pattern: "zebra-quokka-nowhere", replace: "x" }), "not_found", /matches nothing.*vault_grep/);
  const guard = await server.call("vault_replace", { pattern: "^title: (.*)$", flags: "m", replace: "title: [$1", prefix: "journal", dry_run: false });
  refused(guard, "invalid_argument", /refused for 1 note\(s\), so nothing was written: journal\/2026\/2026-01-05\.md: .*not be valid YAML/);
  assert.deepEqual(changedFiles(before), [], "no refusal writes anything");
});
