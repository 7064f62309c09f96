// `serve --stdio` started with the data folder of a running `serve`: the server keeps the vault's
// history (its commits never read or lock the branch), so the stdio process's writes land in the vault
// but not in that history, and each says so, naming the way out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { startCli } from "../../support/cli";
import { initialize, startStdioCli } from "../../support/stdio";
import { EDGE_VAULT, tempVault } from "../../support/vaults";

const TOKEN = "sb_stdio_beside_server_token_0123456789abcdef";

test("serve --stdio beside a running serve of the same data folder: its write lands, and is reported not recorded, naming the server and HTTP", async () => {
  const vault = tempVault(EDGE_VAULT);
  const server = await startCli(["serve", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: TOKEN });
  try {
    await server.waitForLog((record) => record.event === "history_baseline", 60_000);
    const stdio = await startStdioCli(["--vault", `edge=${vault.dir}`, "--data", vault.dataDir]);
    try {
      await stdio.waitForLog(/"event":"startup"/);
      await initialize(stdio);
      const started = Date.now();
      const created = await stdio.request(1, "tools/call", { name: "note_create", arguments: { path: "inbox/from-stdio.md", content: "Written over stdio.\n" } });
      const result = created.result as { isError?: boolean; structuredContent?: { warnings?: string[] } };
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal(readFileSync(path.join(vault.dir, "inbox/from-stdio.md"), "utf8").includes("Written over stdio."), true);
      const warnings = result.structuredContent?.warnings ?? [];
      assert.ok(
        warnings.some((warning) => /not recorded in history/.test(warning) && /server with the same data folder keeps this vault's history; connect this client to that server over HTTP/.test(warning)),
        JSON.stringify(warnings),
      );
      assert.ok(Date.now() - started < 10_000, "answered without waiting out the branch lock");
    } finally {
      stdio.kill();
    }
  } finally {
    await server.stop();
    vault.cleanup();
  }
});
