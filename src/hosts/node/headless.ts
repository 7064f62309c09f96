// The headless server: vault hosts, the registry, users, and MCP over HTTP, started and stopped in
// order. The CLI is a thin shell around this; end-to-end tests start it the same way.
import { describeFailure } from "../../core/errors";
import { UserStore, type UserRecord } from "../../auth/users";
import { nodeOAuthCrypto } from "../../auth/oauth/node-crypto";
import { OAuthService } from "../../auth/oauth/service";
import { fetchMetadataDocument, MetadataDocumentCache } from "../../auth/oauth/metadata-document";
import type { UserInfo } from "../../tools/types";
import { FileOAuthPersistence } from "./oauth-state";
import { takeRevocations } from "./sign-ins";
import { PasswordChecker, readPasswordReference } from "../../auth/passwords";
import { hashToken } from "../../auth/tokens";
import { Metrics } from "../../core/metrics";
import { DEFAULT_METRICS_PATH, MetricsEndpoint, MIN_METRICS_KEY_LENGTH, startMetricsServer, type RunningMetricsServer } from "../../http/metrics";
import { MetricsScrape } from "../../http/metrics-scrape";
import { buildHealth } from "../../http/health";
import { DEFAULT_RATE_LIMIT } from "../../http/rate-limit";
import { startHttpServer, type RunningHttpServer } from "../../http/server";
import { createMcpRequestHandler, type McpRequestHandler } from "../../mcp/transport";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../mcp/truncate";
import { VaultRegistry } from "../../core/vault/directory";
import type { Logger } from "../../core/ports";
import { ALL_TOOLS } from "../../tools/registry";
import { NodeVaultHost, type EmbeddingSettings, type NodeVaultOptions, type OnDeviceEmbeddingSettings } from "./host";
import { setImmediateYielder } from "./services";
import { PROTOCOL_VERSION, VERSION } from "./version";

export interface HeadlessVault {
  name: string;
  root: string;
}

export interface HeadlessOptions {
  vaults: HeadlessVault[];
  dataDir: string;
  host: string;
  port: number;
  users: UserRecord[];
  logger: Logger;
  allowedOrigins?: string[];
  /** Reverse proxies whose X-Forwarded-For names the caller (server.trusted_proxies). */
  trustedProxies?: string[];
  rateLimit?: { perMinute: number; burst: number };
  maxResponseBytes?: number;
  watch?: boolean;
  /** Each vault's private history in the data folder (SPEC §9); on unless false. */
  history?: boolean | HeadlessHistory;
  /** Semantic and hybrid search through an OpenAI-compatible endpoint or an on-device model; absent, lexical search only. */
  embeddings?: EmbeddingSettings | OnDeviceEmbeddingSettings;
  /** OAuth sign-in; absent, clients connect with pasted bearer tokens only. */
  oauth?: HeadlessOAuth;
  /** The Prometheus endpoint; absent, it is off (nothing is counted and no path answers). */
  metrics?: HeadlessMetrics;
}

export interface HeadlessMetrics {
  /** Default /metrics. */
  path?: string;
  /** `env:NAME` or `file:/absolute/path` holding the key scrapers must send; absent, no key. */
  key?: string;
  /** A listener of its own (the main listener then has no metrics path); loopback unless chosen. */
  listen?: { host: string; port: number };
  /** How long vault gauges are reused between scrapes (tests set 0). */
  vaultMaxAgeMs?: number;
}

export interface HeadlessOAuth {
  /** Where clients reach the server (e.g. https://brain.example.com); default the listen address. */
  publicUrl?: string;
  /** Client ID Metadata Documents: a client_id that is an https URL is fetched (the one outgoing request). */
  clientIdMetadataDocuments?: boolean;
  /** Tests only, never from the config file: documents may be fetched over http from loopback. */
  metadataDocumentsOverLoopbackHttp?: boolean;
}

export interface HeadlessHistory {
  author?: { name: string; email: string };
  /** Pushed to after commits; `{vault}` in the URL stands for the vault's name. */
  remote?: { url: string; token?: string; username?: string };
}

/** The history settings of one vault: the remote URL with its name filled in. */
function historyFor(history: HeadlessOptions["history"], vault: string): NodeVaultOptions["history"] {
  if (history === undefined || typeof history === "boolean") return history;
  const settings: Exclude<NodeVaultOptions["history"], boolean | undefined> = {};
  if (history.author) settings.author = history.author;
  if (history.remote) settings.push = { ...history.remote, url: history.remote.url.split("{vault}").join(encodeURIComponent(vault)) };
  return settings;
}

export { DEFAULT_MAX_RESPONSE_BYTES };

/** Each user's password reference by name. */
function passwordsOf(records: readonly UserRecord[]): ReadonlyMap<string, string> {
  return new Map(records.flatMap((record) => (record.password === undefined ? [] : [[record.name, record.password] as const])));
}

export { DEFAULT_RATE_LIMIT };

export class HeadlessServer {
  readonly hosts: NodeVaultHost[];
  readonly registry: VaultRegistry;
  private readonly options: HeadlessOptions;
  private users: UserStore;
  private passwords: ReadonlyMap<string, string>;
  private http: RunningHttpServer | null = null;
  private oauth: OAuthService | null = null;
  private readonly startedAt = Date.now();
  private readonly handleMcp: McpRequestHandler;
  private readonly metrics: Metrics | null;
  private metricsServer: RunningMetricsServer | null = null;

  constructor(options: HeadlessOptions) {
    this.options = options;
    const remote = typeof options.history === "object" ? options.history.remote : undefined;
    if (remote && options.vaults.length > 1 && !remote.url.includes("{vault}")) {
      throw new Error("history.remote must contain {vault} when several vaults are served: each vault has its own history and needs its own remote repository.");
    }
    this.hosts = options.vaults.map(
      (vault) => new NodeVaultHost({ name: vault.name, root: vault.root, dataDir: options.dataDir, logger: options.logger, watch: options.watch, history: historyFor(options.history, vault.name), ...(options.embeddings ? { embeddings: options.embeddings } : {}) }),
    );
    this.registry = new VaultRegistry(this.hosts.map((host) => host.engine));
    this.users = new UserStore(options.users);
    this.passwords = passwordsOf(options.users);
    this.metrics = options.metrics ? new Metrics(ALL_TOOLS.map((tool) => tool.name)) : null;
    this.handleMcp = createMcpRequestHandler({
      tools: ALL_TOOLS,
      directoryFor: (user) => this.registry.forUser(user),
      logger: options.logger,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      version: VERSION,
      now: () => Date.now(),
      ...(this.metrics ? { metrics: this.metrics } : {}),
    });
  }

  /** Waits until every vault's history has recorded what was queued, its first snapshot included. */
  async historyIdle(): Promise<void> {
    for (const host of this.hosts) await host.historyIdle();
  }

  /** The MCP endpoint, e.g. http://127.0.0.1:27125/mcp. */
  get url(): string {
    if (!this.http) throw new Error("server not started");
    return this.http.url;
  }

  get port(): number {
    if (!this.http) throw new Error("server not started");
    return this.http.port;
  }

  /** Where the metrics endpoint answers, or null when it is off (or its listener failed). */
  get metricsUrl(): string | null {
    const settings = this.options.metrics;
    if (!settings || !this.http) return null;
    const path = settings.path ?? DEFAULT_METRICS_PATH;
    if (!settings.listen) return `${this.http.origin}${path}`;
    return this.metricsServer ? `${this.metricsServer.origin}${path}` : null;
  }

  /** Signs out the clients `sign-ins revoke` asked for (REVOCATIONS_FILE); called at start and at SIGHUP. */
  async applyRevocations(): Promise<void> {
    if (!this.oauth) return;
    try {
      for (const revocation of await takeRevocations(this.options.dataDir)) await this.oauth.revoke(revocation.client_id, revocation.user);
    } catch (error) {
      this.options.logger.log({ level: "warn", event: "oauth_revocations_failed", reason: describeFailure(error) });
    }
  }

  /** Swaps the user table atomically (SIGHUP reload); requests in flight keep the old one. */
  setUsers(records: readonly UserRecord[]): void {
    this.users = new UserStore(records);
    this.passwords = passwordsOf(records);
    // A user taken out of the config takes its OAuth sign-ins along, also if the name comes back.
    void this.oauth?.forgetUsersExcept(new Set(records.map((record) => record.name)));
  }

  private metadataDocuments(oauth: HeadlessOAuth): { cache: MetadataDocumentCache; allowLoopbackHttp: boolean } {
    const allowLoopbackHttp = oauth.metadataDocumentsOverLoopbackHttp === true;
    return { cache: new MetadataDocumentCache((clientId) => fetchMetadataDocument(clientId, { allowLoopbackHttp })), allowLoopbackHttp };
  }

  private findUser(name: string): UserInfo | null {
    return this.users.users().find((user) => user.name === name) ?? null;
  }

  /** Loads and reconciles every vault, then listens. */
  async start(): Promise<void> {
    // Before any vault opens: a bad metrics key stops the start with nothing to close.
    const metricsEndpoint = await this.metricsEndpoint();
    for (const host of this.hosts) await host.start();
    if (this.options.oauth) {
      this.oauth = await OAuthService.open({ crypto: nodeOAuthCrypto, logger: this.options.logger, persistence: new FileOAuthPersistence(this.options.dataDir) });
      await this.oauth.forgetUsersExcept(new Set(this.users.users().map((user) => user.name)));
      // Asked for by `sign-ins revoke` while no server, or a stopping one, could take them.
      await this.applyRevocations();
    }
    const checker = new PasswordChecker(() => this.passwords, this.options.logger);
    const oauth = this.oauth
      ? {
          service: this.oauth,
          findUser: (name: string) => this.findUser(name),
          verifyPassword: (name: string, password: string) => checker.verify(name, password),
          passwordsConfigured: () => this.passwords.size > 0,
          ...(this.options.oauth?.publicUrl ? { publicUrl: this.options.oauth.publicUrl } : {}),
          ...(this.options.oauth?.clientIdMetadataDocuments === true ? { metadataDocuments: this.metadataDocuments(this.options.oauth) } : {}),
        }
      : undefined;
    this.http = await startHttpServer({
      host: this.options.host,
      port: this.options.port,
      authenticate: (token) => this.users.authenticate(token),
      handleMcp: this.handleMcp,
      health: () => this.health(),
      logger: this.options.logger,
      allowedOrigins: this.options.allowedOrigins,
      ...(this.options.trustedProxies ? { trustedProxies: this.options.trustedProxies } : {}),
      rateLimit: this.options.rateLimit ?? DEFAULT_RATE_LIMIT,
      ...(oauth ? { oauth } : {}),
      ...(this.metrics ? { metrics: this.metrics } : {}),
      ...(metricsEndpoint && !this.options.metrics?.listen ? { metricsEndpoint } : {}),
    });
    const listen = this.options.metrics?.listen;
    if (metricsEndpoint && listen) {
      try {
        this.metricsServer = await startMetricsServer({ host: listen.host, port: listen.port, endpoint: metricsEndpoint, logger: this.options.logger });
      } catch (error) {
        // The vaults are served either way; the log says why the numbers are not.
        this.options.logger.log({ level: "error", event: "metrics_listener_failed", host: listen.host, port: listen.port, error: (error as NodeJS.ErrnoException).code ?? "unknown" });
      }
    }
    this.options.logger.log({ level: "info", event: "startup", vaults: this.hosts.length, url: this.http.url, version: VERSION });
  }

  /**
   * The endpoint, its key checked now: a key that cannot be read or is too short stops the start
   * rather than leaving the numbers open or every scrape refused.
   */
  private async metricsEndpoint(): Promise<MetricsEndpoint | null> {
    const settings = this.options.metrics;
    const metrics = this.metrics;
    if (!settings || !metrics) return null;
    const logger = this.options.logger;
    const reference = settings.key;
    if (reference !== undefined) {
      const key = await readPasswordReference(reference);
      if (key === null) throw new Error(`metrics.key names ${reference.startsWith("env:") ? `the environment variable ${reference.slice(4)}, which is not set` : "a file that cannot be read"}; set it, or remove metrics.key`);
      if (key.length < MIN_METRICS_KEY_LENGTH) throw new Error(`the metrics key must be at least ${MIN_METRICS_KEY_LENGTH} characters long; generate one with \`openssl rand -hex 32\``);
    } else if (!settings.listen) {
      logger.log({ level: "warn", event: "metrics_unprotected", path: settings.path ?? DEFAULT_METRICS_PATH, hint: "anyone who reaches the MCP port can read the counts: set metrics.key, or metrics.listen for a listener of its own" });
    }
    const scrape = new MetricsScrape({
      metrics,
      version: VERSION,
      engines: () => this.hosts.map((host) => host.engine),
      ...(this.oauth ? { oauth: () => this.oauth?.tokenCounts() ?? { issued: 0, active: 0 } } : {}),
      yielder: setImmediateYielder,
      now: () => Date.now(),
      logger,
      ...(settings.vaultMaxAgeMs !== undefined ? { maxAgeMs: settings.vaultMaxAgeMs } : {}),
    });
    return new MetricsEndpoint({
      path: settings.path ?? DEFAULT_METRICS_PATH,
      render: () => scrape.render(),
      logger,
      ...(reference !== undefined
        ? {
            keyHash: async () => {
              const key = await readPasswordReference(reference);
              return key === null || key.length < MIN_METRICS_KEY_LENGTH ? null : hashToken(key);
            },
          }
        : {}),
    });
  }

  private health(): Record<string, unknown> {
    return buildHealth({ version: VERSION, vaultCount: this.hosts.length, startedAt: this.startedAt, protocolVersion: PROTOCOL_VERSION, now: Date.now() });
  }

  /** Stops accepting requests, drains them, then flushes every vault's index. */
  async stop(): Promise<void> {
    await this.http?.close();
    this.http = null;
    await this.metricsServer?.close();
    this.metricsServer = null;
    await this.oauth?.save();
    for (const host of this.hosts) await host.stop();
    this.options.logger.log({ level: "info", event: "shutdown" });
  }
}
