// Another program appends a line to a note every 15 ms (open, append, close, as a logger or a capture
// script does) while agents append to the same note through the server as fast as they can, for 20 s.
// Nothing the other program wrote may be lost: the server's last hash check and its rename leave a
// moment in which the other program can still write to the file being replaced, and the server must
// see that and put the other program's version back. Every server append is either acknowledged and
// in the note exactly once, or refused as a conflict and absent.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callTool, startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT, tempVault } from "../support/vaults";

const NOTE = "wiki/race.md";
const APPEND_EVERY_MS = 15;
const RACE_MS = Number(process.env.EXTERNAL_RACE_MS ?? 20_000);
/** Server appends the race must see acknowledged to have tested anything; on a loaded machine it runs longer to get them. */
const MIN_ACKNOWLEDGED = 10;
const MAX_RACE_MS = 3 * RACE_MS;
const AGENTS = Number(process.env.EXTERNAL_RACE_AGENTS ?? 4);
/** The largest note_read window, and this server's response limit, room for it. */
const WHOLE_READ_BYTES = 1024 * 1024;
let server: TestServer;

/**
 * In memory where the host has it: with no disk syncs to wait for, the server makes many more writes
 * in the time, and so meets the other program more often in the moment around its rename.
 */
const UNDER = existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, vault: tempVault(EDGE_VAULT, UNDER), extra: { rateLimit: { perMinute: 1_000_000, burst: 100_000 }, maxResponseBytes: 2 * WHOLE_READ_BYTES } });
  const created = await server.call("note_create", { path: NOTE, content: "# Race\n\n## Log\n" });
  assert.equal(created.isError, false, created.text);
});
after(async () => {
  await server.stop();
  server.vault.cleanup();
});

interface Outcome {
  acknowledged: string[];
  refused: string[];
  putBack: number;
}

/**
 * The whole note in one read, so its content and content_hash are of one version: the race makes the
 * note longer than the default window (24 KB) and response limit, so this server allows a larger one.
 */
async function readWhole(client: Client): Promise<{ hash: string; content: string }> {
  const read = await callTool(client, "note_read", { path: NOTE, max_bytes: WHOLE_READ_BYTES });
  assert.equal(read.isError, false, read.text);
  assert.equal(read.structured.next_byte_offset, undefined, "the note fits one read");
  return { hash: read.structured.content_hash as string, content: read.structured.content as string };
}

/**
 * One agent: appends a line never used before, until the race ends. A reading agent reads first and
 * passes the content_hash it read; a blind one lets the server read the note inside its write lock,
 * so that nearly every append of its reaches the file (the server's own check of that hash right
 * before the rename is the one the other program races).
 */
async function agent(client: Client, name: string, reads: boolean, until: () => boolean, outcome: Outcome): Promise<void> {
  for (let attempt = 0; !until(); attempt++) {
    const line = `- ${name} append ${attempt}`;
    let result;
    if (!reads) {
      result = await callTool(client, "note_section_edit", { path: NOTE, heading: "Log", mode: "append_to_section", content: line });
    } else {
      const { hash, content } = await readWhole(client);
      const last = content.slice(content.lastIndexOf("\n", content.length - 2) + 1);
      // Both hash-checked edit tools take part.
      result =
        attempt % 2 === 0
          ? await callTool(client, "note_section_edit", { path: NOTE, heading: "Log", mode: "append_to_section", content: line, content_hash: hash })
          : await callTool(client, "note_edit", { path: NOTE, old_string: last, new_string: `${last}${line}\n`, content_hash: hash });
    }
    if (!result.isError) {
      outcome.acknowledged.push(line);
      continue;
    }
    const error = result.structured.error as { code: string; state: string };
    assert.equal(error.code, "conflict", result.text);
    assert.equal(error.state, "not_applied", result.text);
    if (/back in place/.test(result.text)) outcome.putBack += 1;
    outcome.refused.push(line);
  }
}

/**
 * The other program: a process of its own, appending `outside line <n>` every APPEND_EVERY_MS until told
 * to stop; it answers with how many lines it wrote.
 */
function startAppender(file: string): { stop(): Promise<number> } {
  const script = `
    const { appendFileSync } = require("node:fs");
    let n = 0;
    const timer = setInterval(() => appendFileSync(process.argv[1], "outside line " + n++ + "\\n"), ${APPEND_EVERY_MS});
    process.stdin.on("data", () => { clearInterval(timer); process.stdout.write(String(n)); process.exit(0); });
    process.stdout.write("ready\\n");
  `;
  const child = spawn(process.execPath, ["-e", script, file], { stdio: ["pipe", "pipe", "inherit"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        child.once("exit", () => resolve(Number(output.replace("ready\n", ""))));
        child.once("error", reject);
        child.stdin.write("stop\n");
      }),
  };
}

/** The race lasts RACE_MS, and longer (up to MAX_RACE_MS) until the server has acknowledged MIN_ACKNOWLEDGED appends. */
function raceOver(started: number, outcome: Outcome): boolean {
  const elapsed = Date.now() - started;
  return elapsed > MAX_RACE_MS || (elapsed > RACE_MS && outcome.acknowledged.length >= MIN_ACKNOWLEDGED);
}

test(`an outside appender every ${APPEND_EVERY_MS} ms against hash-checked server appends: nothing lost, nothing doubled`, { timeout: MAX_RACE_MS + 60_000 }, async () => {
  const file = path.join(server.vault.dir, ...NOTE.split("/"));
  const outcome: Outcome = { acknowledged: [], refused: [], putBack: 0 };
  const agents = Array.from({ length: AGENTS }, (_, id) => ({ name: `${id % 2 === 0 ? "reading" : "blind"} agent ${id}`, reads: id % 2 === 0 }));
  const clients = await Promise.all(agents.map((each) => server.connect(server.token, each.name)));
  const appender = startAppender(file);
  const started = Date.now();
  let written: number;
  try {
    await Promise.all(clients.map((client, id) => agent(client, agents[id]!.name, agents[id]!.reads, () => raceOver(started, outcome), outcome)));
  } finally {
    written = await appender.stop();
  }

  const external = Array.from({ length: written }, (_, n) => `outside line ${n}`);
  const counts = new Map<string, number>();
  for (const line of readFileSync(file, "utf8").split("\n")) counts.set(line, (counts.get(line) ?? 0) + 1);
  const count = (line: string): number => counts.get(line) ?? 0;
  const lost = external.filter((line) => count(line) === 0);
  assert.deepEqual(lost, [], `${lost.length} of ${external.length} outside lines lost`);
  assert.deepEqual(external.filter((line) => count(line) > 1), [], "no outside line doubled");
  assert.deepEqual(outcome.acknowledged.filter((line) => count(line) !== 1), [], "every acknowledged append is in the note exactly once");
  assert.deepEqual(outcome.refused.filter((line) => count(line) !== 0), [], "no refused append is in the note");
  assert.ok(external.length >= RACE_MS / APPEND_EVERY_MS / 3, `the outside program appended ${external.length} lines`);
  assert.ok(outcome.acknowledged.length >= MIN_ACKNOWLEDGED, `the server acknowledged ${outcome.acknowledged.length} appends in ${MAX_RACE_MS} ms`);
  console.log(
    `${external.length} outside lines, ${outcome.acknowledged.length} server appends acknowledged, ${outcome.refused.length} refused as conflicts (${outcome.putBack} after the outside version was put back)`,
  );
});
