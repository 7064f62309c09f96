// The authorization endpoint of a host that signs in by approval (the plugin): once the request has
// passed the same checks as a login, the browser gets a waiting page and the host asks the person;
// the page's submit then leads back to the client with a code, or with access_denied.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../core/ports";
import {
  APPROVAL_TIMEOUT_MS,
  approvalPage,
  approvalPageHeaders,
  MAX_WAITING_APPROVALS,
  PendingApprovals,
  timedOutPage,
  type Approval,
} from "../auth/oauth/approval";
import { errorPage, formTargetOf, pageHeaders, redirectWith, type AuthorizeRequest } from "../auth/oauth/authorize";
import type { OAuthService } from "../auth/oauth/service";
import type { UserInfo } from "../tools/types";
import { readBody } from "./body";
import { sendJson } from "./responses";
import { clientAddress } from "./client-address";

export interface ApprovalHost {
  /** The user sign-ins act as now, or a sentence for the page saying why there is none and what to do. */
  actingUser(): UserInfo | string;
  /** Puts the request in front of the person; they decide through `approval.decide`. */
  ask(approval: Approval): void;
  /** How long a request waits for a decision; five minutes unless a test wants less. */
  timeoutMs?: number;
}

const FORM_LIMIT_BYTES = 4096;
const RESTART = "Start the connection again in the application.";

function approvalToken(text: string): string | null {
  const params = new URLSearchParams(text);
  const values = params.getAll("approval");
  return values.length === 1 && values[0] !== "" ? values[0]! : null;
}

export class ApprovalRoutes {
  private readonly pending: PendingApprovals;

  constructor(
    private readonly host: ApprovalHost,
    private readonly service: OAuthService,
    private readonly issuer: string,
    private readonly logger: Logger,
  ) {
    this.pending = new PendingApprovals(service.crypto, logger, () => service.now(), host.timeoutMs ?? APPROVAL_TIMEOUT_MS);
  }

  private sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string>): void {
    res.writeHead(status, { ...headers, "Content-Length": String(Buffer.byteLength(html)) });
    res.end(html);
  }

  private sendError(res: ServerResponse, status: number, message: string): void {
    const nonce = this.service.crypto.random(16);
    this.sendHtml(res, status, errorPage(nonce, message), pageHeaders(nonce));
  }

  /** GET /authorize after its checks passed: the waiting page, and the question to the person. */
  page(res: ServerResponse, request: AuthorizeRequest, remote: string): void {
    const user = this.host.actingUser();
    if (typeof user === "string") {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: "no_acting_user", client_id: request.client_id, remote });
      return this.sendError(res, 503, user);
    }
    if (this.pending.waiting() >= MAX_WAITING_APPROVALS) {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: "too_many_waiting", client_id: request.client_id, remote });
      return this.sendError(res, 429, `${MAX_WAITING_APPROVALS} sign-ins are already waiting for a decision in Obsidian. Decide those first, then ${RESTART.toLowerCase()}`);
    }
    const { token, approval } = this.pending.open(request, user.name);
    this.logger.log({ level: "info", event: "authorize_approval_asked", client_id: request.client_id, user: user.name });
    this.host.ask(approval);
    this.sendWaiting(res, token, request, user.name);
  }

  private sendWaiting(res: ServerResponse, token: string, request: AuthorizeRequest, user: string): void {
    const nonce = this.service.crypto.random(16);
    const options: Parameters<typeof approvalPage>[1] = { token, user };
    if (request.client_name !== undefined) options.clientName = request.client_name;
    this.sendHtml(res, 200, approvalPage(nonce, options), approvalPageHeaders(nonce, formTargetOf(request.redirect_uri)));
  }

  /** POST /authorize/status: what the waiting page polls; it tells nothing but the state. */
  async status(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, FORM_LIMIT_BYTES);
    const token = body.kind === "ok" ? approvalToken(body.text) : null;
    sendJson(res, 200, { status: token === null ? "unknown" : this.pending.status(token) });
  }

  /** POST /authorize from the waiting page: the redirect the person decided on, once. */
  async submit(req: IncomingMessage, res: ServerResponse, findUser: (name: string) => UserInfo | null): Promise<void> {
    const remote = clientAddress(req);
    const body = await readBody(req, FORM_LIMIT_BYTES);
    const token = body.kind === "ok" ? approvalToken(body.text) : null;
    const outcome = token === null ? ({ kind: "unknown" } as const) : this.pending.finish(token);
    if (outcome.kind === "pending" && token !== null) {
      // Submitted before anyone decided (the button without scripts): the same page, the same token.
      return this.sendWaiting(res, token, outcome.request, outcome.user);
    }
    if (outcome.kind === "unknown" || outcome.kind === "pending") {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: "approval_unknown", remote });
      return this.sendError(res, 400, `This sign-in page has expired or was already used. ${RESTART}`);
    }
    if (outcome.kind === "expired") {
      this.logger.log({ level: "info", event: "authorize_failed", reason: "approval_timed_out", remote });
      const nonce = this.service.crypto.random(16);
      // Not 408: browsers retry a request answered 408, and the retry would find the token spent.
      return this.sendHtml(res, 400, timedOutPage(nonce), pageHeaders(nonce));
    }
    const request = outcome.request;
    if (outcome.kind === "deny") {
      this.logger.log({ level: "info", event: "authorize_denied", client_id: request.client_id, remote });
      return this.redirect(res, redirectWith(request.redirect_uri, { error: "access_denied", error_description: "The request was denied in Obsidian.", state: request.state, iss: this.issuer }));
    }
    if (findUser(outcome.user) === null) {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: "user_removed", client_id: request.client_id, remote });
      return this.sendError(res, 400, `The user this sign-in was approved for no longer exists. ${RESTART}`);
    }
    const code = await this.service.issueCode({ client_id: request.client_id, user: outcome.user, redirect_uri: request.redirect_uri, code_challenge: request.code_challenge });
    this.logger.log({ level: "info", event: "authorize_signed_in", client_id: request.client_id, user: outcome.user });
    this.redirect(res, redirectWith(request.redirect_uri, { code, state: request.state, iss: this.issuer }));
  }

  private redirect(res: ServerResponse, location: string): void {
    res.writeHead(302, { Location: location, "Cache-Control": "no-store" });
    res.end();
  }
}
