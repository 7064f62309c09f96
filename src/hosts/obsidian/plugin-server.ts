// Everything the plugin runs: one engine per MCP vault and the MCP server over HTTP on localhost.
// Vault hosts live as long as the plugin; the HTTP server can be stopped and started on its own.
import type { App } from "obsidian";
import type { OAuthService } from "../../auth/oauth/service";
import { endpointProblem, OpenAICompatibleProvider, type EmbeddingProvider } from "../../core/search/semantic/provider";
import { obsidianHttpPost } from "./http-post";
import { UserStore } from "../../auth/users";
import type { Clock, Hasher, Yielder } from "../../core/ports";
import { VaultRegistry } from "../../core/vault/directory";
import type { ReconcileReport } from "../../core/vault/engine";
import { Metrics } from "../../core/metrics";
import { buildHealth } from "../../http/health";
import { DEFAULT_METRICS_PATH, MetricsEndpoint } from "../../http/metrics";
import { MetricsScrape } from "../../http/metrics-scrape";
import type { ApprovalHost } from "../../http/oauth-approval";
import { startHttpServer, type RunningHttpServer } from "../../http/server";
import { PROTOCOL_VERSION } from "../../mcp/server";
import { createMcpRequestHandler } from "../../mcp/transport";
import { ALL_TOOLS } from "../../tools/registry";
import type { AnyToolDefinition } from "../../tools/types";
import { hostTools } from "./host-tools";
import { MetadataWaiter } from "./metadata-waiter";
import type { PluginLogger } from "./plugin-logger";
import { EMBEDDINGS_SECRET, secretStoreOf, vaultsOf, type PluginSettings } from "./settings";
import { ObsidianVaultHost } from "./vault-host";
import { onDeviceFolders, onDeviceProvider } from "./on-device";

export type ServerState =
  | { kind: "stopped" }
  | { kind: "starting" }
  | { kind: "running"; url: string; port: number }
  | { kind: "failed"; reason: string };

export interface PluginServerOptions {
  app: App;
  /** `manifest.dir`: the plugin folder, for index snapshots and the audit log. */
  pluginDir: string;
  version: string;
  logger: PluginLogger;
  hasher: Hasher;
  clock: Clock;
  yielder: Yielder;
  settings: () => PluginSettings;
  /** The OAuth state, which outlives server restarts; sign-in is offered while the settings turn it on. */
  oauth?: { service: OAuthService; approval: () => ApprovalHost };
}

/** Another program (or the last run, still closing) may hold the port a moment longer. */
const BIND_ATTEMPTS = 3;
const BIND_RETRY_MS = 250;

function isAddressInUse(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "EADDRINUSE";
}

export class PluginServer {
  private readonly options: PluginServerOptions;
  private readonly metadata: MetadataWaiter;
  private hosts: ObsidianVaultHost[] = [];
  private registry: VaultRegistry | null = null;
  private users: UserStore;
  private http: RunningHttpServer | null = null;
  private startedAt = 0;
  private stateListeners = new Set<(state: ServerState) => void>();
  private current: ServerState = { kind: "stopped" };
  readonly tools: readonly AnyToolDefinition[];
  /** Counted whether or not the endpoint is on, so turning it on needs no restart. */
  private readonly metrics: Metrics;
  private readonly metricsEndpoint: MetricsEndpoint;

  constructor(options: PluginServerOptions) {
    this.options = options;
    this.metadata = new MetadataWaiter(options.app);
    this.users = new UserStore(options.settings().users);
    this.tools = [...ALL_TOOLS, ...hostTools({ app: options.app, scopeOf: (name) => this.host(name)?.scope })];
    this.metrics = new Metrics(this.tools.map((tool) => tool.name));
    const scrape = new MetricsScrape({
      metrics: this.metrics,
      version: options.version,
      engines: () => this.hosts.map((host) => host.engine),
      oauth: () => (options.settings().oauth.enabled ? (options.oauth?.service.tokenCounts() ?? { issued: 0, active: 0 }) : { issued: 0, active: 0 }),
      yielder: options.yielder,
      now: () => options.clock.now(),
      logger: options.logger,
    });
    this.metricsEndpoint = new MetricsEndpoint({
      path: DEFAULT_METRICS_PATH,
      enabled: () => options.settings().metrics.enabled,
      keyHash: () => Promise.resolve(options.settings().metrics.keyHash ?? undefined),
      keyHelp: "Generate one in Obsidian under Settings → Second Brain MCP → Metrics.",
      render: () => scrape.render(),
      logger: options.logger,
    });
  }

  get state(): ServerState {
    return this.current;
  }

  private setState(state: ServerState): void {
    this.current = state;
    for (const listener of this.stateListeners) listener(state);
  }

  onState(listener: (state: ServerState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  vaultHosts(): readonly ObsidianVaultHost[] {
    return this.hosts;
  }

  host(name: string): ObsidianVaultHost | undefined {
    return this.hosts.find((host) => host.name === name);
  }

  /**
   * The provider the settings ask for, or null. The API key comes from Obsidian's secret storage
   * (1.11.4 and later); without one, only endpoints that need no key (a local Ollama) work. The
   * on-device kind runs from the plugin folder and never downloads by itself.
   */
  private embeddingProvider(settings: PluginSettings): EmbeddingProvider | null {
    const embeddings = settings.embeddings;
    if (embeddings.enabled && embeddings.kind === "on-device") {
      const folders = onDeviceFolders(this.options.app, this.options.pluginDir);
      return folders ? onDeviceProvider(embeddings, folders) : null;
    }
    if (!embeddings.enabled || endpointProblem(embeddings.url) !== null) return null;
    const apiKey = secretStoreOf(this.options.app)?.getSecret(EMBEDDINGS_SECRET) ?? null;
    return new OpenAICompatibleProvider({
      url: embeddings.url,
      model: embeddings.model,
      ...(apiKey ? { apiKey } : {}),
      post: obsidianHttpPost,
      sleep: (ms) => new Promise((resolve) => window.setTimeout(resolve, ms)),
      batchSize: embeddings.batchSize,
      timeoutMs: embeddings.timeoutMs,
      requestsPerMinute: embeddings.requestsPerMinute,
    });
  }

  /** Builds and starts a host per configured vault (at layout-ready). */
  async openVaults(): Promise<ReconcileReport[]> {
    const settings = this.options.settings();
    const embeddings = this.embeddingProvider(settings);
    this.hosts = vaultsOf(settings).map(
      (vault) =>
        new ObsidianVaultHost({
          app: this.options.app,
          name: vault.name,
          folder: vault.folder,
          indexFolder: `${this.options.pluginDir}/index/${vault.name}`,
          transactionFolder: `${this.options.pluginDir}/transactions/${vault.name}`,
          hasher: this.options.hasher,
          clock: this.options.clock,
          yielder: this.options.yielder,
          logger: this.options.logger,
          metadata: this.metadata,
          trashRetentionDays: settings.limits.trashRetentionDays,
          ...(embeddings ? { embeddings } : {}),
          ...(settings.history.enabled
            ? { history: { gitFolder: `${this.options.pluginDir}/history/${vault.name}.git`, author: { name: settings.history.authorName, email: settings.history.authorEmail } } }
            : {}),
        }),
    );
    const reports: ReconcileReport[] = [];
    for (const host of this.hosts) reports.push(await host.start());
    this.registry = new VaultRegistry(
      this.hosts.map((host) => host.engine),
      settings.defaultVault,
    );
    return reports;
  }

  /** The user table changed in the settings; requests in flight keep the old one. */
  reloadUsers(): void {
    this.users = new UserStore(this.options.settings().users);
  }

  async start(): Promise<ServerState> {
    const registry = this.registry;
    if (!registry) throw new Error("vaults are not open yet");
    if (this.http) return this.current;
    const settings = this.options.settings();
    this.setState({ kind: "starting" });
    const handleMcp = createMcpRequestHandler({
      tools: this.tools,
      directoryFor: (user) => registry.forUser(user),
      logger: this.options.logger,
      maxResponseBytes: settings.limits.maxResponseBytes,
      version: this.options.version,
      now: () => this.options.clock.now(),
      metrics: this.metrics,
    });
    for (let attempt = 1; ; attempt++) {
      try {
        this.startedAt = this.options.clock.now();
        this.http = await startHttpServer({
          host: settings.server.host,
          port: settings.server.port,
          authenticate: (token) => this.users.authenticate(token),
          handleMcp,
          health: () =>
            buildHealth({ version: this.options.version, vaultCount: this.hosts.length, startedAt: this.startedAt, protocolVersion: PROTOCOL_VERSION, now: this.options.clock.now() }),
          logger: this.options.logger,
          rateLimit: { perMinute: settings.limits.rateLimitPerMinute, burst: settings.limits.rateLimitBurst },
          drainMs: 2000,
          metrics: this.metrics,
          metricsEndpoint: this.metricsEndpoint,
          ...(settings.oauth.enabled && this.options.oauth
            ? {
                oauth: {
                  service: this.options.oauth.service,
                  findUser: (name: string) => this.users.users().find((user) => user.name === name) ?? null,
                  approval: this.options.oauth.approval(),
                },
              }
            : {}),
        });
        break;
      } catch (error) {
        if (isAddressInUse(error) && attempt < BIND_ATTEMPTS) {
          await new Promise((resolve) => window.setTimeout(resolve, BIND_RETRY_MS));
          continue;
        }
        const reason = isAddressInUse(error)
          ? `Port ${settings.server.port} is in use by another program. Choose another port in the settings, then start the server again.`
          : `The server could not start: ${error instanceof Error ? error.message : String(error)}`;
        this.options.logger.log({ level: "warn", event: "http_start_failed", port: settings.server.port, reason });
        this.setState({ kind: "failed", reason });
        return this.current;
      }
    }
    this.setState({ kind: "running", url: this.http.url, port: this.http.port });
    return this.current;
  }

  /** Stops listening at once (the port is free when this returns synchronously) and drains. */
  stop(): Promise<void> {
    const http = this.http;
    this.http = null;
    if (this.current.kind !== "failed") this.setState({ kind: "stopped" });
    return http ? http.close() : Promise.resolve();
  }

  /** Stops the server and every vault host, writing their index snapshots. */
  async close(): Promise<void> {
    await this.stop();
    for (const host of this.hosts) await host.stop();
    this.metadata.detach();
  }
}
