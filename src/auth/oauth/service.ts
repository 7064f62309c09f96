// The OAuth state of one server: registered clients, codes and tokens (as hashes). Each change is
// saved before its answer is sent, so neither a registration nor a sign-in is lost to a restart.
import type { Logger } from "../../core/ports";
import { ClientTable, type ClientMetadata, type ClientRecord } from "./clients";
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_TTL_MS,
  CODE_TTL_MS,
  HashTable,
  isCodeVerifier,
  MAX_ACCESS_TOKENS,
  MAX_CODES,
  MAX_REFRESH_TOKENS,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_TTL_MS,
  type CodeRecord,
  type SpentCode,
  type TokenRecord,
} from "./grants";
import type { OAuthCrypto, OAuthPersistence } from "./ports";

/** The token endpoint's successful answer (RFC 6749 §5.1). */
export interface IssuedTokens {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
}

/** A client signed in as a user, for the list with its revoke button. */
export interface SignedInClient {
  client_id: string;
  /** As the client registered it: self-declared, never verified. */
  client_name?: string;
  user: string;
  /** Milliseconds since the epoch; 0 when unknown. */
  last_used: number;
}

export type TokenErrorCode = "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type";

/** Why a token request failed: the RFC 6749 §5.2 error, and a machine reason for the log. */
export interface TokenFailure {
  error: TokenErrorCode;
  reason: string;
  description: string;
  client_id?: string;
}

export type TokenOutcome = { ok: true; tokens: IssuedTokens; client_id: string; user: string } | { ok: false; failure: TokenFailure };

/** The form fields of a token request; anything else is ignored. */
export type TokenRequest = Readonly<Record<string, string | undefined>>;

export interface CodeGrant {
  client_id: string;
  user: string;
  redirect_uri: string;
  code_challenge: string;
}

function fail(error: TokenErrorCode, reason: string, description: string, clientId?: string): TokenOutcome {
  const failure: TokenFailure = { error, reason, description };
  if (clientId !== undefined) failure.client_id = clientId;
  return { ok: false, failure };
}

const RESTART = "Start the sign-in again in the client.";

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
  codes: Array<[string, CodeRecord]>;
  spent_codes: Array<[string, SpentCode]>;
  access_tokens: Array<[string, TokenRecord]>;
  refresh_tokens: Array<[string, TokenRecord]>;
}

function isSavedState(value: unknown): value is SavedState {
  if (typeof value !== "object" || value === null) return false;
  const state = value as Partial<SavedState>;
  return (
    state.version === STATE_VERSION &&
    Array.isArray(state.clients) &&
    Array.isArray(state.codes) &&
    Array.isArray(state.spent_codes) &&
    Array.isArray(state.access_tokens) &&
    Array.isArray(state.refresh_tokens)
  );
}

export class OAuthService {
  readonly clients: ClientTable;
  readonly crypto: OAuthCrypto;
  private readonly codes: HashTable<CodeRecord>;
  private readonly spentCodes: HashTable<SpentCode>;
  private readonly accessTokens: HashTable<TokenRecord>;
  private readonly refreshTokens: HashTable<TokenRecord>;
  private readonly logger: Logger;
  private readonly persistence: OAuthPersistence | undefined;
  private readonly clock: () => number;
  private saving: Promise<void> = Promise.resolve();
  /** Access tokens issued since this process started, for the metrics endpoint. */
  private issuedSinceStart = 0;

  private constructor(options: OAuthServiceOptions) {
    this.crypto = options.crypto;
    this.logger = options.logger;
    this.persistence = options.persistence;
    this.clock = options.now ?? Date.now;
    this.clients = new ClientTable(options.logger, options.maxClients);
    this.codes = new HashTable("code", MAX_CODES, options.logger);
    this.spentCodes = new HashTable("spent_code", MAX_CODES, options.logger);
    this.accessTokens = new HashTable("access_token", MAX_ACCESS_TOKENS, options.logger);
    this.refreshTokens = new HashTable("refresh_token", MAX_REFRESH_TOKENS, options.logger);
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
    const now = this.clock();
    this.clients.load(state.clients);
    this.codes.load(state.codes, now);
    this.spentCodes.load(state.spent_codes, now);
    this.accessTokens.load(state.access_tokens, now);
    this.refreshTokens.load(state.refresh_tokens, now);
  }

  /**
   * A code for a signed-in user (32 random bytes), bound to the client, the redirect URI and the
   * PKCE challenge; the caller has checked all three.
   */
  async issueCode(grant: CodeGrant): Promise<string> {
    const code = this.crypto.random(32);
    this.codes.set(this.crypto.sha256Hex(code), { ...grant, expires_at: this.clock() + CODE_TTL_MS });
    await this.save();
    return code;
  }

  /** The user and client an OAuth access token acts for, or null (unknown, expired or revoked). */
  authenticate(token: string): { user: string; client_id: string } | null {
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
    const record = this.accessTokens.get(this.crypto.sha256Hex(token));
    const now = this.clock();
    if (!record || record.expires_at <= now) return null;
    this.clients.touch(record.client_id, now);
    record.last_used = now;
    return { user: record.user, client_id: record.client_id };
  }

  /** The token endpoint (RFC 6749 §4.1.3, §6); `userExists` refuses tokens for a removed user. */
  async exchange(request: TokenRequest, userExists: (name: string) => boolean): Promise<TokenOutcome> {
    this.prune();
    const grantType = request.grant_type;
    let outcome: TokenOutcome;
    if (grantType === "authorization_code") outcome = this.redeemCode(request, userExists);
    else if (grantType === "refresh_token") outcome = this.rotateRefresh(request, userExists);
    else if (grantType === undefined) outcome = fail("invalid_request", "grant_type_missing", 'grant_type is required: "authorization_code" or "refresh_token".');
    else outcome = fail("unsupported_grant_type", "grant_type_unsupported", 'This server takes grant_type "authorization_code" or "refresh_token" only.');
    // A failure may have spent a code or killed a family; that must outlive a restart too.
    await this.save();
    return outcome;
  }

  private knownClient(request: TokenRequest): ClientRecord | TokenOutcome {
    const clientId = request.client_id;
    if (clientId === undefined || clientId === "") return fail("invalid_client", "client_id_missing", "client_id is required: this server's clients are public and identify themselves by it.");
    const client = this.clients.get(clientId);
    if (!client) return fail("invalid_client", "client_unknown", `The client is not registered here (dropped or never registered). Register again at /register, then ${RESTART}`, clientId);
    return client;
  }

  private redeemCode(request: TokenRequest, userExists: (name: string) => boolean): TokenOutcome {
    const code = request.code;
    if (code === undefined || code === "") return fail("invalid_request", "code_missing", "code is required with grant_type authorization_code.", request.client_id);
    const hash = this.crypto.sha256Hex(code);
    // Gone on any attempt, whatever follows: a code is never tried twice.
    const record = this.codes.take(hash);
    if (record) this.spentCodes.set(hash, { client_id: record.client_id, user: record.user, expires_at: record.expires_at });
    const client = this.knownClient(request);
    if (!("client_id" in client && "redirect_uris" in client)) return client;
    const now = this.clock();
    if (!record) {
      const spent = this.spentCodes.take(hash);
      if (spent) {
        const killed = this.killFamily(spent.client_id, spent.user);
        this.logger.log({ level: "warn", event: "token_reuse_detected", reason: "code_replayed", client_id: spent.client_id, user: spent.user, revoked: killed });
        return fail("invalid_grant", "code_replayed", `The code was already used; the tokens it bought are revoked. ${RESTART}`, client.client_id);
      }
      return fail("invalid_grant", "code_unknown", `The code is unknown or expired. ${RESTART}`, client.client_id);
    }
    if (record.expires_at <= now) return fail("invalid_grant", "code_expired", `The code expired (codes last ${CODE_TTL_MS / 1000} s). ${RESTART}`, client.client_id);
    if (!this.crypto.equal(record.client_id, client.client_id)) return fail("invalid_grant", "client_mismatch", `The code was issued to another client. ${RESTART}`, client.client_id);
    if (request.redirect_uri !== undefined && !this.crypto.equal(record.redirect_uri, request.redirect_uri)) {
      return fail("invalid_grant", "redirect_uri_mismatch", `redirect_uri differs from the one the code was issued for. ${RESTART}`, client.client_id);
    }
    const verifier = request.code_verifier;
    if (verifier === undefined || !isCodeVerifier(verifier)) {
      return fail("invalid_request", "verifier_malformed", "code_verifier is required: 43 to 128 characters of A-Z, a-z, 0-9 and -._~ (RFC 7636 §4.1).", client.client_id);
    }
    if (!this.crypto.equal(this.crypto.sha256Base64url(verifier), record.code_challenge)) {
      return fail("invalid_grant", "pkce_failed", `code_verifier does not match the code_challenge (S256). ${RESTART}`, client.client_id);
    }
    if (!userExists(record.user)) return fail("invalid_grant", "user_removed", "The user who signed in no longer exists on this server.", client.client_id);
    return this.issueTokens(client.client_id, record.user, this.crypto.random(16));
  }

  private rotateRefresh(request: TokenRequest, userExists: (name: string) => boolean): TokenOutcome {
    const token = request.refresh_token;
    if (token === undefined || token === "") return fail("invalid_request", "refresh_token_missing", "refresh_token is required with grant_type refresh_token.", request.client_id);
    const client = this.knownClient(request);
    if (!("client_id" in client && "redirect_uris" in client)) return client;
    const record = this.refreshTokens.get(this.crypto.sha256Hex(token));
    if (!record) return fail("invalid_grant", "refresh_unknown", `The refresh token is unknown, expired or revoked. ${RESTART}`, client.client_id);
    const mismatch = !this.crypto.equal(record.client_id, client.client_id);
    if (mismatch || record.rotated === true) {
      // Either someone else holds this client's token or an old one came back: whoever has the
      // newest token may be the thief, so the whole family goes.
      const reason = mismatch ? "client_mismatch" : "refresh_reused";
      const killed = this.killFamily(record.client_id, record.user);
      this.logger.log({ level: "warn", event: "token_reuse_detected", reason, client_id: record.client_id, user: record.user, revoked: killed });
      return fail("invalid_grant", reason, `The refresh token was already used or belongs to another client; every token of this sign-in is revoked. ${RESTART}`, client.client_id);
    }
    if (record.expires_at <= this.clock()) return fail("invalid_grant", "refresh_expired", `The refresh token expired. ${RESTART}`, client.client_id);
    if (!userExists(record.user)) return fail("invalid_grant", "user_removed", "The user who signed in no longer exists on this server.", client.client_id);
    record.rotated = true;
    return this.issueTokens(client.client_id, record.user, record.family);
  }

  private issueTokens(clientId: string, user: string, family: string): TokenOutcome {
    const now = this.clock();
    const access = ACCESS_TOKEN_PREFIX + this.crypto.random(32);
    const refresh = REFRESH_TOKEN_PREFIX + this.crypto.random(32);
    this.accessTokens.set(this.crypto.sha256Hex(access), { client_id: clientId, user, family, expires_at: now + ACCESS_TOKEN_TTL_MS, last_used: now });
    this.refreshTokens.set(this.crypto.sha256Hex(refresh), { client_id: clientId, user, family, expires_at: now + REFRESH_TOKEN_TTL_MS, last_used: now });
    this.clients.touch(clientId, now);
    this.issuedSinceStart += 1;
    return {
      ok: true,
      client_id: clientId,
      user,
      tokens: { access_token: access, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_MS / 1000, refresh_token: refresh },
    };
  }

  /** Access tokens issued since start, and those valid now (counts only: no user, no client). */
  tokenCounts(): { issued: number; active: number } {
    return { issued: this.issuedSinceStart, active: this.accessTokens.countLive(this.clock()) };
  }

  /** Revokes every token of one client for one user; returns how many went. */
  private killFamily(clientId: string, user: string): number {
    const match = (row: TokenRecord): boolean => row.client_id === clientId && row.user === user;
    return this.accessTokens.removeWhere(match) + this.refreshTokens.removeWhere(match);
  }

  /**
   * Who is signed in: one entry per client and user holding a live token, most recently used first.
   * The settings tab and the CLI list these; `revoke` takes one back.
   */
  signedIn(): SignedInClient[] {
    const now = this.clock();
    const found = new Map<string, SignedInClient>();
    for (const [, row] of [...this.accessTokens.entries(), ...this.refreshTokens.entries()]) {
      if (row.expires_at <= now || row.rotated === true) continue;
      const key = JSON.stringify([row.client_id, row.user]);
      const lastUsed = row.last_used ?? 0;
      const entry = found.get(key);
      if (entry) entry.last_used = Math.max(entry.last_used, lastUsed);
      else {
        const client = this.clients.get(row.client_id);
        const signedIn: SignedInClient = { client_id: row.client_id, user: row.user, last_used: lastUsed };
        if (client?.client_name !== undefined) signedIn.client_name = client.client_name;
        found.set(key, signedIn);
      }
    }
    return [...found.values()].sort((a, b) => b.last_used - a.last_used);
  }

  /** Signs one client out for one user: its tokens and unredeemed codes go at once. Returns how many. */
  async revoke(clientId: string, user: string): Promise<number> {
    const revoked = this.killFamily(clientId, user) + this.codes.removeWhere((row) => row.client_id === clientId && row.user === user);
    this.logger.log({ level: "info", event: "oauth_tokens_revoked", reason: "revoked_by_user", client_id: clientId, user, revoked });
    await this.save();
    return revoked;
  }

  /** Revokes every token of users not in `names` (a user removed from the config). */
  async forgetUsersExcept(names: ReadonlySet<string>): Promise<void> {
    const gone = (row: { user: string }): boolean => !names.has(row.user);
    const dropped = this.codes.removeWhere(gone) + this.accessTokens.removeWhere(gone) + this.refreshTokens.removeWhere(gone);
    if (dropped > 0) {
      this.logger.log({ level: "info", event: "oauth_tokens_revoked", reason: "user_removed", revoked: dropped });
      await this.save();
    }
  }

  private prune(): void {
    const now = this.clock();
    this.codes.prune(now);
    this.spentCodes.prune(now);
    this.accessTokens.prune(now);
    this.refreshTokens.prune(now);
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
    return {
      version: STATE_VERSION,
      clients: this.clients.list(),
      codes: this.codes.entries(),
      spent_codes: this.spentCodes.entries(),
      access_tokens: this.accessTokens.entries(),
      refresh_tokens: this.refreshTokens.entries(),
    };
  }
}
