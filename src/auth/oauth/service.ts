// The OAuth state of one server: registered clients, and everything saved with them. Each change
// is saved before its answer is sent, so an answered registration survives a restart.
import type { Logger } from "../../core/ports";
import { ClientTable, type ClientMetadata, type ClientRecord } from "./clients";
import type { OAuthCrypto, OAuthPersistence } from "./ports";

export interface OAuthServiceOptions {
  crypto: OAuthCrypto;
  logger: Logger;
  /** Absent: the state lives in memory only (tests, or a host without a data folder). */
  persistence?: OAuthPersistence;
  now?: () => number;
  maxClients?: number;
}

const STATE_VERSION = 1;

interface SavedState {
  version: number;
  clients: ClientRecord[];
}

function isSavedState(value: unknown): value is SavedState {
  if (typeof value !== "object" || value === null) return false;
  const state = value as Partial<SavedState>;
  return state.version === STATE_VERSION && Array.isArray(state.clients);
}

export class OAuthService {
  readonly clients: ClientTable;
  readonly crypto: OAuthCrypto;
  private readonly logger: Logger;
  private readonly persistence: OAuthPersistence | undefined;
  private readonly clock: () => number;
  private saving: Promise<void> = Promise.resolve();

  private constructor(options: OAuthServiceOptions) {
    this.crypto = options.crypto;
    this.logger = options.logger;
    this.persistence = options.persistence;
    this.clock = options.now ?? Date.now;
    this.clients = new ClientTable(options.logger, options.maxClients);
  }

  /** The service with its saved state; a state file that cannot be read starts empty and says so. */
  static async open(options: OAuthServiceOptions): Promise<OAuthService> {
    const service = new OAuthService(options);
    const text = await options.persistence?.load();
    if (text !== undefined && text !== null) service.restore(text);
    return service;
  }

  now(): number {
    return this.clock();
  }

  private restore(text: string): void {
    let state: unknown;
    try {
      state = JSON.parse(text);
    } catch {
      state = undefined;
    }
    if (!isSavedState(state)) {
      // Never the content: it holds hashes only, but a log is no place for them either.
      this.logger.log({ level: "warn", event: "oauth_state_unreadable", reason: "not a state of this version; clients must register and sign in again" });
      return;
    }
    this.clients.load(state.clients);
  }

  async registerClient(metadata: ClientMetadata): Promise<ClientRecord> {
    const now = this.clock();
    const client: ClientRecord = {
      client_id: this.crypto.random(16),
      redirect_uris: metadata.redirect_uris,
      client_id_issued_at: Math.floor(now / 1000),
      last_used: now,
    };
    if (metadata.client_name !== undefined) client.client_name = metadata.client_name;
    this.clients.add(client);
    this.logger.log({ level: "info", event: "oauth_client_registered", client_id: client.client_id, clients: this.clients.size });
    await this.save();
    return client;
  }

  /** Saves the whole state; saves run one after another, each writing the state as it is then. */
  save(): Promise<void> {
    const persistence = this.persistence;
    if (!persistence) return Promise.resolve();
    this.saving = this.saving.then(async () => {
      try {
        await persistence.save(JSON.stringify(this.snapshot()));
      } catch (error) {
        this.logger.log({ level: "error", event: "oauth_state_save_failed", error: error instanceof Error ? ((error as { code?: string }).code ?? error.name) : typeof error });
      }
    });
    return this.saving;
  }

  private snapshot(): SavedState {
    return { version: STATE_VERSION, clients: this.clients.list() };
  }
}
