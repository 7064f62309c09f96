// The Prometheus endpoint on the real headless server: scraped over HTTP and read with a real
// text-format parser, so a line the format does not allow fails the test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { generateToken, hashToken } from "../../src/auth/tokens";
import { ROUTE_CLASSES, STATUS_CODES, TOOL_OUTCOMES, UNKNOWN_TOOL } from "../../src/core/metrics";
import { VERSION } from "../../src/hosts/node/version";
import { METRICS_CONTENT_TYPE } from "../../src/http/metrics";
import { ALL_TOOLS } from "../../src/tools/registry";
import { callTool, startTestServer, type TestServer } from "../support/server";
import { Metrics } from "../../src/core/metrics";
import { MetricsEndpoint } from "../../src/http/metrics";
import { MetricsScrape } from "../../src/http/metrics-scrape";
import { setImmediateYielder } from "../../src/hosts/node/services";
import { startOAuthTestServer } from "./helpers";

interface Sample {
  labels: Record<string, string>;
  value?: string;
  sum?: string;
  count?: string;
}

interface MetricFamily {
  name: string;
  type: string;
  metrics: Sample[];
}

/** A small vault whose counts are known: 3 notes, 1 attachment, 3 links (1 broken), 1 orphan, 1 open task, 2 tags. */
function countedVault(): { dir: string; cleanup: () => void } {
  const base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-metrics-"));
  const dir = path.join(base, "vault");
  mkdirSync(path.join(dir, "pics"), { recursive: true });
  writeFileSync(path.join(dir, "a.md"), "---\ntags: [alpha]\n---\n# A\n\nLinks to [[b]] and [[missing]]. #beta\n\n- [ ] open task\n- [x] done task\n");
  writeFileSync(path.join(dir, "b.md"), "# B\n\nBack to [[a]].\n");
  writeFileSync(path.join(dir, "lonely.md"), "# Lonely\n\nNo links here.\n");
  writeFileSync(path.join(dir, "pics", "dot.png"), Buffer.from("89504e470d0a1a0a", "hex"));
  return { dir, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ families: Map<string, MetricFamily>; text: string; response: Response }> {
  const response = await fetch(url, { headers });
  assert.equal(response.status, 200, `scrape answered ${response.status}`);
  const text = await response.text();
  const families = new Map<string, MetricFamily>();
  for (const family of parsePrometheusTextFormat(text) as MetricFamily[]) {
    assert.ok(!families.has(family.name), `family ${family.name} appears once`);
    families.set(family.name, family);
  }
  return { families, text, response };
}

function value(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.get(name);
  const sample = family?.metrics.find((metric) => Object.entries(labels).every(([key, wanted]) => metric.labels?.[key] === wanted) && Object.keys(metric.labels ?? {}).length === Object.keys(labels).length);
  return sample?.value === undefined ? undefined : Number(sample.value);
}

async function startWithMetrics(metrics: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<{ server: TestServer; cleanup: () => void }> {
  const vault = countedVault();
  const server = await startTestServer({ fixture: vault.dir, name: "counted", extra: { metrics: { vaultMaxAgeMs: 0, ...metrics }, ...extra } });
  return { server, cleanup: vault.cleanup };
}

test("a scrape counts tool calls by outcome, writes, conflicts and HTTP requests, and reads the vault's counts from the index", async () => {
  const { server, cleanup } = await startWithMetrics();
  try {
    const read = await server.call("note_read", { path: "a.md" });
    assert.equal(read.isError, false);
    const hash = read.structured.content_hash as string;
    const missing = await server.call("note_read", { path: "nope.md" });
    assert.equal(missing.isError, true);
    const edit = await server.call("note_edit", { path: "a.md", old_string: "open task", new_string: "still open task", content_hash: hash });
    assert.equal(edit.isError, false, edit.text);
    const stale = await server.call("note_edit", { path: "a.md", old_string: "done task", new_string: "finished task", content_hash: hash });
    assert.equal((stale.structured.error as { code: string }).code, "conflict");
    const dry = await server.call("note_create", { path: "c.md", content: "# C\n", dry_run: true });
    assert.equal(dry.isError, false, dry.text);
    const stats = (await server.call("vault_stats", {})).structured.stats as Record<string, number>;

    const url = server.server.metricsUrl!;
    const first = await scrape(url);
    assert.equal(first.response.headers.get("content-type"), METRICS_CONTENT_TYPE);
    const { families } = first;
    assert.equal(value(families, "secondbrain_tool_calls_total", { tool: "note_read", outcome: "ok" }), 1);
    assert.equal(value(families, "secondbrain_tool_calls_total", { tool: "note_read", outcome: "not_found" }), 1);
    assert.equal(value(families, "secondbrain_tool_calls_total", { tool: "note_edit", outcome: "ok" }), 1);
    assert.equal(value(families, "secondbrain_tool_calls_total", { tool: "note_edit", outcome: "conflict" }), 1);
    assert.equal(value(families, "secondbrain_tool_calls_total", { tool: "note_create", outcome: "ok" }), 1);
    // The edit wrote; the dry run and the refused edit did not.
    assert.deepEqual(families.get("secondbrain_writes_total")?.metrics.map((metric) => [metric.labels.tool, metric.value]), [["note_edit", "1"]]);
    assert.deepEqual(families.get("secondbrain_conflicts_total")?.metrics.map((metric) => [metric.labels.tool, metric.value]), [["note_edit", "1"]]);
    assert.equal(families.has("secondbrain_truncated_results_total"), false, "nothing was cut, so the family is left out");

    const durations = families.get("secondbrain_tool_call_duration_seconds");
    assert.equal(durations?.type, "SUMMARY");
    assert.ok(durations);
    for (const sample of durations.metrics) {
      assert.equal(Number(sample.count), value(families, "secondbrain_tool_calls_total", sample.labels), "count and calls agree");
      assert.ok(Number(sample.sum) >= 0 && Number(sample.sum) < 60);
    }

    // Every MCP request so far answered 200 or 202 (notifications); the first scrape is counted once it is sent.
    assert.ok((value(families, "secondbrain_http_requests_total", { route: "mcp", code: "200" }) ?? 0) >= 6);
    assert.equal(value(families, "secondbrain_http_requests_total", { route: "metrics", code: "200" }), undefined);
    const second = await scrape(url);
    assert.equal(value(second.families, "secondbrain_http_requests_total", { route: "metrics", code: "200" }), 1);

    assert.equal(value(families, "secondbrain_oauth_tokens_issued_total"), 0);
    assert.equal(value(families, "secondbrain_oauth_tokens_active"), 0);
    assert.equal(value(families, "secondbrain_build_info", { version: VERSION }), 1);
    assert.equal(value(families, "secondbrain_vault_up", { vault: "0" }), 1);
    const expected = { notes: 3, attachments: 1, links: 3, broken_links: 1, orphans: 1, open_tasks: 1, tags: 2 };
    for (const [key, count] of Object.entries(expected)) {
      assert.equal(value(families, `secondbrain_vault_${key}`, { vault: "0" }), count, key);
      assert.equal(stats[key], count, `vault_stats agrees on ${key}`);
    }
    assert.equal(value(families, "secondbrain_vault_words", { vault: "0" }), stats.words);
  } finally {
    await server.stop();
    cleanup();
  }
});

test("no label value comes from a request or a note: hostile paths, tags, tool names, user names and URLs leave only the fixed sets", async () => {
  const hostileUser = 'mallory"} 1\nsecondbrain_pwned{x="';
  const token = generateToken();
  const vault = countedVault();
  const running = await startTestServer({
    fixture: vault.dir,
    name: "vault-name-xyz",
    users: [{ name: hostileUser, token_hashes: [hashToken(token)], vaults: [], read_only: false }],
    extra: { metrics: { vaultMaxAgeMs: 0 } },
  });
  try {
    const client = await running.connect(token, 'client "name"} 1 xyz');
    const call = (name: string, args: Record<string, unknown>): Promise<unknown> => callTool(client, name, args);
    const hostile = ['secret-project/Ünïcode "quoted"} 1.md', "tagged\nnewline.md", "../escape.md", "/abs/path.md"];
    for (const notePath of hostile) await call("note_create", { path: notePath, content: "# Secret title\n\n#secret-tag-xyz body words\n", tags: ["hostile-tag-xyz"] });
    await call("note_search", { query: 'needle-query-xyz"} 1' });
    await call('evil_tool"} 1\n', {});
    await call("note_read", { path: "secret-project/does-not-exist-xyz.md" });
    const origin = new URL(running.url).origin;
    for (const probe of ["/secret-note-xyz", "/%22%7D%201%0Ax", "/.well-known/hostile-xyz", "/mcp/extra-xyz", "/metrics-xyz"]) {
      await fetch(`${origin}${probe}`).then((response) => response.arrayBuffer());
    }
    const { families, text } = await scrape(running.server.metricsUrl!);
    const allowed: Record<string, ReadonlySet<string>> = {
      tool: new Set([...ALL_TOOLS.map((tool) => tool.name), UNKNOWN_TOOL]),
      outcome: new Set(TOOL_OUTCOMES),
      route: new Set(ROUTE_CLASSES),
      code: new Set([...STATUS_CODES.map(String), "1xx", "2xx", "3xx", "4xx", "5xx", "other"]),
      vault: new Set(["0"]),
      version: new Set([VERSION]),
    };
    let labelled = 0;
    for (const family of families.values()) {
      assert.match(family.name, /^secondbrain_[a-z_]+$/);
      for (const sample of family.metrics) {
        for (const [name, labelValue] of Object.entries(sample.labels ?? {})) {
          labelled += 1;
          const fixed = allowed[name];
          assert.ok(fixed, `label ${name} on ${family.name} is one of the known labels`);
          assert.ok(fixed.has(labelValue), `${family.name}{${name}="${labelValue}"} comes from a fixed set`);
        }
      }
    }
    assert.ok(labelled > 10, "the scrape carries labels to check");
    assert.equal(value(families, "secondbrain_tool_calls_total", { tool: UNKNOWN_TOOL, outcome: "not_found" }), 1);
    assert.ok((value(families, "secondbrain_http_requests_total", { route: "other", code: "404" }) ?? 0) >= 4);
    for (const secret of ["secret", "xyz", "Ünïcode", "mallory", "pwned", "hostile", "escape", "abs/path", "evil", "vault-name"]) {
      assert.ok(!text.includes(secret), `the scrape does not contain "${secret}"`);
    }
  } finally {
    await running.stop();
    vault.cleanup();
  }
});

test("metrics are off by default: the path is a plain 404 and nothing else changes", async () => {
  const vault = countedVault();
  const server = await startTestServer({ fixture: vault.dir });
  try {
    assert.equal(server.server.metricsUrl, null);
    const response = await fetch(`${new URL(server.url).origin}/metrics`);
    assert.equal(response.status, 404);
    assert.doesNotMatch(await response.text(), /secondbrain_/);
  } finally {
    await server.stop();
    vault.cleanup();
  }
});

test("with a key, a scrape without it or with a wrong one gets 401; Bearer and X-API-Key with the right one get the numbers", async () => {
  const key = generateToken();
  process.env.SBMCP_TEST_METRICS_KEY = key;
  const { server, cleanup } = await startWithMetrics({ key: "env:SBMCP_TEST_METRICS_KEY" });
  try {
    const url = server.server.metricsUrl!;
    const missing = await fetch(url);
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer /);
    const body = await missing.text();
    assert.match(body, /X-API-Key/);
    assert.doesNotMatch(body, /secondbrain_/);
    assert.equal((await fetch(url, { headers: { Authorization: `Bearer ${key}x` } })).status, 401);
    assert.equal((await fetch(url, { headers: { Authorization: `Bearer ${server.token}` } })).status, 401, "an MCP token is not the metrics key");
    assert.equal((await fetch(url, { headers: { "X-API-Key": key.slice(0, -1) } })).status, 401);
    await scrape(url, { Authorization: `bearer ${key}` });
    const { families } = await scrape(url, { "X-API-Key": key });
    assert.equal(value(families, "secondbrain_http_requests_total", { route: "metrics", code: "401" }), 4);
    assert.ok(!server.logs.join("").includes(key), "the key is never logged");
    assert.equal((await fetch(url, { method: "POST", headers: { "X-API-Key": key } })).status, 405);
  } finally {
    await server.stop();
    cleanup();
    delete process.env.SBMCP_TEST_METRICS_KEY;
  }
});

test("a key that is not set or is too short stops the start instead of leaving the numbers open", async () => {
  const vault = countedVault();
  try {
    delete process.env.SBMCP_TEST_UNSET_KEY;
    await assert.rejects(startTestServer({ fixture: vault.dir, extra: { metrics: { key: "env:SBMCP_TEST_UNSET_KEY" } } }), /SBMCP_TEST_UNSET_KEY, which is not set/);
    process.env.SBMCP_TEST_SHORT_KEY = "short";
    await assert.rejects(startTestServer({ fixture: vault.dir, extra: { metrics: { key: "env:SBMCP_TEST_SHORT_KEY" } } }), /at least 16 characters/);
  } finally {
    delete process.env.SBMCP_TEST_SHORT_KEY;
    vault.cleanup();
  }
});

test("on a listener of its own the metrics path is absent from the MCP port and its requests are not counted", async () => {
  const { server, cleanup } = await startWithMetrics({ listen: { host: "127.0.0.1", port: 0 } });
  try {
    const url = server.server.metricsUrl!;
    assert.notEqual(new URL(url).port, new URL(server.url).port);
    assert.equal((await fetch(`${new URL(server.url).origin}/metrics`)).status, 404);
    const health = await fetch(`${new URL(url).origin}/healthz`);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.equal((await fetch(`${new URL(url).origin}/mcp`)).status, 404);
    await scrape(url);
    const { families } = await scrape(url);
    assert.equal(value(families, "secondbrain_http_requests_total", { route: "metrics", code: "200" }), undefined);
    assert.equal(value(families, "secondbrain_http_requests_total", { route: "other", code: "404" }), 1);
  } finally {
    await server.stop();
    cleanup();
  }
});

test("OAuth tokens issued and active come from the OAuth service; its routes are counted as oauth and well_known", async () => {
  let now = Date.now();
  const metrics = new Metrics(ALL_TOOLS.map((tool) => tool.name));
  let service: { tokenCounts(): { issued: number; active: number } } | undefined;
  const source = new MetricsScrape({ metrics, version: VERSION, engines: () => [], oauth: () => service!.tokenCounts(), yielder: setImmediateYielder, now: () => now, logger: { log: () => undefined } });
  const endpoint = new MetricsEndpoint({ path: "/metrics", render: () => source.render(), logger: { log: () => undefined } });
  const running = await startOAuthTestServer({ now: () => now }, { metrics, metricsEndpoint: endpoint });
  service = running.service;
  const origin = running.server.origin;
  const redirect = "http://127.0.0.1:5123/callback";
  try {
    await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).arrayBuffer();
    const registered = (await (await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [redirect] }) })).json()) as { client_id: string };
    const verifier = "v".repeat(43);
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const code = await running.service.issueCode({ client_id: registered.client_id, user: "tester", redirect_uri: redirect, code_challenge: challenge });
    const form = { grant_type: "authorization_code", code, code_verifier: verifier, client_id: registered.client_id, redirect_uri: redirect };
    const issued = await fetch(`${origin}/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() });
    assert.equal(issued.status, 200);
    const tokens = (await issued.json()) as { refresh_token: string };
    let { families } = await scrape(`${origin}/metrics`);
    assert.equal(value(families, "secondbrain_oauth_tokens_issued_total"), 1);
    assert.equal(value(families, "secondbrain_oauth_tokens_active"), 1);
    assert.equal(value(families, "secondbrain_http_requests_total", { route: "well_known", code: "200" }), 1);
    assert.equal(value(families, "secondbrain_http_requests_total", { route: "oauth", code: "201" }), 1);
    assert.equal(value(families, "secondbrain_http_requests_total", { route: "oauth", code: "200" }), 1);
    assert.equal(families.has("secondbrain_vault_notes"), false, "no vault, no vault gauges");

    now += 12 * 60 * 60 * 1000;
    ({ families } = await scrape(`${origin}/metrics`));
    assert.equal(value(families, "secondbrain_oauth_tokens_active"), 0, "an expired token is not active");
    const refreshed = await fetch(`${origin}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: registered.client_id }).toString(),
    });
    assert.equal(refreshed.status, 200);
    ({ families } = await scrape(`${origin}/metrics`));
    assert.equal(value(families, "secondbrain_oauth_tokens_issued_total"), 2);
    assert.equal(value(families, "secondbrain_oauth_tokens_active"), 1);
    await running.service.forgetUsersExcept(new Set());
    ({ families } = await scrape(`${origin}/metrics`));
    assert.equal(value(families, "secondbrain_oauth_tokens_active"), 0, "revoked tokens are not active");
  } finally {
    await running.server.close();
  }
});

test("a result cut to max_response_bytes is counted under its tool", async () => {
  const { server, cleanup } = await startWithMetrics({}, { maxResponseBytes: 1024 });
  try {
    const long = Array.from({ length: 60 }, (_, index) => `- [ ] task number ${index} with some words`).join("\n");
    const created = await server.call("note_create", { path: "tasks.md", content: `# Tasks\n\n${long}\n` });
    assert.equal(created.isError, false, created.text);
    const listed = await server.call("task_list", {});
    assert.ok(listed.structured.response_truncated, "the task list was cut");
    const { families } = await scrape(server.server.metricsUrl!);
    assert.equal(value(families, "secondbrain_truncated_results_total", { tool: "task_list" }), 1);
    assert.equal(value(families, "secondbrain_writes_total", { tool: "note_create" }), 1);
  } finally {
    await server.stop();
    cleanup();
  }
});
