// `sign-ins` of the built CLI: lists who is signed in through OAuth, and signs one client out, handed
// to the running `serve` (request file and SIGHUP) while one runs and done on the state file when none
// does; a token revoked either way is refused from then on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import bcrypt from "bcryptjs";
import { CLI, startCli, type CliServer } from "../support/cli";
import { EDGE_VAULT, tempVault } from "../support/vaults";

function signIns(dataDir: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, "sign-ins", ...args, "--data", dataDir], { encoding: "utf8", timeout: 30_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Registers a client named `name` and signs it in as `user`; its access token. */
async function signIn(origin: string, name: string, user: string, password: string): Promise<{ clientId: string; accessToken: string }> {
  const redirect = "http://127.0.0.1:7781/callback";
  const registered = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [redirect], client_name: name }) });
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", state: "st" });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await (await fetch(`${origin}/authorize?${query.toString()}`)).text())?.[1] ?? "";
  const signedIn = await fetch(`${origin}/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf_token: csrf, username: user, password }).toString(),
  });
  assert.equal(signedIn.status, 302);
  const code = new URL(String(signedIn.headers.get("location"))).searchParams.get("code") ?? "";
  const tokens = await fetch(`${origin}/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: redirect }).toString(),
  });
  assert.equal(tokens.status, 200);
  return { clientId, accessToken: ((await tokens.json()) as { access_token: string }).access_token };
}

async function mcpStatus(server: CliServer, token: string): Promise<number> {
  const response = await fetch(server.url, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  return response.status;
}

test("sign-ins lists OAuth sign-ins and revokes one through the running server, then another with none running", async () => {
  const vault = tempVault(EDGE_VAULT);
  const password = randomBytes(18).toString("base64url");
  const config = path.join(vault.dataDir, "..", `sign-ins-${process.pid}.yaml`);
  writeFileSync(config, ["users:", "  - name: alice", `    password: ${JSON.stringify(bcrypt.hashSync(password, 4))}`, "oauth:", "  enabled: true", ""].join("\n"), { mode: 0o600 });
  const serve = (): Promise<CliServer> => startCli(["serve", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--port", "0", "--config", config, "--no-history"]);
  let server: CliServer | null = null;
  try {
    server = await serve();
    const origin = new URL(server.url).origin;
    const first = await signIn(origin, "First Client", "alice", password);
    const second = await signIn(origin, "Second Client", "alice", password);
    assert.equal(await mcpStatus(server, first.accessToken), 200);

    const listed = signIns(vault.dataDir);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`alice  "First Client"  ${first.clientId}  \\d{4}-`));
    assert.match(listed.stdout, new RegExp(`alice  "Second Client"  ${second.clientId}`));
    for (const secret of [first.accessToken, second.accessToken, password]) assert.ok(!listed.stdout.includes(secret));

    const unknown = signIns(vault.dataDir, "revoke", "--client", "no-such-client", "--user", "alice");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no client no-such-client is signed in as alice .*run sign-ins to list who is/);

    // While the server runs: handed to it, and refused at once after.
    const live = signIns(vault.dataDir, "revoke", "--client", first.clientId, "--user", "alice");
    assert.equal(live.code, 0, live.stderr);
    assert.match(live.stdout, /^Signed out by the running server \(process \d+\): client /);
    assert.equal(await mcpStatus(server, first.accessToken), 401);
    assert.equal(await mcpStatus(server, second.accessToken), 200, "the other sign-in stays");
    assert.ok(server.logs.some((record) => record.event === "oauth_tokens_revoked" && record.reason === "revoked_by_user"));
    await server.stop();
    server = null;

    // With no server: the state file itself, which the next start serves from.
    const offline = signIns(vault.dataDir, "revoke", "--client", second.clientId, "--user", "alice");
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(offline.stdout, /^Signed out: [1-9]\d* token\(s\) of client /);
    assert.match(signIns(vault.dataDir).stdout, /^Nobody is signed in through OAuth/);
    server = await serve();
    assert.equal(await mcpStatus(server, second.accessToken), 401);
  } finally {
    await server?.stop();
    vault.cleanup();
  }
});
