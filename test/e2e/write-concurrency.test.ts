// Eight clients append fifty distinct lines each to one note, each append a read → hash-checked
// edit → retry on conflict. No line may be lost or doubled; conflicts come back as isError with the
// current hash (SPEC §8 step 4).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callTool, startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

const CLIENTS = 8;
const LINES = 50;
const NOTE = "wiki/concurrent.md";
let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, extra: { rateLimit: { perMinute: 100_000, burst: 10_000 } } });
  const created = await server.call("note_create", { path: NOTE, content: "# Concurrent\n\n## Log\n" });
  assert.equal(created.isError, false, created.text);
});
after(async () => server.stop());

interface Tally {
  conflicts: number;
  conflictMessagesWithHash: number;
}

async function appendAll(client: Client, id: number, tally: Tally): Promise<void> {
  for (let line = 0; line < LINES; line++) {
    const text = `- client ${id} line ${line}`;
    // Alternate the two hash-checked edit tools, so both take part in the race.
    for (let attempt = 0; ; attempt++) {
      assert.ok(attempt < 500, "an append kept conflicting");
      const read = await callTool(client, "note_read", { path: NOTE });
      const hash = read.structured.content_hash as string;
      const content = read.structured.content as string;
      const result =
        line % 2 === 0
          ? await callTool(client, "note_section_edit", { path: NOTE, heading: "Log", mode: "append_to_section", content: text, content_hash: hash })
          : await callTool(client, "note_edit", {
              path: NOTE,
              old_string: content.slice(content.lastIndexOf("\n", content.length - 2) + 1),
              new_string: `${content.slice(content.lastIndexOf("\n", content.length - 2) + 1)}${text}\n`,
              content_hash: hash,
            });
      if (!result.isError) break;
      const error = result.structured.error as { code: string; retry: string };
      assert.equal(error.code, "conflict", result.text);
      assert.equal(error.retry, "inspect_state");
      tally.conflicts += 1;
      if (/content_hash is now [0-9a-f]{32}/.test(result.text)) tally.conflictMessagesWithHash += 1;
    }
  }
}

test(`${CLIENTS} clients × ${LINES} appends: exactly ${CLIENTS * LINES} lines, none lost, none doubled`, async () => {
  const clients = await Promise.all(Array.from({ length: CLIENTS }, (_, id) => server.connect(server.token, `appender-${id}`)));
  const tally: Tally = { conflicts: 0, conflictMessagesWithHash: 0 };
  await Promise.all(clients.map((client, id) => appendAll(client, id, tally)));
  const text = readFileSync(path.join(server.vault.dir, ...NOTE.split("/")), "utf8");
  const lines = text.split("\n").filter((line) => line.startsWith("- client "));
  assert.equal(lines.length, CLIENTS * LINES);
  assert.equal(new Set(lines).size, CLIENTS * LINES, "no line doubled");
  for (let id = 0; id < CLIENTS; id++) {
    const mine = lines.filter((line) => line.startsWith(`- client ${id} `)).map((line) => Number(line.split(" ").pop()));
    assert.deepEqual(mine, Array.from({ length: LINES }, (_, index) => index), `client ${id}'s lines are all there, in its order`);
  }
  assert.ok(tally.conflicts > 0, "the race produced conflicts");
  assert.equal(tally.conflictMessagesWithHash, tally.conflicts, "every conflict named the current hash");
});
