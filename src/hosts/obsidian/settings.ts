// The plugin's settings as stored in data.json. Tokens are kept only as SHA-256 hashes: a plaintext
// token exists in memory for the one time it is shown. Whatever data.json holds is checked field by
// field, so a hand edit with a typo falls back to the default for that field instead of breaking.
import { isTokenHash } from "../../auth/tokens";
import type { UserRecord } from "../../auth/users";
import { VAULT_NAME } from "../../core/vault/directory";
import { DEFAULT_TRASH_RETENTION_DAYS } from "../../core/write/trash";
import { DEFAULT_RATE_LIMIT } from "../../http/rate-limit";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../mcp/truncate";
import { TOOL_GROUPS, type ToolGroup } from "../../tools/types";
import { DEFAULT_BATCH_SIZE, DEFAULT_REQUESTS_PER_MINUTE, DEFAULT_TIMEOUT_MS, endpointProblem } from "../../core/search/semantic/provider";
import { DEFAULT_MODEL_SOURCE, DEFAULT_ON_DEVICE_MODEL, ON_DEVICE_MODELS, pinProblem, type OnDeviceModel } from "../../core/search/semantic/on-device-models";
import { DEFAULT_RUNTIME_SOURCE } from "../../core/search/semantic/on-device-runtime";

// The headless server defaults to 27125, so both can run on one machine.
export const DEFAULT_PORT = 27126;
export const DEFAULT_BIND = "127.0.0.1";
export const DEFAULT_VAULT_NAME = "default";
export const DEFAULT_AUDIT_FILE = "audit.jsonl";
/**
 * The response limit earlier versions stored as their default. Clients cut results that long, so a
 * stored value equal to it follows the current default; any other value was chosen and is kept.
 */
const FORMER_DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;

export interface StoredUser extends UserRecord {
  /** Milliseconds since the epoch; shown in the users list. */
  created: number;
}

export interface VaultSetting {
  name: string;
  /** Folder of the Obsidian vault; "" is the whole vault. */
  folder: string;
}

export interface PluginSettings {
  server: { enabled: boolean; port: number; host: string };
  users: StoredUser[];
  /** Besides `default`, the whole vault, which always exists. */
  vaults: VaultSetting[];
  defaultVault: string;
  limits: { maxResponseBytes: number; rateLimitPerMinute: number; rateLimitBurst: number; trashRetentionDays: number };
  audit: { enabled: boolean; file: string };
  /** The private history of each vault (SPEC §9), in the plugin folder. */
  history: { enabled: boolean; authorName: string; authorEmail: string };
  /**
   * OAuth sign-in from the browser, approved in Obsidian: off unless turned on. `user` is whom
   * sign-ins act as (null: the only user, when there is one); `approvalSeconds` how long a request
   * waits for Allow or Deny.
   */
  oauth: { enabled: boolean; user: string | null; approvalSeconds: number };
  /** Semantic search through an OpenAI-compatible endpoint; the API key lives in Obsidian's secret storage, not here. */
  embeddings: EmbeddingSettings;
  /**
   * The Prometheus endpoint at /metrics on the plugin's server: off unless turned on. The key is
   * generated in the settings tab and kept only as its SHA-256; null: no key.
   */
  metrics: { enabled: boolean; keyHash: string | null };
}

export const DEFAULT_APPROVAL_SECONDS = 300;

export interface EmbeddingSettings {
  enabled: boolean;
  /** An OpenAI-compatible endpoint, or a model run in Obsidian from files downloaded on request. */
  kind: "endpoint" | "on-device";
  url: string;
  model: string;
  batchSize: number;
  timeoutMs: number;
  requestsPerMinute: number;
  /** The on-device model's id: one of the manifest, or of pinnedModels. */
  onDeviceModel: string;
  /** Where the Download button fetches model files (the Hugging Face hub or a mirror). */
  modelSource: string;
  /** Where it fetches the runtime's npm tarballs (the npm registry or a mirror). */
  runtimeSource: string;
  /** Models pinned in data.json (revision, each file's size and SHA-256), beside or over the shipped ones. */
  pinnedModels: OnDeviceModel[];
}

/** The on-device models the settings can name: the shipped ones, with data.json's pins added or in their place. */
export function onDeviceModelsOf(embeddings: EmbeddingSettings): Record<string, OnDeviceModel> {
  const models: Record<string, OnDeviceModel> = { ...ON_DEVICE_MODELS };
  for (const model of embeddings.pinnedModels) models[model.id] = model;
  return models;
}

function readPinnedModel(value: unknown): OnDeviceModel | null {
  if (!isObject(value) || !Array.isArray(value.files)) return null;
  const { id, repo, revision, dims } = value;
  if (typeof id !== "string" || typeof repo !== "string" || typeof revision !== "string" || typeof dims !== "number") return null;
  if (!/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(repo) || repo.split("/").some((part) => part === "." || part === "..") || !/^[0-9a-f]{40}$/.test(revision)) return null;
  const files = value.files.map((file) => (isObject(file) ? { path: String(file.path), size: Number(file.size), sha256: String(file.sha256) } : { path: "", size: 0, sha256: "" }));
  const model: OnDeviceModel = {
    id,
    repo,
    revision,
    dims,
    queryPrefix: typeof value.queryPrefix === "string" ? value.queryPrefix : "",
    passagePrefix: typeof value.passagePrefix === "string" ? value.passagePrefix : "",
    multilingual: boolOr(value.multilingual, false),
    files,
  };
  return pinProblem(model) === null ? model : null;
}

/** Obsidian's secret storage as far as used here: `app.secretStorage` exists from 1.11.4 on, so it is looked for, not assumed. */
export interface SecretStore {
  getSecret(id: string): string | null;
  setSecret(id: string, secret: string): void;
}

export function secretStoreOf(app: object): SecretStore | null {
  const store = (app as { secretStorage?: unknown }).secretStorage;
  return typeof store === "object" && store !== null && typeof (store as SecretStore).getSecret === "function" ? (store as SecretStore) : null;
}

/** The secret storage entry holding the endpoint's API key (Obsidian 1.11.4 and later). */
export const EMBEDDINGS_SECRET = "secondbrain-mcp-embeddings-key";
export const DEFAULT_EMBEDDINGS_URL = "http://localhost:11434/v1";
export const DEFAULT_EMBEDDINGS_MODEL = "nomic-embed-text";

export const DEFAULT_HISTORY_AUTHOR = { name: "Second Brain MCP", email: "secondbrain-mcp@localhost" } as const;

export function defaultSettings(): PluginSettings {
  return {
    server: { enabled: true, port: DEFAULT_PORT, host: DEFAULT_BIND },
    users: [],
    vaults: [],
    defaultVault: DEFAULT_VAULT_NAME,
    limits: {
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      rateLimitPerMinute: DEFAULT_RATE_LIMIT.perMinute,
      rateLimitBurst: DEFAULT_RATE_LIMIT.burst,
      trashRetentionDays: DEFAULT_TRASH_RETENTION_DAYS,
    },
    audit: { enabled: false, file: DEFAULT_AUDIT_FILE },
    history: { enabled: true, authorName: DEFAULT_HISTORY_AUTHOR.name, authorEmail: DEFAULT_HISTORY_AUTHOR.email },
    oauth: { enabled: false, user: null, approvalSeconds: DEFAULT_APPROVAL_SECONDS },
    embeddings: {
      enabled: false,
      url: DEFAULT_EMBEDDINGS_URL,
      model: DEFAULT_EMBEDDINGS_MODEL,
      batchSize: DEFAULT_BATCH_SIZE,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      requestsPerMinute: DEFAULT_REQUESTS_PER_MINUTE,
      kind: "endpoint",
      onDeviceModel: DEFAULT_ON_DEVICE_MODEL,
      modelSource: DEFAULT_MODEL_SOURCE,
      runtimeSource: DEFAULT_RUNTIME_SOURCE,
      pinnedModels: [],
    },
    metrics: { enabled: false, keyHash: null },
  };
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function boolOr(value: unknown, fallback: boolean): boolean {
  return typeof value === "boolean" ? value : fallback;
}

function intOr(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : fallback;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** Toolsets as the settings keep them: undefined (every toolset) for none or all of them. */
export function storedToolsets(names: readonly unknown[]): ToolGroup[] | undefined {
  const toolsets = TOOL_GROUPS.filter((group) => names.includes(group));
  return toolsets.length === 0 || toolsets.length === TOOL_GROUPS.length ? undefined : toolsets;
}

/** Absent or not a list: every toolset. Names that are not toolsets are dropped. */
function readToolsets(value: unknown): ToolGroup[] | undefined {
  return Array.isArray(value) ? storedToolsets(value) : undefined;
}

function readUser(value: unknown): StoredUser | null {
  if (!isObject(value) || typeof value.name !== "string" || value.name.trim() === "") return null;
  const user: StoredUser = {
    name: value.name.trim(),
    token_hashes: stringList(value.token_hashes).filter(isTokenHash),
    vaults: stringList(value.vaults).filter((name) => VAULT_NAME.test(name)),
    read_only: boolOr(value.read_only, false),
    created: intOr(value.created, 0, 0, Number.MAX_SAFE_INTEGER),
  };
  const toolsets = readToolsets(value.toolsets);
  if (toolsets !== undefined) user.toolsets = toolsets;
  return user;
}

function readVault(value: unknown): VaultSetting | null {
  if (!isObject(value) || typeof value.name !== "string" || !VAULT_NAME.test(value.name) || value.name === DEFAULT_VAULT_NAME) return null;
  return { name: value.name, folder: typeof value.folder === "string" ? value.folder.trim() : "" };
}

/** Settings from whatever `loadData()` returned (null on first run). */
export function readSettings(data: unknown): PluginSettings {
  const settings = defaultSettings();
  if (!isObject(data)) return settings;
  const server = isObject(data.server) ? data.server : {};
  settings.server = {
    enabled: boolOr(server.enabled, settings.server.enabled),
    port: intOr(server.port, settings.server.port, 1, 65535),
    host: stringOr(server.host, settings.server.host),
  };
  const seenUsers = new Set<string>();
  for (const user of Array.isArray(data.users) ? data.users.map(readUser) : []) {
    if (user && !seenUsers.has(user.name)) {
      seenUsers.add(user.name);
      settings.users.push(user);
    }
  }
  const seenVaults = new Set<string>([DEFAULT_VAULT_NAME]);
  for (const vault of Array.isArray(data.vaults) ? data.vaults.map(readVault) : []) {
    if (vault && !seenVaults.has(vault.name)) {
      seenVaults.add(vault.name);
      settings.vaults.push(vault);
    }
  }
  settings.defaultVault = typeof data.defaultVault === "string" && seenVaults.has(data.defaultVault) ? data.defaultVault : DEFAULT_VAULT_NAME;
  const limits = isObject(data.limits) ? data.limits : {};
  settings.limits = {
    maxResponseBytes:
      limits.maxResponseBytes === FORMER_DEFAULT_MAX_RESPONSE_BYTES
        ? settings.limits.maxResponseBytes
        : intOr(limits.maxResponseBytes, settings.limits.maxResponseBytes, 4096, 64 * 1024 * 1024),
    rateLimitPerMinute: intOr(limits.rateLimitPerMinute, settings.limits.rateLimitPerMinute, 1, 1_000_000),
    rateLimitBurst: intOr(limits.rateLimitBurst, settings.limits.rateLimitBurst, 1, 1_000_000),
    trashRetentionDays: intOr(limits.trashRetentionDays, settings.limits.trashRetentionDays, 1, 3650),
  };
  const audit = isObject(data.audit) ? data.audit : {};
  settings.audit = { enabled: boolOr(audit.enabled, false), file: stringOr(audit.file, DEFAULT_AUDIT_FILE) };
  const history = isObject(data.history) ? data.history : {};
  settings.history = {
    enabled: boolOr(history.enabled, true),
    authorName: stringOr(history.authorName, DEFAULT_HISTORY_AUTHOR.name),
    authorEmail: stringOr(history.authorEmail, DEFAULT_HISTORY_AUTHOR.email),
  };
  const oauth = isObject(data.oauth) ? data.oauth : {};
  settings.oauth = {
    enabled: boolOr(oauth.enabled, false),
    user: typeof oauth.user === "string" && seenUsers.has(oauth.user) ? oauth.user : null,
    approvalSeconds: intOr(oauth.approvalSeconds, DEFAULT_APPROVAL_SECONDS, 1, DEFAULT_APPROVAL_SECONDS),
  };
  const embeddings = isObject(data.embeddings) ? data.embeddings : {};
  const url = stringOr(embeddings.url, DEFAULT_EMBEDDINGS_URL);
  settings.embeddings = {
    enabled: boolOr(embeddings.enabled, false),
    url: endpointProblem(url) === null ? url : DEFAULT_EMBEDDINGS_URL,
    model: stringOr(embeddings.model, DEFAULT_EMBEDDINGS_MODEL),
    batchSize: intOr(embeddings.batchSize, DEFAULT_BATCH_SIZE, 1, 2048),
    timeoutMs: intOr(embeddings.timeoutMs, DEFAULT_TIMEOUT_MS, 100, 600_000),
    requestsPerMinute: intOr(embeddings.requestsPerMinute, DEFAULT_REQUESTS_PER_MINUTE, 1, 1_000_000),
    kind: embeddings.kind === "on-device" ? "on-device" : "endpoint",
    onDeviceModel: DEFAULT_ON_DEVICE_MODEL,
    modelSource: DEFAULT_MODEL_SOURCE,
    runtimeSource: DEFAULT_RUNTIME_SOURCE,
    pinnedModels: Array.isArray(embeddings.pinnedModels) ? embeddings.pinnedModels.map(readPinnedModel).filter((model): model is OnDeviceModel => model !== null) : [],
  };
  const onDevice = stringOr(embeddings.onDeviceModel, DEFAULT_ON_DEVICE_MODEL);
  if (onDeviceModelsOf(settings.embeddings)[onDevice]) settings.embeddings.onDeviceModel = onDevice;
  const modelSource = stringOr(embeddings.modelSource, DEFAULT_MODEL_SOURCE);
  if (endpointProblem(modelSource) === null) settings.embeddings.modelSource = modelSource;
  const runtimeSource = stringOr(embeddings.runtimeSource, DEFAULT_RUNTIME_SOURCE);
  if (endpointProblem(runtimeSource) === null) settings.embeddings.runtimeSource = runtimeSource;
  const metrics = isObject(data.metrics) ? data.metrics : {};
  settings.metrics = {
    enabled: boolOr(metrics.enabled, false),
    // A hand-edited hash that is not one is kept: it matches no key, so the numbers stay closed.
    keyHash: typeof metrics.keyHash === "string" && metrics.keyHash !== "" ? metrics.keyHash : null,
  };
  return settings;
}

/** The user OAuth sign-ins act as: the one chosen, else the only one; or a sentence saying what to do. */
export function oauthUser(settings: PluginSettings): StoredUser | string {
  const chosen = settings.oauth.user === null ? undefined : settings.users.find((user) => user.name === settings.oauth.user);
  if (chosen) return chosen;
  if (settings.oauth.user === null && settings.users.length === 1) return settings.users[0]!;
  if (settings.users.length === 0) return "Nobody can sign in yet: in Obsidian, open Settings → Second Brain MCP and add a user, then start the connection again in the application.";
  return "Obsidian does not know which user browser sign-ins act as: open Settings → Second Brain MCP, choose one under “Sign-in from the browser”, then start the connection again in the application.";
}

/** Every MCP vault the settings define, `default` (the whole vault) first. */
export function vaultsOf(settings: PluginSettings): VaultSetting[] {
  return [{ name: DEFAULT_VAULT_NAME, folder: "" }, ...settings.vaults];
}
