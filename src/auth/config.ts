// The `--config` YAML file: users, server, limits, audit. Plaintext tokens are hashed while the
// file is read and never kept; error messages name the key and line, never a value, so a typo next
// to a token cannot print the token.
import { readFile } from "node:fs/promises";
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { VAULT_NAME } from "../core/vault/directory";
import { generateToken, hashToken, isTokenHash, weakTokenProblem } from "./tokens";
import { chosenToolsets, toolsetProblem } from "../tools/toolsets";
import type { ToolGroup } from "../tools/types";
import type { UserRecord } from "./users";
import { normalizePublicUrl, publicUrlProblem } from "./oauth/metadata";
import { trustedProxyProblem } from "../http/client-address";
import { isBcryptHash, passwordSettingProblem } from "./passwords";
import { endpointProblem } from "../core/search/semantic/provider";
import { DEFAULT_ON_DEVICE_MODEL, ON_DEVICE_MODELS, pinProblem, type OnDeviceModel } from "../core/search/semantic/on-device-models";
import { DEFAULT_METRICS_PATH, metricsPathProblem } from "../http/metrics";

export interface RateLimitSettings {
  perMinute: number;
  burst: number;
}

export interface ServerSettings {
  host?: string;
  port?: number;
  /** Normalised origins (`scheme://host[:port]`). */
  allowedOrigins: string[];
  rateLimit?: RateLimitSettings;
  /** Where clients reach the server, without a trailing slash; OAuth derives every URL from it. */
  publicUrl?: string;
  /** Reverse proxies (addresses or ranges) whose X-Forwarded-For names the caller. */
  trustedProxies: string[];
}

/** OAuth sign-in (off unless enabled): discovery, registration and tokens. */
export interface OAuthConfig {
  enabled: boolean;
  /** Client ID Metadata Documents: https client_ids fetched by the server; off unless set. */
  clientIdMetadataDocuments: boolean;
}

export interface AppConfig {
  /** Empty when the file names no users; the caller then serves the default user. */
  users: UserRecord[];
  server: ServerSettings;
  limits: { maxResponseBytes?: number };
  audit: { file?: string };
  history: HistoryConfig;
  oauth: OAuthConfig;
  /** Semantic search: off unless the file has an enabled `embeddings` section. */
  embeddings: EmbeddingsConfig;
  metrics: MetricsConfig;
}

/**
 * Semantic search's provider: an OpenAI-compatible /v1/embeddings endpoint (Ollama, LM Studio,
 * llama.cpp, TEI, OpenAI), or a model run on this machine from a download the user asked for.
 */
export interface EmbeddingsConfig {
  enabled: boolean;
  /** Absent: the endpoint kind (the only kind before the on-device one). */
  kind?: "endpoint" | "on-device";
  url?: string;
  /** The endpoint's model name, or the on-device model's id in the manifest (or in pinnedModels). */
  model?: string;
  /** The environment variable that holds the API key: the file never holds the secret. */
  apiKeyEnv?: string;
  batchSize?: number;
  timeoutMs?: number;
  requestsPerMinute?: number;
  /** Put before questions / note passages: asymmetric models served by the endpoint (e5) want them. */
  queryPrefix?: string;
  passagePrefix?: string;
  /** On-device: where downloads go (absent: `models` in the data folder). */
  modelsFolder?: string;
  /** On-device: the hub or a mirror the download command fetches from (absent: the Hugging Face hub). */
  modelSource?: string;
  /** On-device: models pinned here (a revision and each file's size and SHA-256), beside or over the shipped ones. */
  pinnedModels?: OnDeviceModel[];
}

/** The Prometheus endpoint (off unless enabled). */
export interface MetricsConfig {
  enabled: boolean;
  path: string;
  /** `env:NAME` or `file:/absolute/path`: the key itself never goes into the file. */
  key?: string;
  /** A listener of its own; the main listener then has no metrics path. */
  listen?: { host: string; port: number };
}

/** The private history (SPEC §9): on by default; optionally pushed to a remote after commits. */
export interface HistoryConfig {
  enabled: boolean;
  author?: { name: string; email: string };
  /** An http(s) URL; `{vault}` stands for the vault's name (required when serving several vaults). */
  remote?: string;
  /** The environment variable that holds the remote's token: the file never holds the secret. */
  tokenEnv?: string;
  username?: string;
}

export class ConfigError extends Error {
  readonly source: string;
  readonly line: number | undefined;
  readonly key: string;

  constructor(source: string, line: number | undefined, key: string, problem: string) {
    super(`${source}${line === undefined ? "" : `:${line}`}: ${key ? `${key} ` : ""}${problem}`);
    this.name = "ConfigError";
    this.source = source;
    this.line = line;
    this.key = key;
  }
}

export { MIN_TOKEN_DISTINCT, MIN_TOKEN_LENGTH } from "./tokens";
export const TOKEN_ENV = "SECONDBRAIN_TOKEN";

const TOP_KEYS = ["users", "server", "limits", "audit", "history", "oauth", "embeddings", "metrics"] as const;
const ENDPOINT_KEYS = ["url", "api_key_env", "timeout_ms", "requests_per_minute", "query_prefix", "passage_prefix"] as const;
const ON_DEVICE_KEYS = ["models_folder", "model_source", "pinned_models"] as const;
const EMBEDDINGS_KEYS = ["enabled", "kind", "model", "batch_size", ...ENDPOINT_KEYS, ...ON_DEVICE_KEYS] as const;
const PINNED_MODEL_KEYS = ["id", "repo", "revision", "dims", "query_prefix", "passage_prefix", "multilingual", "files"] as const;
const MODEL_FILE_KEYS = ["path", "size", "sha256"] as const;
const METRICS_KEYS = ["enabled", "path", "key", "listen"] as const;
const OAUTH_KEYS = ["enabled", "client_id_metadata_documents"] as const;
const HISTORY_KEYS = ["enabled", "author_name", "author_email", "remote", "token_env", "username"] as const;
const USER_KEYS = ["name", "tokens", "token_sha256", "vaults", "read_only", "toolsets", "password"] as const;
const SERVER_KEYS = ["host", "port", "allowed_origins", "rate_limit", "public_url", "trusted_proxies"] as const;
const RATE_LIMIT_KEYS = ["per_minute", "burst"] as const;
const LIMIT_KEYS = ["max_response_bytes"] as const;
const AUDIT_KEYS = ["file"] as const;

/** A value in the document and the dotted key that leads to it; `anchor` locates empty values. */
interface Located {
  node: unknown;
  key: string;
  anchor?: unknown;
}

type Fields<K extends string> = Partial<Record<K, Located>>;

function rangeStart(node: unknown): number | undefined {
  if (typeof node !== "object" || node === null || !("range" in node)) return undefined;
  const range = (node as { range?: unknown }).range;
  return Array.isArray(range) && typeof range[0] === "number" ? range[0] : undefined;
}

class Reader {
  constructor(
    private readonly source: string,
    private readonly lines: LineCounter,
  ) {}

  fail(at: Located, problem: string): never {
    throw new ConfigError(this.source, this.lineOf(at), at.key, problem);
  }

  private lineOf(at: Located): number | undefined {
    const offset = rangeStart(at.node) ?? rangeStart(at.anchor);
    return offset === undefined ? undefined : this.lines.linePos(offset).line;
  }

  map<K extends string>(at: Located, allowed: readonly K[]): Fields<K> {
    if (at.node === null || at.node === undefined) return {};
    if (!isMap(at.node)) this.fail(at, "must be a mapping of keys to values");
    const fields: Fields<K> = {};
    for (const pair of at.node.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : "";
      const key = at.key ? `${at.key}.${name}` : name;
      if (!(allowed as readonly string[]).includes(name)) {
        this.fail({ node: pair.key, key }, `is not a known key; expected one of: ${allowed.join(", ")}`);
      }
      fields[name as K] = { node: pair.value, key, anchor: pair.key };
    }
    return fields;
  }

  private scalar(at: Located): unknown {
    return isScalar(at.node) ? at.node.value : at.node;
  }

  string(at: Located): string {
    const value = this.scalar(at);
    if (typeof value !== "string" || value.trim() === "") this.fail(at, "must be a non-empty string");
    return value.trim();
  }

  /** A string kept as written, spaces included: a prefix's trailing space is part of it. */
  verbatim(at: Located): string {
    const value = this.scalar(at);
    if (typeof value !== "string" || value === "") this.fail(at, "must be a non-empty string (quote it to keep a trailing space)");
    return value;
  }

  boolean(at: Located): boolean {
    const value = this.scalar(at);
    if (typeof value !== "boolean") this.fail(at, "must be true or false");
    return value;
  }

  integer(at: Located, minimum: number, maximum: number): number {
    const value = this.scalar(at);
    if (typeof value !== "number" || !Number.isInteger(value) || value < minimum || value > maximum) {
      this.fail(at, `must be a whole number from ${minimum} to ${maximum}`);
    }
    return value;
  }

  /** A sequence, or one scalar standing for a list of one. */
  list(at: Located): Located[] {
    if (at.node === null || at.node === undefined) return [];
    if (isScalar(at.node)) return [at];
    if (!isSeq(at.node)) this.fail(at, "must be a list");
    return at.node.items.map((node, index) => ({ node, key: `${at.key}[${index}]`, anchor: at.node }));
  }

  strings(at: Located | undefined): string[] {
    return at ? this.list(at).map((item) => this.string(item)) : [];
  }
}

interface TokenHash {
  hash: string;
  at: Located;
}

function readTokenHashes(reader: Reader, fields: Fields<(typeof USER_KEYS)[number]>): TokenHash[] {
  const plaintext = fields.tokens ? reader.list(fields.tokens) : [];
  const hashed = fields.token_sha256 ? reader.list(fields.token_sha256) : [];
  return [
    ...plaintext.map((at) => {
      const token = reader.string(at);
      const weak = weakTokenProblem(token);
      if (weak !== null) reader.fail(at, weak);
      return { hash: hashToken(token), at };
    }),
    ...hashed.map((at) => {
      const hash = reader.string(at).toLowerCase();
      if (!isTokenHash(hash)) reader.fail(at, "must be 64 hex digits (the SHA-256 of the token)");
      return { hash, at };
    }),
  ];
}

function readVaultNames(reader: Reader, at: Located | undefined): string[] {
  const items = at ? reader.list(at) : [];
  return items.map((item) => {
    const name = reader.string(item);
    if (!VAULT_NAME.test(name)) reader.fail(item, "must be a vault name (lower-case letters, digits, _ and -)");
    return name;
  });
}

/** Absent: every toolset. A list must name at least one; `host` is refused, having no tools here. */
function readToolsets(reader: Reader, at: Located): ToolGroup[] | undefined {
  const items = reader.list(at);
  if (items.length === 0) reader.fail(at, `names no toolset; leave toolsets out (or write [all]) for every toolset`);
  const names = items.map((item) => {
    const name = reader.string(item);
    const problem = toolsetProblem(name, "headless");
    if (problem !== null) reader.fail(item, problem);
    return name;
  });
  return chosenToolsets(names);
}

function readUser(reader: Reader, at: Located): { record: UserRecord; hashes: TokenHash[] } {
  const fields = reader.map(at, USER_KEYS);
  if (!fields.name) reader.fail(at, 'needs a "name"');
  const hashes = readTokenHashes(reader, fields);
  if (hashes.length === 0 && !fields.password) reader.fail(at, 'needs "tokens", "token_sha256" or (for OAuth sign-in) "password"');
  const record: UserRecord = {
    name: reader.string(fields.name),
    token_hashes: hashes.map((token) => token.hash),
    vaults: readVaultNames(reader, fields.vaults),
    read_only: fields.read_only ? reader.boolean(fields.read_only) : false,
  };
  const toolsets = fields.toolsets ? readToolsets(reader, fields.toolsets) : undefined;
  if (toolsets !== undefined) record.toolsets = toolsets;
  if (fields.password) {
    const reference = reader.string(fields.password);
    const problem = passwordSettingProblem(reference);
    if (problem !== null) reader.fail(fields.password, problem);
    record.password = reference;
  }
  return { record, hashes };
}

function readUsers(reader: Reader, at: Located | undefined): UserRecord[] {
  const names = new Set<string>();
  const owners = new Map<string, string>();
  const records: UserRecord[] = [];
  for (const item of at ? reader.list(at) : []) {
    const { record, hashes } = readUser(reader, item);
    if (names.has(record.name)) reader.fail(item, `repeats the user name "${record.name}"`);
    names.add(record.name);
    for (const token of hashes) {
      const owner = owners.get(token.hash);
      if (owner !== undefined) reader.fail(token.at, `is the same token as one of user "${owner}"; give each token once`);
      owners.set(token.hash, record.name);
    }
    records.push(record);
  }
  return records;
}

function readOrigin(reader: Reader, at: Located): string {
  const text = reader.string(at);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== text.replace(/\/$/, "")) {
    reader.fail(at, "must be an origin such as http://localhost:3000 (scheme, host and port only)");
  }
  return url.origin;
}

function readTrustedProxy(reader: Reader, at: Located): string {
  const text = reader.string(at);
  const problem = trustedProxyProblem(text);
  if (problem !== null) reader.fail(at, problem);
  return text;
}

function readRateLimit(reader: Reader, at: Located): RateLimitSettings {
  const fields = reader.map(at, RATE_LIMIT_KEYS);
  if (!fields.per_minute || !fields.burst) reader.fail(at, 'needs both "per_minute" and "burst"');
  return { perMinute: reader.integer(fields.per_minute, 1, 1_000_000), burst: reader.integer(fields.burst, 1, 1_000_000) };
}

function readServer(reader: Reader, at: Located | undefined): ServerSettings {
  const fields = at ? reader.map(at, SERVER_KEYS) : {};
  const settings: ServerSettings = {
    allowedOrigins: fields.allowed_origins ? reader.list(fields.allowed_origins).map((item) => readOrigin(reader, item)) : [],
    trustedProxies: fields.trusted_proxies ? reader.list(fields.trusted_proxies).map((item) => readTrustedProxy(reader, item)) : [],
  };
  if (fields.host) settings.host = reader.string(fields.host);
  if (fields.port) settings.port = reader.integer(fields.port, 0, 65535);
  if (fields.rate_limit) settings.rateLimit = readRateLimit(reader, fields.rate_limit);
  if (fields.public_url) settings.publicUrl = readPublicUrl(reader, fields.public_url);
  return settings;
}

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** https, or http on a loopback name: passwords and codes travel to this URL. */
function readPublicUrl(reader: Reader, at: Located): string {
  const text = reader.string(at);
  const problem = publicUrlProblem(text);
  if (problem !== null) reader.fail(at, problem);
  const url = new URL(text);
  if (url.protocol === "http:" && !LOOPBACK_NAMES.has(url.hostname)) {
    reader.fail(at, "must use https:// unless it names 127.0.0.1, localhost or [::1] (sign-in sends passwords and codes to it); put a TLS proxy in front of the server");
  }
  return normalizePublicUrl(text);
}

function readOAuth(reader: Reader, at: Located | undefined): OAuthConfig {
  const fields = at ? reader.map(at, OAUTH_KEYS) : {};
  return {
    enabled: fields.enabled ? reader.boolean(fields.enabled) : false,
    clientIdMetadataDocuments: fields.client_id_metadata_documents ? reader.boolean(fields.client_id_metadata_documents) : false,
  };
}

/** `9464` (on 127.0.0.1), `127.0.0.1:9464`, `0.0.0.0:9464` or `[::1]:9464`. */
export function parseListenAddress(text: string): { host: string; port: number } | null {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text.trim());
  if (!match) return null;
  const port = Number(match[2]);
  if (port > 65535) return null;
  const host = match[1] === undefined ? "127.0.0.1" : match[1].replace(/^\[(.*)\]$/, "$1");
  return { host, port };
}

function readMetrics(reader: Reader, at: Located | undefined): MetricsConfig {
  const fields = at ? reader.map(at, METRICS_KEYS) : {};
  const metrics: MetricsConfig = { enabled: fields.enabled ? reader.boolean(fields.enabled) : false, path: DEFAULT_METRICS_PATH };
  if (fields.path) {
    const path = reader.string(fields.path);
    const problem = metricsPathProblem(path);
    if (problem !== null) reader.fail(fields.path, problem);
    metrics.path = path;
  }
  if (fields.key) {
    const key = reader.string(fields.key);
    if (passwordSettingProblem(key) !== null || isBcryptHash(key)) {
      reader.fail(fields.key, "must be env:NAME (an environment variable holding the key) or file:/absolute/path (a file holding it); the key itself never goes into the config");
    }
    metrics.key = key;
  }
  if (fields.listen) {
    const value = isScalar(fields.listen.node) ? fields.listen.node.value : undefined;
    const listen = parseListenAddress(typeof value === "number" ? String(value) : reader.string(fields.listen));
    if (listen === null) reader.fail(fields.listen, "must be a port (9464, on 127.0.0.1) or HOST:PORT (127.0.0.1:9464, [::1]:9464)");
    metrics.listen = listen;
  }
  return metrics;
}

function readLimits(reader: Reader, at: Located | undefined): AppConfig["limits"] {
  const fields = at ? reader.map(at, LIMIT_KEYS) : {};
  return fields.max_response_bytes ? { maxResponseBytes: reader.integer(fields.max_response_bytes, 1024, 64 * 1024 * 1024) } : {};
}

function readAudit(reader: Reader, at: Located | undefined): AppConfig["audit"] {
  const fields = at ? reader.map(at, AUDIT_KEYS) : {};
  return fields.file ? { file: reader.string(fields.file) } : {};
}

function readHistory(reader: Reader, at: Located | undefined): HistoryConfig {
  const fields = at ? reader.map(at, HISTORY_KEYS) : {};
  const history: HistoryConfig = { enabled: fields.enabled ? reader.boolean(fields.enabled) : true };
  if (fields.author_name || fields.author_email) {
    if (!fields.author_name || !fields.author_email) reader.fail(fields.author_name ?? fields.author_email!, "needs both history.author_name and history.author_email");
    history.author = { name: reader.string(fields.author_name), email: reader.string(fields.author_email) };
  }
  if (fields.remote) {
    const remote = reader.string(fields.remote);
    if (!/^https?:\/\/[^/@\s]+(\/\S*)?$/i.test(remote)) {
      reader.fail(fields.remote, "must be an http(s) URL without credentials in it (put the token in the variable named by history.token_env)");
    }
    history.remote = remote;
  }
  if (fields.token_env) {
    const name = reader.string(fields.token_env);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) reader.fail(fields.token_env, "must be the name of an environment variable");
    history.tokenEnv = name;
  }
  if (fields.username) history.username = reader.string(fields.username);
  return history;
}

function readPinnedModel(reader: Reader, at: Located): OnDeviceModel {
  const fields = reader.map(at, PINNED_MODEL_KEYS);
  for (const key of ["id", "repo", "revision", "dims", "files"] as const) if (!fields[key]) reader.fail(at, `needs "${key}" (a pinned model is its repository at one revision, and each file's path, size and sha256)`);
  const repo = reader.string(fields.repo!);
  if (!/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(repo) || repo.split("/").some((part) => part === "." || part === "..")) reader.fail(fields.repo!, "must be a repository on the hub, owner/name");
  const revision = reader.string(fields.revision!).toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(revision)) reader.fail(fields.revision!, "must be the 40-hex-digit commit the checksums belong to");
  const files = reader.list(fields.files!).map((item) => {
    const file = reader.map(item, MODEL_FILE_KEYS);
    if (!file.path || !file.size || !file.sha256) reader.fail(item, "needs path, size and sha256");
    return { path: reader.string(file.path), size: reader.integer(file.size, 1, Number.MAX_SAFE_INTEGER), sha256: reader.string(file.sha256).toLowerCase() };
  });
  const model: OnDeviceModel = {
    id: reader.string(fields.id!),
    repo,
    revision,
    dims: reader.integer(fields.dims!, 1, 65_536),
    queryPrefix: fields.query_prefix ? reader.verbatim(fields.query_prefix) : "",
    passagePrefix: fields.passage_prefix ? reader.verbatim(fields.passage_prefix) : "",
    multilingual: fields.multilingual ? reader.boolean(fields.multilingual) : false,
    files,
  };
  const problem = pinProblem(model);
  if (problem !== null) reader.fail(at, problem);
  return model;
}

/** The on-device models a config can name: the shipped ones, with its own pins added or put in their place. */
export function onDeviceModels(config: EmbeddingsConfig): Record<string, OnDeviceModel> {
  const models: Record<string, OnDeviceModel> = { ...ON_DEVICE_MODELS };
  for (const model of config.pinnedModels ?? []) models[model.id] = model;
  return models;
}

function readEmbeddings(reader: Reader, at: Located | undefined): EmbeddingsConfig {
  if (!at) return { enabled: false };
  const fields = reader.map(at, EMBEDDINGS_KEYS);
  const embeddings: EmbeddingsConfig = { enabled: fields.enabled ? reader.boolean(fields.enabled) : true };
  if (!embeddings.enabled) return embeddings;
  const kind = fields.kind ? reader.string(fields.kind) : "endpoint";
  if (kind !== "endpoint" && kind !== "on-device") reader.fail(fields.kind!, 'must be "endpoint" (an OpenAI-compatible /v1/embeddings server) or "on-device" (a downloaded model run by this server)');
  if (fields.batch_size) embeddings.batchSize = reader.integer(fields.batch_size, 1, 2048);
  if (kind === "on-device") {
    embeddings.kind = "on-device";
    const stray = ENDPOINT_KEYS.find((key) => fields[key]);
    if (stray) reader.fail(fields[stray]!, 'belongs to kind "endpoint"; an on-device model sends nothing anywhere (remove it, or set kind: endpoint)');
    if (fields.pinned_models) embeddings.pinnedModels = reader.list(fields.pinned_models).map((item) => readPinnedModel(reader, item));
    embeddings.model = fields.model ? reader.string(fields.model) : DEFAULT_ON_DEVICE_MODEL;
    const known = onDeviceModels(embeddings);
    if (!known[embeddings.model]) reader.fail(fields.model!, `is not an on-device model; one of: ${Object.keys(known).join(", ")} (or pin your own under embeddings.pinned_models)`);
    if (fields.models_folder) {
      const folder = reader.string(fields.models_folder);
      if (!/^(\/|[A-Za-z]:[\\/])/.test(folder)) reader.fail(fields.models_folder, "must be an absolute path");
      embeddings.modelsFolder = folder;
    }
    if (fields.model_source) {
      const source = reader.string(fields.model_source);
      const problem = endpointProblem(source);
      if (problem) reader.fail(fields.model_source, problem.replace(/; give the endpoint.*$/, "; give the hub or a mirror, e.g. https://huggingface.co"));
      embeddings.modelSource = source;
    }
    return embeddings;
  }
  const stray = ON_DEVICE_KEYS.find((key) => fields[key]);
  if (stray) reader.fail(fields[stray]!, 'belongs to kind "on-device"; set kind: on-device to run a downloaded model');
  if (!fields.url || !fields.model) reader.fail(fields.url ?? fields.model ?? at, "needs both embeddings.url and embeddings.model (e.g. http://localhost:11434/v1 and nomic-embed-text), or kind: on-device");
  const url = reader.string(fields.url);
  const problem = endpointProblem(url);
  if (problem) reader.fail(fields.url, problem);
  embeddings.url = url;
  embeddings.model = reader.string(fields.model);
  if (fields.api_key_env) {
    const name = reader.string(fields.api_key_env);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) reader.fail(fields.api_key_env, "must be the name of an environment variable");
    embeddings.apiKeyEnv = name;
  }
  if (fields.timeout_ms) embeddings.timeoutMs = reader.integer(fields.timeout_ms, 100, 600_000);
  if (fields.requests_per_minute) embeddings.requestsPerMinute = reader.integer(fields.requests_per_minute, 1, 1_000_000);
  if (fields.query_prefix) embeddings.queryPrefix = reader.verbatim(fields.query_prefix);
  if (fields.passage_prefix) embeddings.passagePrefix = reader.verbatim(fields.passage_prefix);
  return embeddings;
}

/** Parses and validates a config file's text; `source` names the file in error messages. */
export function parseConfig(text: string, source = "config"): AppConfig {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const syntaxError = document.errors[0];
  // Only the error code: YAML messages can quote the offending text, which may be a token.
  if (syntaxError) throw new ConfigError(source, lines.linePos(syntaxError.pos[0]).line, "", `is not valid YAML (${syntaxError.code})`);
  const reader = new Reader(source, lines);
  const top = reader.map({ node: document.contents, key: "" }, TOP_KEYS);
  return {
    users: readUsers(reader, top.users),
    server: readServer(reader, top.server),
    limits: readLimits(reader, top.limits),
    audit: readAudit(reader, top.audit),
    history: readHistory(reader, top.history),
    oauth: readOAuth(reader, top.oauth),
    embeddings: readEmbeddings(reader, top.embeddings),
    metrics: readMetrics(reader, top.metrics),
  };
}

export async function loadConfigFile(path: string): Promise<AppConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError(path, undefined, "", `cannot be read (${code})`);
  }
  return parseConfig(text, path);
}

export interface DefaultToken {
  token: string;
  /** True when no token was given and this one was just made; the CLI shows it once. */
  generated: boolean;
}

/** The default user's token: `SECONDBRAIN_TOKEN` when set (and strong enough), else a fresh one. */
export function defaultToken(env: Readonly<Record<string, string | undefined>>): DefaultToken {
  const given = env[TOKEN_ENV]?.trim();
  if (!given) return { token: generateToken(), generated: true };
  const weak = weakTokenProblem(given);
  if (weak !== null) throw new ConfigError(TOKEN_ENV, undefined, "", `${weak}, or unset ${TOKEN_ENV} to have one generated`);
  return { token: given, generated: false };
}
