// SPEC §11 and §15: no log line contains note text, a token, a query, or anything of the host (an
// absolute path, the user's name, the process id), whatever the tools are asked; tool errors name
// vault-relative paths only.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LogRecord } from "../../src/core/ports";
import { openModals } from "../obsidian-stand-in/ui/modal";
import { startPlugin } from "../support/plugin";
import { found, within } from "../support/poll";
import { callTool, startTestServer, type ToolCallResult, type TestServer } from "../support/server";
import { EDGE_VAULT, HELP_VAULT, vaultFiles } from "../support/vaults";

function noteFiles(dir: string): string[] {
  return vaultFiles(dir).filter((file) => file.endsWith(".md"));
}

/** Lines distinctive enough that finding one in a log can only mean note text leaked. */
function distinctiveLines(dir: string): string[] {
  const lines = new Set<string>();
  for (const file of noteFiles(dir)) {
    for (const raw of readFileSync(path.join(dir, file), "utf8").split(/\r?\n/)) {
      const line = raw.trim();
      if (line.length >= 24 && !line.startsWith("---") && /\s/.test(line)) lines.add(line.slice(0, 40));
    }
  }
  return [...lines];
}

/** Every query, pattern and property the tests send holds this word; no log line may. */
const QUERY_MARK = "zanzibar";
const ROOT = process.getuid?.() === 0;

/** What of the host must show in no log line and no tool error. */
function hostMarks(server: TestServer): string[] {
  const base = path.dirname(server.vault.dir);
  const marks = new Set([server.vault.dir, server.vault.dataDir, base, realpathSync(base), os.tmpdir() + path.sep + path.basename(base)]);
  const user = os.userInfo().username;
  // A short name ("root", "ci") is an ordinary word; a name that is part of a note path is no leak.
  if (user.length >= 5 && !vaultFiles(server.vault.dir).some((file) => file.includes(user))) marks.add(user);
  return [...marks];
}

/** The process id as a number of its own, not as part of a JSON number field or a longer number. */
function mentionsPid(text: string): boolean {
  return new RegExp(`(?<![\\d:,\\[])${process.pid}(?!\\d)`).test(text) || text.includes('"pid"');
}

function hostLeaks(text: string, marks: readonly string[]): string[] {
  const found = marks.filter((mark) => text.includes(mark));
  if (mentionsPid(text)) found.push(`pid ${process.pid}`);
  return found;
}

/** Paths that reach the file system and fail there: a file where a folder is expected, names over the limits. */
function failingPaths(notePath: string): Array<[string, Record<string, unknown>]> {
  const deep = Array.from({ length: 18 }, (_, index) => `${index}`.padEnd(240, "d")).join("/") + "/note.md";
  return [
    ["note_create", { path: `${notePath}/child.md`, content: "x" }],
    ["attachment_put", { path: `${notePath}/image.png`, data_base64: "AAAA" }],
    ["note_create", { path: deep, content: "x" }],
    ["note_create", { path: `${"n".repeat(300)}.md`, content: "x" }],
    // Within the limit, but the temp file beside it (named with the process id) may not be.
    ["note_create", { path: `${"m".repeat(250)}.md`, content: "x" }],
    ["note_read", { path: `${"n".repeat(300)}.md` }],
  ];
}

async function exercise(server: TestServer, paths: string[]): Promise<ToolCallResult[]> {
  const secretQuery = `${QUERY_MARK} quixotic umbrella`;
  const calls: Array<[string, Record<string, unknown>]> = [
    ["vault_list", {}],
    ["vault_stats", {}],
    ["note_list", { limit: 1000 }],
    ["attachment_list", {}],
    ["tag_list", {}],
    ["task_list", { status: "all" }],
    ["note_search", { query: secretQuery }],
    ["note_search", { query: "link note" }],
    ["note_search", { query: '"unclosed' }],
    ["note_search", { query: `"unclosed ${QUERY_MARK}-quartz words` }],
    ["vault_grep", { pattern: "the", context: 2 }],
    ["vault_grep", { pattern: "(" }],
    ["vault_grep", { pattern: `(${QUERY_MARK}-grep` }],
    ["note_query", { where: { tags: { contains: "fixture" } } }],
    ["note_query", { where: { status: { eq: `${QUERY_MARK}-value` } } }],
    ["note_query", { where: { [`${QUERY_MARK}-property`]: { bogus: `${QUERY_MARK}-operand` } } }],
    ["note_read", { path: "no/such/note" }],
    ...failingPaths(paths[0]!),
  ];
  if (!ROOT) {
    mkdirSync(path.join(server.vault.dir, "locked"), { recursive: true });
    chmodSync(path.join(server.vault.dir, "locked"), 0o500);
    calls.push(["note_create", { path: "locked/new.md", content: "x" }]);
  }
  for (const notePath of paths) {
    calls.push(["note_read", { path: notePath, with_metadata: true }]);
    calls.push(["note_outline", { path: notePath }]);
    calls.push(["note_backlinks", { path: notePath }]);
    calls.push(["note_related", { path: notePath }]);
  }
  const client = await server.connect();
  const errors: ToolCallResult[] = [];
  for (const [name, args] of calls) {
    const result = await callTool(client, name, args);
    if (result.isError) errors.push(result);
  }
  if (!ROOT) chmodSync(path.join(server.vault.dir, "locked"), 0o755);
  await client.listResources();
  for (const notePath of paths.slice(0, 10)) {
    await client.readResource({ uri: `secondbrain://test/${notePath.split("/").map(encodeURIComponent).join("/")}` }).catch(() => undefined);
  }
  await client.listPrompts();
  const unauthorized = await fetch(server.url, { method: "POST", headers: { Authorization: "Bearer wrong-token-value-123456" } });
  assert.equal(unauthorized.status, 401);
  for (const line of server.logs) assert.ok(!line.includes(secretQuery), "query text never logged");
  return errors;
}

for (const [name, fixture] of [["edge-vault", EDGE_VAULT], ["obsidian-help-en", HELP_VAULT]] as const) {
  describe(name, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ fixture });
  });
  after(async () => server.stop());

  test(`no note text, token, query or host detail in any log line or tool error (${name})`, async () => {
    const paths = noteFiles(server.vault.dir);
    const errors = await exercise(server, name === "edge-vault" ? paths : paths.slice(0, 60));
    const toolCalls = server.logs.filter((line) => line.includes('"tool_call"'));
    assert.ok(toolCalls.length >= 20, `tool calls were logged (${toolCalls.length})`);
    const leaks: string[] = [];
    const texts = distinctiveLines(server.vault.dir);
    assert.ok(texts.length > 10);
    const marks = hostMarks(server);
    for (const line of server.logs) {
      if (line.includes(server.token)) leaks.push("token");
      if (line.includes("wrong-token-value")) leaks.push("attempted token");
      if (line.toLowerCase().includes(QUERY_MARK)) leaks.push(`query text: ${line}`);
      for (const text of texts) if (line.includes(text)) leaks.push(text);
      for (const mark of hostLeaks(line, marks)) leaks.push(`${mark} in ${line}`);
    }
    assert.deepEqual(leaks, []);
    assert.ok(errors.length >= 8, `the failing calls failed (${errors.length})`);
    for (const error of errors) assert.deepEqual(hostLeaks(`${error.text} ${JSON.stringify(error.structured)}`, marks), [], error.text);
  });
  });
}

describe("file-system errors", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ fixture: EDGE_VAULT });
  });
  after(async () => server.stop());

  function lastToolCall(): Record<string, unknown> {
    const line = server.logs.filter((entry) => entry.includes('"tool_call"')).at(-1);
    assert.ok(line);
    return JSON.parse(line) as Record<string, unknown>;
  }

  async function failsWith(args: Record<string, unknown>, expected: { code: string; cause: string; message: RegExp }): Promise<void> {
    const result = await server.call("note_create", { content: "x", ...args });
    assert.equal(result.isError, true, result.text);
    const error = result.structured.error as Record<string, unknown>;
    assert.equal(error.code, expected.code);
    assert.equal(error.cause, expected.cause);
    assert.match(result.text, expected.message);
    assert.deepEqual(hostLeaks(result.text + JSON.stringify(result.structured), hostMarks(server)), []);
    const line = lastToolCall();
    assert.deepEqual(
      { tool: line.tool, error: line.error, cause: line.cause, path: line.path },
      { tool: "note_create", error: expected.code, cause: expected.cause, path: String(args.path).slice(0, 256) },
      "the audit line: code, cause and the vault path",
    );
    assert.ok(!JSON.stringify(line).includes(result.text.slice(0, 20)), "and no error text");
  }

  test("a file where a folder is expected (ENOTDIR): 'not a folder' with the vault path, in the result and the audit line", async () => {
    await failsWith({ path: "README.md/child.md" }, { code: "invalid_path", cause: "ENOTDIR", message: /^not a folder: a part of README\.md\/child\.md is a file/ });
  });

  test("a path over the file system's length limit (ENAMETOOLONG): 'name too long' with the vault path", async () => {
    const deep = Array.from({ length: 18 }, (_, index) => `${index}`.padEnd(240, "d")).join("/") + "/note.md";
    await failsWith({ path: deep }, { code: "invalid_path", cause: "ENAMETOOLONG", message: /^name too long: 0d+\/1d+\// });
  });

  test("a folder the server's user may not write (EACCES): 'permission denied' with the vault path", { skip: ROOT ? "runs as root, for whom chmod does not deny access (test/hosts/node/fs-errors.test.ts maps EACCES itself)" : false }, async () => {
    mkdirSync(path.join(server.vault.dir, "locked"), { recursive: true });
    chmodSync(path.join(server.vault.dir, "locked"), 0o500);
    try {
      await failsWith({ path: "locked/new.md" }, { code: "forbidden", cause: "EACCES", message: /^permission denied: locked\/new\.md — the server's user may not write/ });
    } finally {
      chmodSync(path.join(server.vault.dir, "locked"), 0o755);
    }
  });
});

describe("OAuth paths", () => {
  test("no password, code, token, verifier or CSRF token in any log line, through sign-in, token requests and their failures", async () => {
    const password = "zanzibar-password-" + Math.random().toString(36).slice(2);
    process.env.SBM_LEAK_OAUTH_PASSWORD = password;
    const server = await startTestServer({
      fixture: EDGE_VAULT,
      users: [{ name: "alice", token_hashes: [], vaults: [], read_only: false, password: "env:SBM_LEAK_OAUTH_PASSWORD" }],
      extra: { oauth: { publicUrl: "http://127.0.0.1:1" } },
    });
    try {
      const origin = new URL(server.url).origin;
      const redirect = "http://127.0.0.1:7777/cb";
      const post = (route: string, body: string, type: string): Promise<Response> =>
        fetch(`${origin}${route}`, { method: "POST", redirect: "manual", headers: { "Content-Type": type }, body });
      const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
      const FORM = "application/x-www-form-urlencoded";
      const clientId = ((await (await post("/register", JSON.stringify({ redirect_uris: [redirect] }), "application/json")).json()) as { client_id: string }).client_id;
      const verifier = "zanzibar-verifier-".padEnd(60, "v");
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      const query = form({ response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", state: "zanzibar-state" });
      const csrfOf = async (response: Response): Promise<string> => /name="csrf_token" value="([^"]+)"/.exec(await response.text())?.[1] ?? "";
      const first = await csrfOf(await fetch(`${origin}/authorize?${query}`));
      const second = await csrfOf(await post("/authorize", form({ csrf_token: first, username: "alice", password: "zanzibar-wrong-password" }), FORM));
      const signedIn = await post("/authorize", form({ csrf_token: second, username: "alice", password }), FORM);
      const code = new URL(String(signedIn.headers.get("location"))).searchParams.get("code") ?? "";
      const tokens = (await (await post("/token", form({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId }), FORM)).json()) as { access_token: string; refresh_token: string };
      const rotated = (await (await post("/token", form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId }), FORM)).json()) as { refresh_token: string };
      await post("/token", form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId }), FORM);
      await post("/token", form({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId }), FORM);
      await post("/token", form({ grant_type: "refresh_token", refresh_token: "sbm_ort_zanzibar-unknown", client_id: clientId }), FORM);
      await fetch(server.url, { method: "POST", headers: { Authorization: `Bearer ${tokens.access_token}` }, body: "{}" });
      const events = server.logs.join("\n");
      assert.match(events, /"event":"token_reuse_detected"/);
      assert.match(events, /"event":"token_failed"/);
      for (const secret of [password, "zanzibar", code, verifier, first, second, tokens.access_token, tokens.refresh_token, rotated.refresh_token]) {
        assert.ok(secret.length > 0 && !events.includes(secret), "a secret reached the log");
      }
      assert.deepEqual(hostLeaks(events, hostMarks(server)), []);
    } finally {
      delete process.env.SBM_LEAK_OAUTH_PASSWORD;
      await server.stop();
    }
  });

  test("the plugin's approval sign-in: no page token, code, token or verifier in any log record or console line, through Allow, Deny, token requests and their failures, and a revocation", async () => {
    const harness = await startPlugin({ fixture: EDGE_VAULT, settings: { oauth: { enabled: true } } });
    const records: string[] = [];
    // Everything the plugin logs passes its logger: the console gets warnings and errors, listeners all of it.
    const logger = (harness.plugin as unknown as { logger: { onRecord(listener: (record: LogRecord) => void): () => void } }).logger;
    const stop = logger.onRecord((record) => records.push(JSON.stringify(record)));
    const consoleLines: string[] = [];
    const original = { warn: console.warn, error: console.error, info: console.info, log: console.log, debug: console.debug };
    for (const level of ["warn", "error", "info", "log", "debug"] as const) console[level] = (...args: unknown[]) => void consoleLines.push(args.map(String).join(" "));
    try {
      const origin = new URL(harness.url).origin;
      const redirect = "http://127.0.0.1:7777/cb";
      const FORM = "application/x-www-form-urlencoded";
      const post = (route: string, fields: Record<string, string>): Promise<Response> =>
        fetch(`${origin}${route}`, { method: "POST", redirect: "manual", headers: { "Content-Type": FORM }, body: new URLSearchParams(fields).toString() });
      const registered = await fetch(`${origin}/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ redirect_uris: [redirect], client_name: "Leak App" }) });
      const clientId = ((await registered.json()) as { client_id: string }).client_id;
      const verifier = "zanzibar-verifier-".padEnd(60, "v");
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      const sign = async (button: "allow" | "deny"): Promise<{ page: string; location: URL }> => {
        const before = new Set(openModals);
        const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", state: "zanzibar-state" });
        const page = /name="approval" value="([^"]+)"/.exec(await (await fetch(`${origin}/authorize?${query.toString()}`)).text())?.[1] ?? "";
        const modal = await found(5000, "the approval modal", () => Promise.resolve(openModals.find((open) => !before.has(open) && open.contentEl.classList.contains("secondbrain-approval"))));
        modal.contentEl.querySelector<HTMLButtonElement>(`button.secondbrain-approval-${button}`)!.click();
        await within(5000, "decided", async () => ((await (await post("/authorize/status", { approval: page })).json()) as { status: string }).status === "decided");
        const location = new URL(String((await post("/authorize", { approval: page })).headers.get("location")));
        await post("/authorize", { approval: page });
        return { page, location };
      };
      const denied = await sign("deny");
      const allowed = await sign("allow");
      const code = allowed.location.searchParams.get("code") ?? "";
      const tokens = (await (await post("/token", { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId })).json()) as { access_token: string; refresh_token: string };
      const rotated = (await (await post("/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId })).json()) as { access_token: string; refresh_token: string };
      await post("/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
      await post("/token", { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId });
      await post("/token", { grant_type: "refresh_token", refresh_token: "sbm_ort_zanzibar-unknown", client_id: clientId });
      await post("/authorize", { approval: "zanzibar-page-token" });
      await fetch(harness.url, { method: "POST", headers: { Authorization: `Bearer ${rotated.access_token}` }, body: "{}" });
      const third = await sign("allow");
      const thirdTokens = (await (await post("/token", { grant_type: "authorization_code", code: third.location.searchParams.get("code") ?? "", code_verifier: verifier, client_id: clientId })).json()) as { access_token: string };
      await (harness.plugin as unknown as { revokeClient(clientId: string, user: string): Promise<void> }).revokeClient(clientId, "tester");
      await fetch(harness.url, { method: "POST", headers: { Authorization: `Bearer ${thirdTokens.access_token}` }, body: "{}" });

      const events = records.join("\n");
      assert.match(events, /"event":"authorize_denied"/);
      assert.match(events, /"event":"token_reuse_detected"/);
      assert.match(events, /"event":"oauth_tokens_revoked"/);
      const lines = consoleLines.join("\n");
      const secrets = [denied.page, allowed.page, third.page, code, verifier, tokens.access_token, tokens.refresh_token, rotated.access_token, rotated.refresh_token, thirdTokens.access_token, "zanzibar"];
      for (const secret of secrets) {
        assert.ok(secret.length > 0, "every secret was issued");
        assert.ok(!events.includes(secret) && !lines.includes(secret), "a secret reached the log");
      }
    } finally {
      Object.assign(console, original);
      stop();
      await harness.stop();
    }
  });
});
