// The headless server: vault hosts, the registry, users, and MCP over HTTP, started and stopped in
// order. The CLI is a thin shell around this; end-to-end tests start it the same way.
import { UserStore, type UserRecord } from "../../auth/users";
import { nodeOAuthCrypto } from "../../auth/oauth/node-crypto";
import { OAuthService } from "../../auth/oauth/service";
import { fetchMetadataDocument, MetadataDocumentCache } from "../../auth/oauth/metadata-document";
import type { UserInfo } from "../../tools/types";
import { FileOAuthPersistence } from "./oauth-state";
import { PasswordChecker } from "../../auth/passwords";
import { buildHealth } from "../../http/health";
import { DEFAULT_RATE_LIMIT } from "../../http/rate-limit";
import { startHttpServer, type RunningHttpServer } from "../../http/server";
import { createMcpRequestHandler, type McpRequestHandler } from "../../mcp/transport";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../mcp/truncate";
import { VaultRegistry } from "../../core/vault/directory";
import type { Logger } from "../../core/ports";
import { ALL_TOOLS } from "../../tools/registry";
import { NodeVaultHost, type EmbeddingSettings, type NodeVaultOptions } from "./host";
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
  rateLimit?: { perMinute: number; burst: number };
  maxResponseBytes?: number;
  watch?: boolean;
  /** Each vault's private history in the data folder (SPEC §9); on unless false. */
  history?: boolean | HeadlessHistory;
  /** Semantic and hybrid search through an OpenAI-compatible endpoint; absent, lexical search only. */
  embeddings?: EmbeddingSettings;
  /** OAuth sign-in; absent, clients connect with pasted bearer tokens only. */
  oauth?: HeadlessOAuth;
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
    this.handleMcp = createMcpRequestHandler({
      tools: ALL_TOOLS,
      directoryFor: (user) => this.registry.forUser(user),
      logger: options.logger,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      version: VERSION,
      now: () => Date.now(),
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
    for (const host of this.hosts) await host.start();
    if (this.options.oauth) {
      this.oauth = await OAuthService.open({ crypto: nodeOAuthCrypto, logger: this.options.logger, persistence: new FileOAuthPersistence(this.options.dataDir) });
      await this.oauth.forgetUsersExcept(new Set(this.users.users().map((user) => user.name)));
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
      rateLimit: this.options.rateLimit ?? DEFAULT_RATE_LIMIT,
      ...(oauth ? { oauth } : {}),
    });
    this.options.logger.log({ level: "info", event: "startup", vaults: this.hosts.length, url: this.http.url, version: VERSION });
  }

  private health(): Record<string, unknown> {
    return buildHealth({ version: VERSION, vaultCount: this.hosts.length, startedAt: this.startedAt, protocolVersion: PROTOCOL_VERSION, now: Date.now() });
  }

  /** Stops accepting requests, drains them, then flushes every vault's index. */
  async stop(): Promise<void> {
    await this.http?.close();
    this.http = null;
    await this.oauth?.save();
    for (const host of this.hosts) await host.stop();
    this.options.logger.log({ level: "info", event: "shutdown" });
  }
}
