// vault_grep and vault_replace through the official SDK client, with patterns that hang a backtracking
// engine, on notes holding one very long line: each call answers within its budget, a match deep in a
// long line is found, and while a call works the event loop keeps running (a timer here keeps ticking).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT, tempVault, type TempVault } from "../support/vaults";

const BUDGET_MS = 5000;
/** What a call may take past its budget: the last chunk of work, the answer, a loaded machine. */
const SLACK_MS = 1500;
/** The longest the event loop may go without running a timer while a call works. */
const MAX_STALL_MS = 250;

const LONG = 50_000;
const ATTACKS = ["(a+)+b", "(.*a){20}b", "a*a*a*a*a*a*b", "(a|aa)+b", "(a+){1,1000}b", "a*a*a*a*b"];
/** Sets of threads without end for a DFA and a thousand threads at once for the VM: slow in any engine. */
const SLOW = "(?:a|b)*a(?:a|b){999}c";

let vault: TempVault;
let server: TestServer;

function write(note: string, text: string): void {
  const file = path.join(vault.dir, ...note.split("/"));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function randomAB(length: number): string {
  let seed = 7;
  let text = "";
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    text += seed & 0x100 ? "a" : "b";
  }
  return text;
}

before(async () => {
  vault = tempVault(EDGE_VAULT);
  write("attack/plain.md", `# Attack\n\n${"a".repeat(LONG)}\n`);
  write("attack/ending.md", `${"a".repeat(LONG)}b\n`);
  write("deep/needle.md", `first line\n${"x".repeat(30_000)} needle ${"y".repeat(30_000)}\nlast line\n`);
  write("slow/ab.md", `${randomAB(400_000)}\n`);
  // A replacement's diff of a 50,000-character line is larger than the default response limit; the
  // planned notes are what these tests read, so results come back whole.
  server = await startTestServer({ fixture: EDGE_VAULT, vault, name: "edge", extra: { rateLimit: { perMinute: 100_000, burst: 10_000 }, maxResponseBytes: 1024 * 1024 } });
});

after(async () => {
  await server.stop();
  vault.cleanup();
});

interface Watched {
  result: ToolCallResult;
  elapsed: number;
  /**
   * The longest time the event loop went without running the timer, counted in this process's CPU
   * time: on a loaded machine the process also waits for a core, which is no stall of its own.
   */
  stall: number;
  /** The same gap in wall-clock time, for the message. */
  wallStall: number;
  ticks: number;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function watched(name: string, args: Record<string, unknown>): Promise<Watched> {
  let last = performance.now();
  let lastCpu = cpuMs();
  let stall = 0;
  let wallStall = 0;
  let ticks = 0;
  const gap = (): void => {
    const now = performance.now();
    const cpu = cpuMs();
    wallStall = Math.max(wallStall, now - last);
    stall = Math.max(stall, Math.min(now - last, cpu - lastCpu));
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(() => {
    gap();
    ticks++;
  }, 2);
  const started = performance.now();
  try {
    const result = await server.call(name, args);
    const finished = performance.now();
    gap();
    return { result, elapsed: finished - started, stall, wallStall, ticks };
  } finally {
    clearInterval(timer);
  }
}

test("vault_grep answers each attack pattern on a 50,000-character line at once, and finds the match at its end", async () => {
  for (const pattern of ATTACKS) {
    const { result, elapsed, stall } = await watched("vault_grep", { pattern, prefix: "attack" });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.structured.truncated, false, pattern);
    assert.equal(result.structured.time_budget_reached, false, pattern);
    const matches = result.structured.matches as Array<{ path: string; line: number; text: string; text_start: number; line_length: number; shortened: boolean }>;
    assert.deepEqual(
      matches.map((match) => [match.path, match.line]),
      [["attack/ending.md", 1]],
      pattern,
    );
    assert.equal(matches[0]!.line_length, LONG + 1);
    assert.equal(matches[0]!.text, `${"a".repeat(3999)}b`, "a window of the line around where the match ends");
    assert.equal(matches[0]!.text_start, LONG + 1 - 4000);
    assert.equal(matches[0]!.shortened, true);
    assert.ok(elapsed < BUDGET_MS, `${pattern}: ${Math.round(elapsed)} ms`);
    assert.ok(stall < MAX_STALL_MS, `${pattern}: the event loop stalled ${Math.round(stall)} ms`);
  }
});

test("vault_grep finds a match deep inside a long line and shows the line around it", async () => {
  const result = await server.call("vault_grep", { pattern: "needle", prefix: "deep", context: 1 });
  assert.equal(result.isError, false, result.text);
  const [match] = result.structured.matches as Array<{ line: number; text: string; text_start: number; line_length: number; before: string[]; after: string[]; shortened: boolean }>;
  assert.equal(match!.line, 2);
  assert.equal(match!.line_length, 60_008);
  assert.equal(match!.text.length, 4000);
  assert.ok(match!.text.includes(" needle "), "the match is inside the window");
  const line = readFileSync(path.join(vault.dir, "deep", "needle.md"), "utf8").split("\n")[1]!;
  assert.equal(line.slice(match!.text_start, match!.text_start + 4000), match!.text, "text_start says where the window starts");
  assert.deepEqual([match!.before, match!.after, match!.shortened], [["first line"], ["last line"], true]);
});

test("vault_grep keeps its time budget inside one long line and gives the event loop back meanwhile", async () => {
  const { result, elapsed, stall, wallStall, ticks } = await watched("vault_grep", { pattern: SLOW, prefix: "slow" });
  assert.equal(result.isError, false, result.text);
  assert.equal(result.structured.truncated, true);
  assert.equal(result.structured.time_budget_reached, true);
  assert.equal(result.structured.notes_scanned, 1);
  assert.ok(elapsed >= BUDGET_MS - 100 && elapsed < BUDGET_MS + SLACK_MS, `answered after ${Math.round(elapsed)} ms`);
  assert.ok(stall < MAX_STALL_MS, `the event loop stalled ${Math.round(stall)} ms of CPU (${Math.round(wallStall)} ms of wall time)`);
  assert.ok(ticks > 100, `the timer ran ${ticks} times`);
});

test("vault_replace plans each attack pattern within its budget: no match is not_found, a match is replaced", async () => {
  const ending = readFileSync(path.join(vault.dir, "attack", "ending.md"), "utf8");
  for (const pattern of ATTACKS) {
    const missing = await watched("vault_replace", { pattern, replace: "X", prefix: "attack/plain.md" });
    assert.equal(missing.result.isError, true);
    assert.equal((missing.result.structured.error as { code: string }).code, "not_found", missing.result.text);
    const found = await watched("vault_replace", { pattern, replace: "<$&>", prefix: "attack" });
    if (pattern === "(a+){1,1000}b" && found.result.isError) {
      // A thousand copies of a+ alive over 50,000 characters: about three seconds of work for the spans
      // here, so on a busy machine the budget may end it first, with the refusal that says so.
      assert.equal((found.result.structured.error as { code: string }).code, "too_large", found.result.text);
    } else {
      assert.equal(found.result.isError, false, `${pattern}: ${found.result.text}`);
      const notes = found.result.structured.notes as Array<{ path: string; occurrences: number }>;
      assert.deepEqual(
        notes.map((note) => [note.path, note.occurrences]),
        [["attack/ending.md", ending.match(new RegExp(pattern, "g"))!.length]],
        pattern,
      );
    }
    assert.ok(missing.elapsed < BUDGET_MS, `${pattern}: ${Math.round(missing.elapsed)} ms without a match`);
    assert.ok(found.elapsed < BUDGET_MS + SLACK_MS, `${pattern}: ${Math.round(found.elapsed)} ms`);
    for (const { stall } of [missing, found]) assert.ok(stall < MAX_STALL_MS, `${pattern}: the event loop stalled ${Math.round(stall)} ms`);
  }
  assert.equal(readFileSync(path.join(vault.dir, "attack", "ending.md"), "utf8"), ending, "dry runs write nothing");
});

test("vault_replace over its time budget is refused within it, writes nothing, and lets the event loop run", async () => {
  const note = path.join(vault.dir, "slow", "ab.md");
  const before = readFileSync(note, "utf8");
  const { result, elapsed, stall } = await watched("vault_replace", { pattern: SLOW, replace: "x", prefix: "slow", dry_run: false });
  assert.equal(result.isError, true);
  const error = result.structured.error as { code: string; state: string };
  assert.deepEqual([error.code, error.state], ["too_large", "not_applied"], result.text);
  assert.match(result.text, /took longer than 5 s over 1 note\(s\), so nothing was written\. Narrow the notes with prefix or glob/);
  assert.ok(elapsed < BUDGET_MS + SLACK_MS, `answered after ${Math.round(elapsed)} ms`);
  assert.ok(stall < MAX_STALL_MS, `the event loop stalled ${Math.round(stall)} ms`);
  assert.equal(readFileSync(note, "utf8"), before);
});

test("patterns RE2 cannot run are refused by both tools with what to write instead", async () => {
  for (const [tool, extra] of [
    ["vault_grep", {}],
    ["vault_replace", { replace: "x" }],
  ] as const) {
    const backreference = await server.call(tool, { pattern: "(\\w+) \\1", ...extra });
    assert.equal((backreference.structured.error as { code: string }).code, "invalid_argument");
    assert.match(backreference.text, /backreference \(\\1\).*RE2 syntax/);
    const lookbehind = await server.call(tool, { pattern: "(?<=#)tag", ...extra });
    assert.match(lookbehind.text, /lookbehind .*no lookaround/);
    const huge = await server.call(tool, { pattern: "(?:(?:x{100}){100}){2}", ...extra });
    assert.match(huge.text, /too large.*more than 10,000 steps/);
    const unclosed = await server.call(tool, { pattern: "(unclosed", ...extra });
    assert.match(unclosed.text, /not a valid regular expression.*pass literal: true/);
  }
});

test("vault_replace still takes the u and v flags, and expands $ forms as String.replace does", async () => {
  const note = "projects/beta/plan.md";
  const text = readFileSync(path.join(vault.dir, ...note.split("/")), "utf8");
  for (const flags of ["iu", "iv", "gi"]) {
    const result = await server.call("vault_replace", { pattern: "(?<word>plan)", flags, replace: "$$<$<word>|$1|$&>", prefix: "projects/beta" });
    assert.equal(result.isError, false, result.text);
    const [entry] = result.structured.notes as Array<{ path: string; occurrences: number; diff: string }>;
    assert.equal(entry!.path, note);
    assert.equal(entry!.occurrences, [...text.matchAll(/plan/gi)].length);
    const expected = text.replace(/(?<word>plan)/gi, "$$<$<word>|$1|$&>");
    for (const line of expected.split("\n").filter((line) => line.includes("$<"))) assert.ok(entry!.diff.includes(`+${line}`), `${flags}: ${line}`);
  }
});
