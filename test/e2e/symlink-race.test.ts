// A folder symlink inside the vault flipped between a folder inside and one outside, as fast as another
// process can, while tools address paths through it over the real server: no result may carry the
// outside note's text, and nothing may be written, replaced or removed outside.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

const ATTEMPTS = 600;
const CLIENTS = 4;
/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

// Swaps the link by renaming a fresh symlink over it: the link always exists, and points now here, now there.
const FLIPPER = `
const fs = require("node:fs");
const [link, inside, outside] = process.argv.slice(1);
const spare = require("node:path").join(require("node:path").dirname(link), ".flip-spare");
let flips = 0;
process.on("SIGTERM", () => { process.stdout.write(String(flips)); process.exit(0); });
// In stretches, so that the SIGTERM handler gets its turn.
const stretch = () => {
  for (let i = 0; i < 200; i++) {
    try {
      fs.symlinkSync(flips % 2 === 0 ? outside : inside, spare);
      fs.renameSync(spare, link);
      flips += 1;
    } catch {
      try { fs.unlinkSync(spare); } catch {}
    }
  }
  setImmediate(stretch);
};
stretch();
`;

interface Outside {
  dir: string;
  listing: string;
  note: { bytes: Buffer; ino: number };
}

function outsideState(dir: string): Outside {
  const note = path.join(dir, "note.md");
  return { dir, listing: readdirSync(dir).sort().join("\n"), note: { bytes: readFileSync(note), ino: statSync(note).ino } };
}

/** What changed outside since `before`, or null. */
function outsideChange(before: Outside): string | null {
  const now = outsideState(before.dir);
  if (now.listing !== before.listing) return `the outside folder holds ${JSON.stringify(now.listing.split("\n"))}`;
  if (!now.note.bytes.equals(before.note.bytes)) return "the outside note's bytes changed";
  if (now.note.ino !== before.note.ino) return "the outside note was replaced";
  return null;
}

test("a folder symlink flipped in and out of the vault: no read of outside content, no write outside", { timeout: 60_000 }, async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-race-"));
  const secret = `secret${randomBytes(12).toString("hex")}`;
  const dir = path.join(base, "vault");
  const outsideDir = path.join(base, "outside");
  mkdirSync(path.join(dir, "real"), { recursive: true });
  mkdirSync(outsideDir);
  // The same names on both sides, so every tool call has something to find wherever the link points.
  writeFileSync(path.join(dir, "real", "note.md"), "# Inside\n\nsharedword inside text\nedit-marker\n");
  writeFileSync(path.join(dir, "real", "other.md"), "# Other\n\nsharedword\n");
  writeFileSync(path.join(outsideDir, "note.md"), `# Outside\n\nsharedword ${secret}\nedit-marker\n`);
  writeFileSync(path.join(outsideDir, "other.md"), `# Other outside\n\nsharedword ${secret}\n`);
  writeFileSync(path.join(outsideDir, `${secret}.md`), `${secret}\n`);
  const before = outsideState(outsideDir);

  let server: TestServer | null = null;
  const flipper = spawn(process.execPath, ["-e", FLIPPER, path.join(dir, "flip"), path.join(dir, "real"), outsideDir], { stdio: ["ignore", "pipe", "inherit"] });
  let flips = "";
  flipper.stdout.on("data", (chunk: Buffer) => (flips += chunk.toString()));
  // "close", not "exit": the count it prints on SIGTERM must have arrived.
  const ended = new Promise<void>((resolve) => flipper.on("close", () => resolve()));
  try {
    // Hundreds of calls in a few seconds: the race is what is tested here, not the rate limit.
    server = await startTestServer({
      fixture: EDGE_VAULT,
      vault: { dir, dataDir: path.join(base, "data"), cleanup: () => undefined },
      extra: { rateLimit: { perMinute: 1_000_000, burst: 100_000 } },
    });
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => server!.connect()));
    const leaks: string[] = [];
    const writes: string[] = [];
    const counts = new Map<string, number>();
    let next = 0;
    const attempt = (i: number): [string, Record<string, unknown>] => {
      switch (i % 13) {
        case 0: return ["note_read", { path: "flip/note.md" }];
        case 1: return ["note_create", { path: `flip/new-${i}.md`, content: `created ${i}\n` }];
        // With a reason, so the history records it: a commit reads the note again.
        case 2: return ["note_edit", { path: "flip/note.md", old_string: "edit-marker", new_string: `edit-marker\nline ${i}`, reason: "race" }];
        case 3: return ["attachment_put", { path: `flip/pic-${i}.png`, data_base64: PNG }];
        case 4: return ["note_list", { prefix: "flip" }];
        case 5: return ["note_search", { query: "sharedword" }];
        case 6: return ["note_read", { path: "flip/other.md" }];
        case 7: return ["vault_grep", { pattern: "sharedword" }];
        case 8: return ["note_section_edit", { path: "flip/other.md", mode: "append_to_note", content: `appended ${i}`, create: true }];
        case 9: return ["note_create", { path: `flip/new-${i - 8}.md`, content: `replaced ${i}\n`, overwrite: true }];
        case 10: return ["note_delete", { path: "flip/other.md" }];
        case 11: return ["note_diff", { path: "flip/note.md" }];
        default: return ["note_create", { path: `flip/made-${i}/deeper/note.md`, content: `in new folders ${i}\n` }];
      }
    };
    await Promise.all(
      clients.map(async (client) => {
        for (let i = next++; i < ATTEMPTS; i = next++) {
          const [tool, args] = attempt(i);
          const result = await client.callTool({ name: tool, arguments: { ...args } });
          const text = JSON.stringify(result);
          if (text.includes(secret)) leaks.push(`${tool} ${JSON.stringify(args)}: ${text.slice(0, 300)}`);
          const outcome = `${tool} ${result.isError === true ? "refused" : "ok"}`;
          counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
          const changed = outsideChange(before);
          if (changed !== null) writes.push(`after ${tool} #${i}: ${changed}`);
        }
      }),
    );
    flipper.kill("SIGTERM");
    await ended;
    assert.ok(Number(flips) > ATTEMPTS, `the link flipped ${flips} times, more often than there were calls`);
    const atEnd = outsideChange(before);
    assert.deepEqual(
      { "results with outside text": leaks.length, "changes outside seen during the run": writes.length, "changed outside at the end": atEnd !== null },
      { "results with outside text": 0, "changes outside seen during the run": 0, "changed outside at the end": false },
      [...leaks.slice(0, 3), ...writes.slice(0, 3), atEnd ?? ""].join("\n"),
    );
    // The calls did work whenever the link pointed inside, so the test exercised both sides. (Edits and
    // deletes need the link inside at each of their steps: a run may see few of them succeed.)
    for (const tool of ["note_read", "note_create"]) {
      assert.ok((counts.get(`${tool} ok`) ?? 0) > 0, `some ${tool} calls succeeded: ${JSON.stringify([...counts])}`);
    }
  } finally {
    if (flipper.exitCode === null) flipper.kill("SIGKILL");
    await ended;
    await server?.stop();
    rmSync(base, { recursive: true, force: true });
  }
});
