// Sign-in without a password (the plugin): after the same checks as a login, a person approves the
// request in the host's own window (Obsidian's modal) while the browser page waits. The page holds a
// one-time token, bound to the checked request like a login form's CSRF token and valid as long;
// the decision itself must come within the approval time, after which the request can only be
// restarted. A decision is taken once; the token is spent once.
import type { Logger } from "../../core/ports";
import type { AuthorizeRequest } from "./authorize";
import { CSRF_TTL_MS, escapeHtml, MAX_PENDING_SIGN_INS, page, pageHeaders } from "./authorize";
import { HashTable } from "./grants";
import type { OAuthCrypto } from "./ports";

export const APPROVAL_TIMEOUT_MS = 5 * 60 * 1000;
/**
 * Requests waiting for a decision at once: each opens a window in front of the person, so a local
 * program looping over /authorize must not bury them in windows.
 */
export const MAX_WAITING_APPROVALS = 5;

export type ApprovalDecision = "allow" | "deny";

/** What the browser is told while it waits; nothing secret. */
export type ApprovalStatus = "pending" | "decided" | "expired" | "unknown";

/** One request waiting for a person, as the host's window shows it. */
export interface Approval {
  readonly request: AuthorizeRequest;
  /** The user the sign-in will act as. */
  readonly user: string;
  /** Milliseconds since the epoch after which no decision is taken. */
  readonly decideBy: number;
  /** Takes the decision; false if one was taken already or the time is up. */
  decide(decision: ApprovalDecision): boolean;
}

/** What the page's final submit leads to. */
export type ApprovalOutcome =
  | { kind: "allow"; request: AuthorizeRequest; user: string }
  | { kind: "deny"; request: AuthorizeRequest }
  | { kind: "pending"; request: AuthorizeRequest; user: string }
  | { kind: "expired" }
  | { kind: "unknown" };

interface Row {
  request: AuthorizeRequest;
  user: string;
  decide_by: number;
  decision?: ApprovalDecision;
  /** When the token stops being accepted at all (the CSRF lifetime of a login form). */
  expires_at: number;
}

export class PendingApprovals {
  private readonly table: HashTable<Row>;

  constructor(
    private readonly crypto: OAuthCrypto,
    logger: Logger,
    private readonly now: () => number,
    private readonly timeoutMs = APPROVAL_TIMEOUT_MS,
  ) {
    this.table = new HashTable("csrf_token", MAX_PENDING_SIGN_INS, logger);
  }

  /** Requests nobody has decided yet whose time is not up. */
  waiting(): number {
    const now = this.now();
    return this.table.entries().filter(([, row]) => row.decision === undefined && row.decide_by > now).length;
  }

  /** A new request to approve: the page's token (shown once, kept as a hash) and the handle the host's window decides through. */
  open(request: AuthorizeRequest, user: string): { token: string; approval: Approval } {
    const now = this.now();
    this.table.prune(now);
    const token = this.crypto.random(32);
    const row: Row = { request, user, decide_by: now + this.timeoutMs, expires_at: now + Math.max(CSRF_TTL_MS, this.timeoutMs) };
    this.table.set(this.crypto.sha256Hex(token), row);
    const clock = this.now;
    const approval: Approval = {
      request,
      user,
      decideBy: row.decide_by,
      decide(decision) {
        if (row.decision !== undefined || clock() >= row.decide_by) return false;
        row.decision = decision;
        return true;
      },
    };
    return { token, approval };
  }

  status(token: string): ApprovalStatus {
    const row = this.table.get(this.crypto.sha256Hex(token));
    const now = this.now();
    if (!row || row.expires_at <= now) return "unknown";
    if (row.decision !== undefined) return "decided";
    return now >= row.decide_by ? "expired" : "pending";
  }

  /** The page's submit: spends the token unless the request is still waiting. */
  finish(token: string): ApprovalOutcome {
    const hash = this.crypto.sha256Hex(token);
    const row = this.table.get(hash);
    const now = this.now();
    if (!row || row.expires_at <= now) {
      this.table.take(hash);
      return { kind: "unknown" };
    }
    if (row.decision === undefined && now < row.decide_by) return { kind: "pending", request: row.request, user: row.user };
    this.table.take(hash);
    if (row.decision === "allow") return { kind: "allow", request: row.request, user: row.user };
    if (row.decision === "deny") return { kind: "deny", request: row.request };
    return { kind: "expired" };
  }
}

/** The page's script may poll its own server, nothing else: the CSP of every page, plus these. */
export function approvalPageHeaders(nonce: string, formTarget: string): Record<string, string> {
  const headers = pageHeaders(nonce, formTarget);
  headers["Content-Security-Policy"] += `; script-src 'nonce-${nonce}'; connect-src 'self'`;
  return headers;
}

/** Relative to /authorize, so it stays on the page's own server whatever name the browser used for it. */
export const APPROVAL_STATUS_PATH = "/authorize/status";
const POLL_MS = 750;

/**
 * The waiting page. Its script asks the status endpoint (the token in a POST body, never in a URL)
 * until the request is decided or timed out, then submits the form, whose answer is the redirect
 * to the client or the timed-out page: the code only ever travels in that redirect, as after a
 * login. Without scripts the button does the same.
 */
export function approvalPage(nonce: string, options: { token: string; clientName?: string; user: string }): string {
  const who = options.clientName === undefined ? "An application without a name" : `“${escapeHtml(options.clientName)}” (a name the application gave itself)`;
  const script =
    `(function(){var f=document.getElementById("approval-form");var t=f.elements.namedItem("approval").value;` +
    `function poll(){fetch("authorize/status",{method:"POST",headers:{"Content-Type":"application/x-www-form-urlencoded"},body:"approval="+encodeURIComponent(t),cache:"no-store",credentials:"omit"})` +
    `.then(function(r){return r.json()}).then(function(s){if(s.status==="pending")setTimeout(poll,${POLL_MS});else f.submit()})` +
    `.catch(function(){setTimeout(poll,${POLL_MS * 2})})}setTimeout(poll,${POLL_MS})})();`;
  return page(
    nonce,
    "Approve in Obsidian",
    `<p>${who} asks to use your vaults as ${escapeHtml(options.user)}.</p>` +
      `<p role="status">Switch to Obsidian and choose Allow or Deny in the window it shows. This page continues by itself once you have decided.</p>` +
      `<form id="approval-form" method="post"><input type="hidden" name="approval" value="${escapeHtml(options.token)}">` +
      `<noscript><button type="submit">Continue after deciding</button></noscript></form>` +
      `<script nonce="${nonce}">${script}</script>`,
  );
}

export function timedOutPage(nonce: string): string {
  return page(nonce, "Sign-in timed out", `<p class="error">Nobody chose Allow or Deny in Obsidian in time, so this sign-in timed out. Start the connection again in the application.</p>`);
}
