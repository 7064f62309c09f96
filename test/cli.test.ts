// The command line as a user runs it: validate prints no secret, reindex rebuilds, bad input explains itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import bcrypt from "bcryptjs";
import { CLI, startCli } from "./support/cli";
import { found } from "./support/poll";
import { EDGE_VAULT, tempVault } from "./support/vaults";

const run = promisify(execFile);

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

test("validate prints the resolved configuration without any token", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const secret = "config-file-token-abcdef0123456789";
    const config = path.join(vault.dataDir, "..", "config.yaml");
    writeFileSync(config, `users:\n  - name: alice\n    tokens: ["${secret}"]\n    vaults: [edge]\nserver:\n  port: 31999\n`);
    const result = await cli(["validate", "--vault", `edge=${vault.dir}`, "--config", config], { SECONDBRAIN_TOKEN: "env-token-should-not-print-1234" });
    assert.equal(result.code, 0, result.stderr);
    const resolved = JSON.parse(result.stdout) as { vaults: Array<{ name: string }>; server: { port: number }; users: Array<{ name: string; tokens: number }> };
    assert.deepEqual(resolved.vaults.map((entry) => entry.name), ["edge"]);
    assert.equal(resolved.server.port, 31999);
    assert.deepEqual(resolved.users.map((user) => [user.name, user.tokens]), [["alice", 1]]);
    assert.ok(!result.stdout.includes(secret) && !result.stdout.includes("env-token-should-not-print"));
    assert.ok(!result.stdout.includes("token_hashes"), "not even the hashes are printed");
  } finally {
    vault.cleanup();
  }
});

test("a second server or a reindex of a vault already served from the same data folder is refused, and starts once the first stopped", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const token = "lock-test-token-0123456789abcdef";
    const first = await startCli(["serve", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: token });
    try {
      const second = await cli(["serve", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: token });
      assert.equal(second.code, 1);
      assert.match(second.stderr, /vault "edge" is already served by another secondbrain-mcp process with the same data folder/);
      const reindex = await cli(["reindex", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir]);
      assert.equal(reindex.code, 1);
      assert.match(reindex.stderr, /already served by another secondbrain-mcp process/);
      const health = await fetch(new URL("/healthz", first.url));
      assert.equal(health.status, 200, "the first server goes on serving");
    } finally {
      assert.equal(await first.stop("SIGINT"), 0);
    }
    const after = await cli(["reindex", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir]);
    assert.equal(after.code, 0, after.stderr);
  } finally {
    vault.cleanup();
  }
});

test("reindex rebuilds the index from the files", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const result = await cli(["reindex", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /edge: indexed 21 files/);
    const again = await cli(["reindex", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir]);
    assert.match(again.stdout, /edge: indexed 21 files/, "a reindex ignores the previous snapshot");
  } finally {
    vault.cleanup();
  }
});

test("bad input gets a usage message and exit code 2", async () => {
  const missing = await cli(["serve"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /at least one --vault/);
  const unknown = await cli(["serve", "--vault", "/nonexistent-folder-xyz"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /does not exist/);
  const flag = await cli(["serve", "--colour"]);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /unknown option --colour/);
  const help = await cli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /secondbrain-mcp serve/);
});

test("serve prints the endpoint, a generated token once and a Claude Code line", async () => {
  const vault = tempVault(EDGE_VAULT);
  const server = await startCli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: "" });
  try {
    const token = /Bearer token \(shown once[^)]*\): (\S+)/.exec(server.stdout)?.[1];
    assert.ok(token && token.startsWith("sbm_"));
    assert.match(server.stdout, /claude mcp add --transport http secondbrain http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const health = (await (await fetch(server.url.replace(/\/mcp$/, "/healthz"))).json()) as Record<string, unknown>;
    assert.equal(health.status, "ok");
    assert.ok(!server.rawLogs.some((line) => line.includes(token)), "the token is never logged");
  } finally {
    assert.equal(await server.stop("SIGINT"), 0);
    vault.cleanup();
  }
});

test("serve turns OAuth on from the config file: discovery from server.public_url, callers named by the trusted proxy, and validate shows both", async () => {
  const vault = tempVault(EDGE_VAULT);
  const config = path.join(vault.dataDir, "..", "oauth.yaml");
  writeFileSync(config, 'server:\n  public_url: https://brain.example.com/\n  trusted_proxies: ["127.0.0.1"]\noauth:\n  enabled: true\n');
  const validated = await cli(["validate", "--vault", vault.dir, "--config", config], { SECONDBRAIN_TOKEN: "" });
  assert.equal(validated.code, 0, validated.stderr);
  const resolved = JSON.parse(validated.stdout) as { server: { public_url: string; trusted_proxies: string[] }; oauth: { enabled: boolean } };
  assert.equal(resolved.server.public_url, "https://brain.example.com");
  assert.deepEqual(resolved.server.trusted_proxies, ["127.0.0.1"]);
  assert.deepEqual(resolved.oauth, { enabled: true, client_id_metadata_documents: false });
  const server = await startCli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--config", config], { SECONDBRAIN_TOKEN: "" });
  try {
    const origin = new URL(server.url).origin;
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
    assert.deepEqual(metadata, { resource: "https://brain.example.com/mcp", authorization_servers: ["https://brain.example.com"], bearer_methods_supported: ["header"], resource_name: "Second Brain MCP" });
    const refused = await fetch(server.url, { method: "POST", headers: { "X-Forwarded-For": "198.51.100.1, 203.0.113.7" }, body: "{}" });
    assert.equal(refused.status, 401);
    await found(5_000, "the refusal is logged with the caller the proxy named", () =>
      Promise.resolve(server.rawLogs.find((line) => line.includes('"event":"auth_failed"') && line.includes('"remote":"203.0.113.7"'))),
    );
  } finally {
    assert.equal(await server.stop("SIGINT"), 0);
    vault.cleanup();
  }
});

test("serve refuses a weak token at start, from SECONDBRAIN_TOKEN or the config file, and never prints it", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    for (const weak of ["a", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"]) {
      const result = await cli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: weak });
      assert.equal(result.code, 2);
      assert.match(result.stderr, /SECONDBRAIN_TOKEN: must be at least 24 characters long with at least 8 different characters/);
      assert.match(result.stderr, /openssl rand -hex 32/);
      if (weak.length > 1) assert.ok(!result.stderr.includes(weak) && !result.stdout.includes(weak));
      const validated = await cli(["validate", "--vault", vault.dir], { SECONDBRAIN_TOKEN: weak });
      assert.equal(validated.code, 2, "validate refuses what serve would refuse");
    }
    const config = path.join(vault.dataDir, "..", "weak.yaml");
    writeFileSync(config, 'users:\n  - name: alice\n    tokens: ["aaaaaaaaaaaaaaaa"]\n');
    const fromFile = await cli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--config", config]);
    assert.equal(fromFile.code, 2);
    assert.match(fromFile.stderr, /weak\.yaml:3: users\[0\]\.tokens\[0\] must be at least 24 characters.*openssl rand -hex 32/);
    assert.ok(!fromFile.stderr.includes("aaaaaaaaaaaaaaaa"));
  } finally {
    vault.cleanup();
  }
});

test("validate shows whether each user has a password and where it comes from, never its value or hash", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const hash = bcrypt.hashSync("alice's password", 4);
    const secretFile = path.join(vault.dataDir, "..", "bob-password");
    writeFileSync(secretFile, "bob's password from a file\n");
    const config = path.join(vault.dataDir, "..", "passwords.yaml");
    writeFileSync(
      config,
      `users:\n  - name: alice\n    password: "${hash}"\n  - name: bob\n    password: file:${secretFile}\n  - name: carol\n    password: env:SBM_CAROL_PASSWORD\n  - name: dave\n    password: env:SBM_UNSET_PASSWORD\n  - name: erin\n    tokens: [erin-token-0123456789abcdef]\noauth:\n  enabled: true\n`,
    );
    const result = await cli(["validate", "--vault", vault.dir, "--config", config], { SBM_CAROL_PASSWORD: "carol's password from env", SBM_UNSET_PASSWORD: "" });
    assert.equal(result.code, 0, result.stderr);
    const resolved = JSON.parse(result.stdout) as { users: Array<{ name: string; password: unknown }> };
    assert.deepEqual(resolved.users.map((user) => [user.name, user.password]), [
      ["alice", { source: "bcrypt", readable: true }],
      ["bob", { source: "file", readable: true }],
      ["carol", { source: "env", readable: true }],
      ["dave", { source: "env", readable: false }],
      ["erin", null],
    ]);
    for (const secret of [hash, hash.slice(7), "bob's password", "carol's password", secretFile]) assert.ok(!result.stdout.includes(secret), `validate does not print ${secret}`);
  } finally {
    vault.cleanup();
  }
});

test("a password in plain text in the config is refused by validate and serve, with the command that makes a hash, and never printed", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const config = path.join(vault.dataDir, "..", "plain.yaml");
    writeFileSync(config, "users:\n  - name: alice\n    password: plain-text-password-123\noauth:\n  enabled: true\n");
    for (const command of ["validate", "serve"]) {
      const result = await cli([command, "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--config", config]);
      assert.equal(result.code, 2, command);
      assert.match(result.stderr, /plain\.yaml:3: users\[0\]\.password must be a bcrypt hash, env:NAME or file:\/absolute\/path, and a password in plain text is refused/);
      assert.match(result.stderr, /secondbrain-mcp hash-password/);
      assert.ok(!`${result.stdout}${result.stderr}`.includes("plain-text-password-123"));
    }
  } finally {
    vault.cleanup();
  }
});

test("--metrics serves the endpoint on the MCP port; validate shows where, whether a key is asked for (not the key), and which vault each label means", async () => {
  const vault = tempVault(EDGE_VAULT);
  const config = path.join(vault.dataDir, "..", "metrics.yaml");
  writeFileSync(config, "metrics:\n  key: env:SBMCP_CLI_METRICS_KEY\n");
  const key = "cli-metrics-key-0123456789abcdef";
  try {
    const validated = await cli(["validate", "--vault", `edge=${vault.dir}`, "--config", config, "--metrics-listen", "9464"], { SECONDBRAIN_TOKEN: "", SBMCP_CLI_METRICS_KEY: key });
    assert.equal(validated.code, 0, validated.stderr);
    const resolved = JSON.parse(validated.stdout) as { metrics: unknown };
    assert.deepEqual(resolved.metrics, { path: "/metrics", listener: "127.0.0.1:9464", key: "required (env)", vault_labels: { "0": "edge" } });
    assert.ok(!validated.stdout.includes(key));
    const off = await cli(["validate", "--vault", vault.dir], { SECONDBRAIN_TOKEN: "" });
    assert.equal((JSON.parse(off.stdout) as { metrics: unknown }).metrics, "off");
    const server = await startCli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--config", config, "--metrics"], { SECONDBRAIN_TOKEN: "", SBMCP_CLI_METRICS_KEY: key });
    try {
      const url = `${new URL(server.url).origin}/metrics`;
      assert.equal((await fetch(url)).status, 401);
      const scraped = await fetch(url, { headers: { "X-API-Key": key } });
      assert.equal(scraped.status, 200);
      assert.match(await scraped.text(), /^secondbrain_vault_notes\{vault="0"\} \d+$/m);
    } finally {
      assert.equal(await server.stop("SIGINT"), 0);
    }
  } finally {
    vault.cleanup();
  }
});

/** hash-password with the password piped into stdin. */
function hashPiped(input: string, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "hash-password", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

test("hash-password reads the password from stdin and prints only its bcrypt hash", async () => {
  const piped = await hashPiped("piped password\n", ["--cost", "4"]);
  assert.equal(piped.code, 0, piped.stderr);
  assert.match(piped.stdout, /^\$2b\$04\$[./A-Za-z0-9]{53}\n$/);
  assert.ok(bcrypt.compareSync("piped password", piped.stdout.trim()), "the trailing newline is not part of the password");
  assert.ok(!`${piped.stdout}${piped.stderr}`.includes("piped password"));
  const standard = await hashPiped("another password");
  assert.match(standard.stdout, /^\$2b\$12\$/, "cost 12 unless --cost says otherwise");
  const empty = await hashPiped("");
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /read an empty password/);
  assert.equal(empty.stdout, "");
  const long = await hashPiped("x".repeat(80), ["--cost", "4"]);
  assert.match(long.stderr, /only the first 72 bytes of this password count/);
  assert.match((await cli(["hash-password", "--cost", "40"])).stderr, /--cost must be a whole number from 4 to 15/);
});

test("hash-password at a terminal does not echo what is typed and asks twice", { skip: !existsSync("/usr/bin/script") && "needs util-linux script for a terminal" }, async () => {
  const typed = "typed-at-the-terminal";
  // script(1) gives the command a terminal; what the terminal shows comes back on its stdout.
  const shown = await new Promise<string>((resolve, reject) => {
    const child = spawn("/usr/bin/script", ["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} hash-password --cost 4`, "/dev/null"], { stdio: ["pipe", "pipe", "ignore"] });
    let screen = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      screen += chunk;
      if (/Password: $/.test(screen) || /Again: $/.test(screen)) child.stdin.write(`${typed}\r`);
    });
    child.once("error", reject);
    child.once("close", () => resolve(screen));
  });
  assert.match(shown, /Password: \r\nAgain: \r\n\$2b\$04\$/);
  assert.ok(!shown.includes(typed), `the terminal showed: ${JSON.stringify(shown)}`);
  const hash = /\$2b\$04\$[./A-Za-z0-9]{53}/.exec(shown)?.[0] ?? "";
  assert.ok(bcrypt.compareSync(typed, hash));
});
