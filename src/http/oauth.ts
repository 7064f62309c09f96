// The OAuth endpoints over HTTP (on only when configured): discovery now; registration, the token
// endpoint and sign-in build on it. The logic lives in src/auth/oauth; this file reads requests and
// writes answers.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../core/ports";
import {
  AUTHORIZATION_SERVER_PATH,
  authorizationServerMetadata,
  METADATA_CACHE_CONTROL,
  oauthEndpoints,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
  type OAuthEndpoints,
} from "../auth/oauth/metadata";
import { MCP_PATH } from "./bearer";
import { sendJson, sendMethodNotAllowed } from "./responses";

export interface OAuthHttpOptions {
  /** Where clients reach this server (e.g. https://brain.example.com); default the listen address. */
  publicUrl?: string;
}

export class OAuthRoutes {
  readonly endpoints: OAuthEndpoints;
  private readonly metadata: ReadonlyMap<string, () => unknown>;

  constructor(
    readonly options: OAuthHttpOptions,
    publicUrl: string,
    private readonly logger: Logger,
  ) {
    this.endpoints = oauthEndpoints(publicUrl, MCP_PATH);
    const resource = protectedResourceMetadata(this.endpoints);
    const server = authorizationServerMetadata(this.endpoints);
    // RFC 9728 §3.1 inserts the resource's path after the well-known name; clients written before it
    // ask at the bare name, and some ask for the server metadata with the resource path too.
    this.metadata = new Map<string, () => unknown>([
      [PROTECTED_RESOURCE_PATH, () => resource],
      [`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, () => resource],
      [AUTHORIZATION_SERVER_PATH, () => server],
      [`${AUTHORIZATION_SERVER_PATH}${MCP_PATH}`, () => server],
    ]);
  }

  /** Answers an OAuth path and returns true, or returns false for any other path. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const document = this.metadata.get(path);
    if (document) {
      if (req.method !== "GET") sendMethodNotAllowed(res, "GET");
      else sendJson(res, 200, document(), { "Cache-Control": METADATA_CACHE_CONTROL });
      return true;
    }
    return false;
  }
}
