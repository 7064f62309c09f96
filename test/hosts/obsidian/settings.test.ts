import { test } from "node:test";
import assert from "node:assert/strict";
import { hashToken } from "../../../src/auth/tokens";
import { DEFAULT_PORT, defaultSettings, oauthUser, readSettings, vaultsOf } from "../../../src/hosts/obsidian/settings";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../../src/mcp/truncate";

test("first run (loadData gives null) yields the defaults: server on at 127.0.0.1, no users, the whole vault", () => {
  const settings = readSettings(null);
  assert.deepEqual(settings, defaultSettings());
  assert.equal(settings.server.host, "127.0.0.1");
  assert.equal(settings.server.port, DEFAULT_PORT);
  assert.deepEqual(vaultsOf(settings), [{ name: "default", folder: "" }]);
});

test("saved settings read back unchanged", () => {
  const saved = defaultSettings();
  saved.server = { enabled: false, port: 30001, host: "127.0.0.1" };
  saved.users.push({ name: "claude", token_hashes: [hashToken("sbm_x")], vaults: ["work"], read_only: true, created: 5 });
  saved.vaults.push({ name: "work", folder: "Work" });
  saved.defaultVault = "work";
  saved.audit = { enabled: true, file: "calls.jsonl" };
  assert.deepEqual(readSettings(JSON.parse(JSON.stringify(saved))), saved);
});

test("the response limit defaults below what clients pass on whole; the former default stored by earlier versions follows it, a chosen one stays", () => {
  assert.equal(defaultSettings().limits.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
  assert.ok(DEFAULT_MAX_RESPONSE_BYTES <= 40_000);
  const stored = (maxResponseBytes: number) => readSettings({ limits: { maxResponseBytes } }).limits.maxResponseBytes;
  assert.equal(stored(262144), DEFAULT_MAX_RESPONSE_BYTES);
  assert.equal(stored(131072), 131072);
  assert.equal(stored(20_000), 20_000);
});

test("hand-edited data.json: bad fields fall back one by one, plaintext tokens and duplicates are dropped", () => {
  const settings = readSettings({
    server: { enabled: "yes", port: 99999, host: " " },
    users: [
      { name: "a", token_hashes: ["sbm_plaintext-token", hashToken("t")], vaults: ["Bad Name", "work"], read_only: 1 },
      { name: "a", token_hashes: [] },
      { token_hashes: [] },
    ],
    vaults: [{ name: "default", folder: "x" }, { name: "work", folder: " Work " }, { name: "work", folder: "Other" }, { name: "UPPER", folder: "y" }],
    defaultVault: "missing",
    limits: { maxResponseBytes: 10, rateLimitPerMinute: 60, trashRetentionDays: 0 },
  });
  assert.deepEqual(settings.server, defaultSettings().server);
  assert.equal(settings.users.length, 1);
  assert.deepEqual(settings.users[0]!.token_hashes, [hashToken("t")]);
  assert.deepEqual(settings.users[0]!.vaults, ["work"]);
  assert.equal(settings.users[0]!.read_only, false);
  assert.deepEqual(settings.vaults, [{ name: "work", folder: "Work" }]);
  assert.equal(settings.defaultVault, "default");
  assert.equal(settings.limits.maxResponseBytes, defaultSettings().limits.maxResponseBytes);
  assert.equal(settings.limits.rateLimitPerMinute, 60);
  assert.equal(settings.limits.trashRetentionDays, defaultSettings().limits.trashRetentionDays);
  assert.ok(!JSON.stringify(settings).includes("sbm_plaintext-token"));
});

test("a user's toolsets: kept in order, unknown names dropped, none or all of them meaning every toolset", () => {
  const settings = readSettings({
    users: [
      { name: "a", token_hashes: [], toolsets: ["host", "find", "nonsense", "find"] },
      { name: "b", token_hashes: [], toolsets: [] },
      { name: "c", token_hashes: [], toolsets: ["find", "write", "maintain", "history", "host"] },
      { name: "d", token_hashes: [], toolsets: "find" },
      { name: "e", token_hashes: [] },
    ],
  });
  assert.deepEqual(settings.users.map((user) => user.toolsets), [["find", "host"], undefined, undefined, undefined, undefined]);
  assert.ok(!("toolsets" in settings.users[1]!), "every toolset is stored as no toolsets key");
});

test("OAuth sign-in is off by default; the chosen user must exist, the approval time stays within five minutes; oauthUser falls back to the only user", () => {
  assert.deepEqual(readSettings(null).oauth, { enabled: false, user: null, approvalSeconds: 300 });
  const users = [{ name: "alice", token_hashes: [], vaults: [], read_only: false }];
  const read = readSettings({ users, oauth: { enabled: true, user: "alice", approvalSeconds: 2 } });
  assert.deepEqual(read.oauth, { enabled: true, user: "alice", approvalSeconds: 2 });
  assert.deepEqual(readSettings({ users, oauth: { enabled: "yes", user: "ghost", approvalSeconds: 301 } }).oauth, { enabled: false, user: null, approvalSeconds: 300 });
  const named = (settings: ReturnType<typeof readSettings>): string => {
    const user = oauthUser(settings);
    return typeof user === "string" ? user : `user ${user.name}`;
  };
  assert.equal(named(readSettings({ users })), "user alice");
  assert.match(named(readSettings({})), /add a user/);
  const two = readSettings({ users: [...users, { name: "bob", token_hashes: [], vaults: [], read_only: false }] });
  assert.match(named(two), /choose one/);
  two.oauth.user = "bob";
  assert.equal(named(two), "user bob");
});

test("semantic search is off by default; its settings read back, a URL with credentials or a bad number falls back", () => {
  assert.equal(defaultSettings().embeddings.enabled, false);
  const saved = defaultSettings();
  saved.embeddings = { ...saved.embeddings, enabled: true, url: "http://127.0.0.1:8080/v1", model: "bge-m3", batchSize: 16, timeoutMs: 9000, requestsPerMinute: 30 };
  assert.deepEqual(readSettings(JSON.parse(JSON.stringify(saved))).embeddings, saved.embeddings);
  const bad = readSettings({ embeddings: { enabled: true, url: "http://user:key@host/v1", model: " ", batchSize: 0, apiKey: "sk-x" } }).embeddings;
  assert.deepEqual(bad, { ...defaultSettings().embeddings, enabled: true });
  assert.ok(!JSON.stringify(bad).includes("sk-x"), "an API key in data.json is not read into the settings");
});

test("the on-device kind reads back with its model, sources and pinned models; an unpinned model or unknown id falls back", () => {
  const pinned = { id: "mine", repo: "me/mine", revision: "a".repeat(40), dims: 8, queryPrefix: "query: ", passagePrefix: "passage: ", multilingual: false, files: [{ path: "onnx/model_quantized.onnx", size: 10, sha256: "b".repeat(64) }] };
  const read = readSettings({ embeddings: { enabled: true, kind: "on-device", onDeviceModel: "mine", modelSource: "http://127.0.0.1:9/hub", runtimeSource: "http://127.0.0.1:9/npm", pinnedModels: [pinned] } }).embeddings;
  assert.equal(read.kind, "on-device");
  assert.equal(read.onDeviceModel, "mine");
  assert.equal(read.modelSource, "http://127.0.0.1:9/hub");
  assert.equal(read.runtimeSource, "http://127.0.0.1:9/npm");
  assert.deepEqual(read.pinnedModels, [pinned]);
  const unpinned = readSettings({ embeddings: { kind: "on-device", onDeviceModel: "mine", modelSource: "ftp://x", pinnedModels: [{ ...pinned, revision: "main" }] } }).embeddings;
  assert.deepEqual([unpinned.onDeviceModel, unpinned.pinnedModels, unpinned.modelSource], ["multilingual-e5-small", [], "https://huggingface.co"]);
  assert.equal(readSettings({ embeddings: { kind: "elsewhere" } }).embeddings.kind, "endpoint");
});

test("metrics are off by default with no key; a saved key hash reads back, a hand-edited one that is no hash is kept so it matches no key", () => {
  assert.deepEqual(defaultSettings().metrics, { enabled: false, keyHash: null });
  const hash = hashToken("sbm_metrics");
  assert.deepEqual(readSettings({ metrics: { enabled: true, keyHash: hash } }).metrics, { enabled: true, keyHash: hash });
  assert.deepEqual(readSettings({ metrics: { enabled: "yes", keyHash: 5 } }).metrics, { enabled: false, keyHash: null });
  assert.equal(readSettings({ metrics: { enabled: true, keyHash: "typo" } }).metrics.keyHash, "typo");
});
