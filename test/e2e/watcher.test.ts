// The headless server follows a note however it is replaced: `sed -i` (temp file + rename), `cp` over
// it, another program's temp file renamed over it, and the server's own atomic writes. Node 20's
// recursive watch on Linux stopped reporting a file after its first replacement by rename; each
// change here must be searchable (note_search) and its frontmatter queryable (note_query) within 2 s,
// twenty times over.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";
import { within } from "../support/poll";

const DEADLINE_MS = 2000;
const ROUNDS = 20;
const NOTE = "wiki/watched.md";

let server: TestServer;
let counter = 0;

before(async () => {
  // Searches every 25 ms for each of sixty rounds: the watcher is what is tested here, not the rate limit.
  server = await startTestServer({ fixture: EDGE_VAULT, extra: { rateLimit: { perMinute: 1_000_000, burst: 100_000 } } });
});
after(async () => server.stop());

/** A word no other note has and no other word of this test is a prefix of or one edit away from. */
function uniqueWord(): string {
  counter += 1;
  const letters = "bcdfghjklmnpqrstvwxz";
  let word = "qu";
  for (let n = counter * 7919 + 104729, i = 0; i < 8; i++, n = Math.floor(n / letters.length) + i * 31) word += letters[n % letters.length];
  return `${word}${letters[counter % letters.length]}${letters[Math.floor(counter / letters.length) % letters.length]}`;
}

async function searchPaths(word: string): Promise<string[]> {
  const result = await server.call("note_search", { query: word });
  assert.equal(result.isError, false, result.text);
  return (result.structured.hits as Array<{ path: string }>).map((hit) => hit.path);
}


function noteText(word: string): string {
  return `---\ncodeword: ${word}\n---\n# Watched\n\nToday the word is ${word}.\n`;
}

async function queried(word: string): Promise<string[]> {
  const result = await server.call("note_query", { where: { codeword: word } });
  assert.equal(result.isError, false, result.text);
  return (result.structured.notes as Array<{ path: string }>).map((note) => note.path);
}

const absolute = (relative: string): string => path.join(server.vault.dir, ...relative.split("/"));

type Change = (file: string, previous: string, word: string) => Promise<void>;

const CHANGES: Record<string, Change> = {
  "sed -i": async (file, previous, word) => {
    execFileSync("sed", ["-i", `s/${previous}/${word}/g`, file]);
  },
  "cp over": async (file, _previous, word) => {
    const source = path.join(path.dirname(server.vault.dir), "cp-source.md");
    writeFileSync(source, noteText(word));
    const before = statSync(file).ino;
    execFileSync("cp", [source, file]);
    // cp truncates and writes the existing file: the same inode, unlike the other three.
    assert.equal(statSync(file).ino, before);
  },
  "rename over": async (file, _previous, word) => {
    const temp = `${file}.tmp`;
    writeFileSync(temp, noteText(word));
    renameSync(temp, file);
  },
  note_write: async (_file, _previous, word) => {
    const read = await server.call("note_read", { path: NOTE });
    const written = await server.call("note_write", { path: NOTE, content: noteText(word), content_hash: read.structured.content_hash });
    assert.equal(written.isError, false, written.text);
  },
};

test("each replacement of a note is searchable within 2 s, twenty times per kind", async (t) => {
  const file = absolute(NOTE);
  let previous = uniqueWord();
  writeFileSync(file, noteText(previous));
  await within(DEADLINE_MS, "the new note", async () => (await searchPaths(previous)).includes(NOTE));
  const slowest: Record<string, number> = {};
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved: every kind of change follows every other, the server's own writes included.
    for (const [kind, change] of Object.entries(CHANGES)) {
      const word = uniqueWord();
      await change(file, previous, word);
      assert.match(readFileSync(file, "utf8"), new RegExp(word), `${kind} wrote the word`);
      const old = previous;
      const took = await within(DEADLINE_MS, `${kind}, round ${round + 1}`, async () => {
        const [now, before, properties] = await Promise.all([searchPaths(word), searchPaths(old), queried(word)]);
        return now.includes(NOTE) && !before.includes(NOTE) && properties.includes(NOTE);
      });
      slowest[kind] = Math.max(slowest[kind] ?? 0, took);
      previous = word;
    }
  }
  t.diagnostic(`slowest until searchable (ms): ${JSON.stringify(slowest)}`);
});

test("folders made after start are watched, with the files in them; deleted folders are dropped", async () => {
  const folder = absolute("fresh/deeper");
  mkdirSync(folder, { recursive: true });
  const first = uniqueWord();
  writeFileSync(path.join(folder, "one.md"), `${first}\n`);
  await within(DEADLINE_MS, "a note in a new folder", async () => (await searchPaths(first)).includes("fresh/deeper/one.md"));
  // Written once the folder's watch is set: only that watch reports it.
  const second = uniqueWord();
  writeFileSync(path.join(folder, "two.md"), `${second}\n`);
  await within(DEADLINE_MS, "a later note in the new folder", async () => (await searchPaths(second)).includes("fresh/deeper/two.md"));
  const third = uniqueWord();
  execFileSync("sed", ["-i", `s/${second}/${third}/`, path.join(folder, "two.md")]);
  await within(DEADLINE_MS, "sed -i in the new folder", async () => (await searchPaths(third)).includes("fresh/deeper/two.md"));

  // Renamed within the vault: the folder's files answer under the new name, and later edits there too.
  renameSync(absolute("fresh"), absolute("renamed"));
  await within(DEADLINE_MS, "a renamed folder", async () => (await searchPaths(first)).includes("renamed/deeper/one.md"));
  const fourth = uniqueWord();
  execFileSync("sed", ["-i", `s/${third}/${fourth}/`, absolute("renamed/deeper/two.md")]);
  await within(DEADLINE_MS, "sed -i in the renamed folder", async () => (await searchPaths(fourth)).includes("renamed/deeper/two.md"));

  rmSync(absolute("renamed"), { recursive: true });
  await within(DEADLINE_MS, "a deleted folder", async () => (await searchPaths(first)).length === 0 && (await searchPaths(fourth)).length === 0);
  const files = (await server.call("note_list", { prefix: "renamed", limit: 100 })).structured.total;
  assert.equal(files, 0);
});
