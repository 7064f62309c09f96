import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, defaultToken, loadConfigFile, MIN_TOKEN_DISTINCT, MIN_TOKEN_LENGTH, parseConfig, TOKEN_ENV } from "../../src/auth/config";
import { hashToken, TOKEN_PREFIX } from "../../src/auth/tokens";
import { UserStore } from "../../src/auth/users";

const ALICE_TOKEN = "alice-plaintext-token-0001";
const BOB_HASH = hashToken("bob-secret-token-0002");

const FULL = `# team config
users:
  - name: alice
    tokens: [${ALICE_TOKEN}]
  - name: bob
    token_sha256:
      - ${BOB_HASH.toUpperCase()}
    vaults: [work, notes-2]
    read_only: true
server:
  host: 0.0.0.0
  port: 27125
  allowed_origins: ["http://localhost:3000", "https://app.example.com/"]
  rate_limit: { per_minute: 120, burst: 20 }
limits:
  max_response_bytes: 131072
audit:
  file: /var/log/secondbrain/audit.jsonl
`;

function configError(text: string): ConfigError {
  try {
    parseConfig(text, "team.yaml");
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail("the config was accepted");
}

test("a full config parses into users, server, limits and audit", () => {
  const config = parseConfig(FULL, "team.yaml");
  assert.deepEqual(config.users, [
    { name: "alice", token_hashes: [hashToken(ALICE_TOKEN)], vaults: [], read_only: false },
    { name: "bob", token_hashes: [BOB_HASH], vaults: ["work", "notes-2"], read_only: true },
  ]);
  assert.deepEqual(config.server, {
    host: "0.0.0.0",
    port: 27125,
    allowedOrigins: ["http://localhost:3000", "https://app.example.com"],
    trustedProxies: [],
    rateLimit: { perMinute: 120, burst: 20 },
  });
  assert.deepEqual(config.limits, { maxResponseBytes: 131072 });
  assert.deepEqual(config.audit, { file: "/var/log/secondbrain/audit.jsonl" });
});

test("plaintext tokens are kept only as hashes, and both forms authenticate", () => {
  const config = parseConfig(FULL);
  assert.ok(!JSON.stringify(config).includes(ALICE_TOKEN));
  const store = new UserStore(config.users);
  assert.equal(store.authenticate(ALICE_TOKEN)?.name, "alice");
  assert.equal(store.authenticate("bob-secret-token-0002")?.readOnly, true);
});

test("an empty file and a file without users give defaults and no users", () => {
  assert.deepEqual(parseConfig(""), { users: [], server: { allowedOrigins: [], trustedProxies: [] }, limits: {}, audit: {}, history: { enabled: true }, oauth: { enabled: false, clientIdMetadataDocuments: false }, embeddings: { enabled: false }, metrics: { enabled: false, path: "/metrics" } });
  assert.deepEqual(parseConfig("server:\n  port: 0\n").server, { allowedOrigins: [], trustedProxies: [], port: 0 });
});

test("embeddings: off unless the section is there; url and model required; the key is named by a variable, never held", () => {
  assert.deepEqual(
    parseConfig("embeddings:\n  url: http://localhost:11434/v1\n  model: nomic-embed-text\n  api_key_env: EMBED_KEY\n  batch_size: 16\n  timeout_ms: 5000\n  requests_per_minute: 120\n").embeddings,
    { enabled: true, url: "http://localhost:11434/v1", model: "nomic-embed-text", apiKeyEnv: "EMBED_KEY", batchSize: 16, timeoutMs: 5000, requestsPerMinute: 120 },
  );
  assert.deepEqual(parseConfig("embeddings:\n  enabled: false\n").embeddings, { enabled: false });
  assert.deepEqual(
    parseConfig('embeddings:\n  url: http://localhost:8080/v1\n  model: e5\n  query_prefix: "query: "\n  passage_prefix: "passage: "\n').embeddings,
    { enabled: true, url: "http://localhost:8080/v1", model: "e5", queryPrefix: "query: ", passagePrefix: "passage: " },
  );
  assert.match(configError("embeddings:\n  url: http://localhost:11434/v1\n").message, /needs both embeddings\.url and embeddings\.model/);
  assert.match(configError("embeddings:\n  url: http://user:pw@host/v1\n  model: m\n").message, /embeddings\.url must not hold credentials/);
  assert.doesNotMatch(configError("embeddings:\n  url: http://user:pw@host/v1\n  model: m\n").message, /pw/);
  assert.match(configError("embeddings:\n  url: http://h/v1\n  model: m\n  api_key: sk-1\n").message, /api_key/);
});

test("embeddings of kind on-device: a model of the manifest or pinned in the file, no endpoint keys, pins checked", () => {
  assert.deepEqual(parseConfig("embeddings:\n  kind: on-device\n").embeddings, { enabled: true, kind: "on-device", model: "multilingual-e5-small" });
  assert.deepEqual(
    parseConfig("embeddings:\n  kind: on-device\n  model: all-MiniLM-L6-v2\n  models_folder: /srv/models\n  model_source: https://mirror.example/hf\n  batch_size: 8\n").embeddings,
    { enabled: true, kind: "on-device", model: "all-MiniLM-L6-v2", modelsFolder: "/srv/models", modelSource: "https://mirror.example/hf", batchSize: 8 },
  );
  assert.match(configError("embeddings:\n  kind: on-device\n  model: nomic-embed-text\n").message, /embeddings\.model is not an on-device model; one of: multilingual-e5-small, all-MiniLM-L6-v2/);
  assert.match(configError("embeddings:\n  kind: on-device\n  url: http://localhost:11434/v1\n").message, /embeddings\.url belongs to kind "endpoint"/);
  assert.match(configError("embeddings:\n  url: http://h/v1\n  model: m\n  models_folder: /x\n").message, /embeddings\.models_folder belongs to kind "on-device"/);
  assert.match(configError("embeddings:\n  kind: local\n").message, /embeddings\.kind must be "endpoint" .* or "on-device"/);
  assert.match(configError("embeddings:\n  kind: on-device\n  models_folder: models\n").message, /embeddings\.models_folder must be an absolute path/);
  const sha = "ab".repeat(32);
  const pinned = (revision: string, digest: string): string =>
    `embeddings:\n  kind: on-device\n  model: mine\n  pinned_models:\n    - id: mine\n      repo: me/mine\n      revision: ${revision}\n      dims: 16\n      query_prefix: "query: "\n      files:\n        - path: onnx/model_quantized.onnx\n          size: 1000\n          sha256: ${digest}\n`;
  const mine = parseConfig(pinned("a".repeat(40), sha)).embeddings;
  assert.equal(mine.model, "mine");
  assert.deepEqual(mine.pinnedModels, [{ id: "mine", repo: "me/mine", revision: "a".repeat(40), dims: 16, queryPrefix: "query: ", passagePrefix: "", multilingual: false, files: [{ path: "onnx/model_quantized.onnx", size: 1000, sha256: sha }] }]);
  assert.match(configError(pinned("main", sha)).message, /revision must be the 40-hex-digit commit/);
  assert.match(configError(pinned("a".repeat(40), "abc")).message, /has no valid SHA-256 for onnx\/model_quantized\.onnx/);
});

test("a scalar stands for a list of one", () => {
  const config = parseConfig(`users:\n  - name: solo\n    tokens: ${ALICE_TOKEN}\n    vaults: work\n`);
  assert.deepEqual(config.users[0]?.vaults, ["work"]);
  assert.deepEqual(config.users[0]?.token_hashes, [hashToken(ALICE_TOKEN)]);
});

test("errors name the file, line and key, and never the token", () => {
  const short = configError(`users:\n  - name: a\n    tokens:\n      - ${ALICE_TOKEN}\n      - tooshort99\n`);
  assert.equal(short.line, 5);
  assert.equal(short.key, "users[0].tokens[1]");
  assert.match(short.message, new RegExp(`^team\\.yaml:5: users\\[0\\]\\.tokens\\[1\\] must be at least ${MIN_TOKEN_LENGTH}`));
  assert.ok(!short.message.includes("tooshort99"));

  const typo = configError(`users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n    read-only: true\n`);
  assert.equal(typo.line, 4);
  assert.equal(typo.key, "users[0].read-only");
  assert.match(typo.message, /not a known key; expected one of: name, tokens, token_sha256, vaults, read_only/);

  const wrongType = configError(`users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n    read_only: "yes please"\n`);
  assert.equal(wrongType.key, "users[0].read_only");
  assert.match(wrongType.message, /must be true or false/);
  assert.ok(!wrongType.message.includes("yes please"));
});

test("a YAML syntax error reports the line and code, not the text around it", () => {
  const error = configError(`users:\n  - name: a\n    tokens: [${ALICE_TOKEN}\n`);
  assert.match(error.message, /^team\.yaml:\d+: is not valid YAML \([A-Z_]+\)$/);
  assert.ok(!error.message.includes(ALICE_TOKEN));
});

test("users need a name and a token; names and tokens must be unique", () => {
  assert.match(configError(`users:\n  - tokens: [${ALICE_TOKEN}]\n`).message, /users\[0\] needs a "name"/);
  assert.match(configError("users:\n  - name: a\n").message, /users\[0\] needs "tokens", "token_sha256" or \(for OAuth sign-in\) "password"/);
  const twice = `users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n  - name: a\n    tokens: [another-token-0000001-abcdef]\n`;
  assert.match(configError(twice).message, /users\[1\] repeats the user name "a"/);
  const shared = `users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n  - name: b\n    token_sha256: [${hashToken(ALICE_TOKEN)}]\n`;
  const sharedError = configError(shared);
  assert.equal(sharedError.key, "users[1].token_sha256[0]");
  assert.match(sharedError.message, /same token as one of user "a"/);
  assert.ok(!sharedError.message.includes(hashToken(ALICE_TOKEN)));
});

test("hashes, vault names, origins, ports and limits are checked", () => {
  assert.match(configError("users:\n  - name: a\n    token_sha256: [abc]\n").message, /must be 64 hex digits/);
  assert.match(configError(`users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n    vaults: [Work Notes]\n`).message, /users\[0\]\.vaults\[0\] must be a vault name/);
  assert.match(configError("server:\n  allowed_origins: [http://x.test/path]\n").message, /server\.allowed_origins\[0\] must be an origin/);
  assert.match(configError("server:\n  port: 70000\n").message, /server\.port must be a whole number from 0 to 65535/);
  assert.match(configError("server:\n  rate_limit: { per_minute: 10 }\n").message, /server\.rate_limit needs both/);
  assert.match(configError("limits:\n  max_response_bytes: 10\n").message, /limits\.max_response_bytes must be a whole number from 1024/);
  assert.match(configError("- just a list\n").message, /^team\.yaml:1: must be a mapping/);
});

test("toolsets: a list of groups in the registry's order, all for every group, absent for every group", () => {
  const user = (toolsets: string): Record<string, unknown> => parseConfig(`users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n${toolsets}`).users[0] as unknown as Record<string, unknown>;
  assert.deepEqual(user("    toolsets: [history, find, find]\n").toolsets, ["find", "history"]);
  assert.deepEqual(user("    toolsets: maintain\n").toolsets, ["maintain"]);
  assert.ok(!("toolsets" in user("    toolsets: [find, all]\n")), "all stands for every toolset");
  assert.ok(!("toolsets" in user("")), "no toolsets key: every toolset");
});

test("toolsets errors name the line and key, the toolsets to choose from, and never the value", () => {
  const unknown = configError(`users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n    toolsets:\n      - find\n      - ${ALICE_TOKEN}\n`);
  assert.equal(unknown.line, 6);
  assert.equal(unknown.key, "users[0].toolsets[1]");
  assert.match(unknown.message, /must be one of find, write, maintain, history, all$/);
  assert.ok(!unknown.message.includes(ALICE_TOKEN), "a token pasted on the wrong line is not printed");
  const host = configError(`users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n    toolsets: [find, host]\n`);
  assert.match(host.message, /users\[0\]\.toolsets\[1\] names host, .*only the Obsidian plugin has \(active_note, open_note\)/);
  const empty = configError(`users:\n  - name: a\n    tokens: [${ALICE_TOKEN}]\n    toolsets: []\n`);
  assert.equal(empty.key, "users[0].toolsets");
  assert.match(empty.message, /names no toolset; leave toolsets out \(or write \[all\]\) for every toolset/);
});

test("loadConfigFile reads the file and names it in errors", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "sbm-config-"));
  try {
    const file = path.join(dir, "secondbrain.yaml");
    await writeFile(file, FULL);
    assert.equal((await loadConfigFile(file)).users.length, 2);
    await assert.rejects(loadConfigFile(path.join(dir, "missing.yaml")), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /missing\.yaml: cannot be read \(ENOENT\)/);
      return true;
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("tokens shorter than 24 characters or with fewer than 8 different ones are refused, without printing them", () => {
  assert.equal(MIN_TOKEN_LENGTH, 24);
  assert.equal(MIN_TOKEN_DISTINCT, 8);
  for (const weak of ["aaaaaaaaaaaaaaaa", "a".repeat(64), "abcdefgh".repeat(2) + "1234567", "abababababababababababababababab", "0123456012345601234560123456"]) {
    const error = configError(`users:\n  - name: a\n    tokens: ["${weak}"]\n`);
    assert.equal(error.key, "users[0].tokens[0]");
    assert.match(error.message, /at least 24 characters long with at least 8 different characters.*openssl rand -hex 32/);
    assert.ok(!error.message.includes(weak), "the token is never printed");
  }
  const strong = "0123456789abcdef01234567";
  assert.equal(parseConfig(`users:\n  - name: a\n    tokens: ["${strong}"]\n`).users[0]?.token_hashes[0], hashToken(strong));
});

test("a weak SECONDBRAIN_TOKEN is refused with the command that makes a good one", () => {
  for (const weak of ["a", "aaaaaaaaaaaaaaaa", "passwordpasswordpassword"]) {
    assert.throws(
      () => defaultToken({ [TOKEN_ENV]: weak }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /^SECONDBRAIN_TOKEN: must be at least 24 characters.*openssl rand -hex 32.*unset SECONDBRAIN_TOKEN/);
        if (weak.length > 1) assert.ok(!error.message.includes(weak), "the token is never printed");
        return true;
      },
    );
  }
});

test("defaultToken takes SECONDBRAIN_TOKEN, else generates one to show", () => {
  assert.deepEqual(defaultToken({ [TOKEN_ENV]: "  from-env-0123456789abcdef  " }), { token: "from-env-0123456789abcdef", generated: false });
  const generated = defaultToken({ [TOKEN_ENV]: " " });
  assert.equal(generated.generated, true);
  assert.ok(generated.token.startsWith(TOKEN_PREFIX));
  assert.notEqual(defaultToken({}).token, generated.token);
});

test("history: on by default; author, a remote with {vault} and the token's variable; credentials in the URL refused", () => {
  assert.deepEqual(parseConfig("").history, { enabled: true });
  const config = parseConfig(
    "history:\n  author_name: Ada\n  author_email: ada@example.org\n  remote: https://git.example.org/ada/{vault}.git\n  token_env: NOTES_PUSH_TOKEN\n",
  );
  assert.deepEqual(config.history, {
    enabled: true,
    author: { name: "Ada", email: "ada@example.org" },
    remote: "https://git.example.org/ada/{vault}.git",
    tokenEnv: "NOTES_PUSH_TOKEN",
  });
  assert.equal(parseConfig("history:\n  enabled: false\n").history.enabled, false);
  assert.throws(() => parseConfig("history:\n  remote: https://ada:secret@git.example.org/x.git\n"), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.match(error.message, /history\.remote must be an http\(s\) URL without credentials/);
    assert.ok(!error.message.includes("secret"));
    return true;
  });
  assert.throws(() => parseConfig("history:\n  author_name: Ada\n"), /author_email/);
});

test("OAuth is off unless enabled; server.public_url is kept without a trailing slash", () => {
  assert.deepEqual(parseConfig("users: []\n").oauth, { enabled: false, clientIdMetadataDocuments: false });
  const config = parseConfig("server:\n  public_url: https://brain.example.com/\noauth:\n  enabled: true\n");
  assert.deepEqual(config.oauth, { enabled: true, clientIdMetadataDocuments: false });
  assert.deepEqual(parseConfig("oauth:\n  enabled: true\n  client_id_metadata_documents: true\n").oauth, { enabled: true, clientIdMetadataDocuments: true });
  assert.equal(config.server.publicUrl, "https://brain.example.com");
  assert.equal(parseConfig("server:\n  public_url: http://127.0.0.1:27125\n").server.publicUrl, "http://127.0.0.1:27125");
});

test("a public_url that is not https (except loopback), carries credentials or a query is refused without quoting it", () => {
  for (const [value, problem] of [
    ["http://brain.example.com", /must use https:\/\/ unless it names 127\.0\.0\.1/],
    ["https://user:secret-part@brain.example.com", /must not contain a user name or password/],
    ["https://brain.example.com/?k=secret-part", /must not contain a query or fragment/],
    ["not a url", /must be an absolute URL/],
  ] as const) {
    const error = configError(`server:\n  public_url: "${value}"\n`);
    assert.equal(error.key, "server.public_url");
    assert.equal(error.line, 2);
    assert.match(error.message, problem);
    assert.ok(!error.message.includes("secret-part") && !error.message.includes(value));
  }
  assert.equal(configError("oauth:\n  enabled: yes please\n").key, "oauth.enabled");
  assert.equal(configError("oauth:\n  issuer: x\n").key, "oauth.issuer");
});

test("server.trusted_proxies takes addresses and ranges, none by default, and names the entry it refuses", () => {
  assert.deepEqual(parseConfig("users: []\n").server.trustedProxies, []);
  assert.deepEqual(parseConfig('server:\n  trusted_proxies: [127.0.0.1, "::1", 10.0.0.0/8]\n').server.trustedProxies, ["127.0.0.1", "::1", "10.0.0.0/8"]);
  const error = configError("server:\n  trusted_proxies:\n    - 127.0.0.1\n    - proxy.internal\n");
  assert.equal(error.key, "server.trusted_proxies[1]");
  assert.equal(error.line, 4);
  assert.match(error.message, /must be an IP address \(127\.0\.0\.1, ::1\) or a range of them/);
  assert.match(configError("server:\n  trusted_proxies: [10.0.0.0/40]\n").message, /prefix length .* from 0 to 32/);
});

test("a user's password is a bcrypt hash or a reference (env: or file:), never plain text, and a user may have a password without tokens", () => {
  const hash = "$2y$05$3Nn0cIR0x8k0H9C6Yw4pT.9mYx1dEo8L1Xh6xO8r4h0tqB1h5QeQe";
  const config = parseConfig(`users:\n  - name: carol\n    password: env:CAROL_PASSWORD\n  - name: dave\n    tokens: [dave-plaintext-token-00001]\n    password: file:/run/secrets/dave\n  - name: fay\n    password: ${hash}\n`);
  assert.deepEqual(config.users.map((user) => [user.name, user.password, user.token_hashes.length]), [
    ["carol", "env:CAROL_PASSWORD", 0],
    ["dave", "file:/run/secrets/dave", 1],
    ["fay", hash, 0],
  ]);
  const error = configError("users:\n  - name: carol\n    password: my-secret-password\n");
  assert.equal(error.key, "users[0].password");
  assert.equal(error.line, 3);
  assert.ok(!error.message.includes("my-secret-password"));
  assert.match(error.message, /plain text is refused.*secondbrain-mcp hash-password/);
  const cut = configError(`users:\n  - name: carol\n    password: "${hash.slice(0, -1)}"\n`);
  assert.match(cut.message, /is not a whole bcrypt hash/);
  assert.ok(!cut.message.includes(hash.slice(7, 40)), "not even a broken hash is quoted");
  assert.match(configError("users:\n  - name: erin\n").message, /needs "tokens", "token_sha256" or \(for OAuth sign-in\) "password"/);
});

test("metrics: off unless enabled; path, a key reference and a listener are read, a literal key or a taken path is refused", () => {
  assert.deepEqual(parseConfig("users: []\n").metrics, { enabled: false, path: "/metrics" });
  const config = parseConfig("metrics:\n  enabled: true\n  path: /internal/metrics\n  key: env:METRICS_KEY\n  listen: 9464\n");
  assert.deepEqual(config.metrics, { enabled: true, path: "/internal/metrics", key: "env:METRICS_KEY", listen: { host: "127.0.0.1", port: 9464 } });
  assert.deepEqual(parseConfig('metrics:\n  listen: "0.0.0.0:9464"\n').metrics.listen, { host: "0.0.0.0", port: 9464 });
  assert.deepEqual(parseConfig('metrics:\n  listen: "[::1]:9464"\n').metrics.listen, { host: "::1", port: 9464 });
  const literal = configError("metrics:\n  enabled: true\n  key: my-literal-metrics-key-123\n");
  assert.equal(literal.key, "metrics.key");
  assert.equal(literal.line, 3);
  assert.ok(!literal.message.includes("my-literal-metrics-key-123"));
  for (const taken of ["/mcp", "/healthz", "/", "/.well-known/metrics", "/token", "metrics"]) {
    assert.equal(configError(`metrics:\n  path: "${taken}"\n`).key, "metrics.path", taken);
  }
  assert.equal(configError("metrics:\n  listen: 70000\n").key, "metrics.listen");
  assert.equal(configError("metrics:\n  port: 9464\n").key, "metrics.port");
});
