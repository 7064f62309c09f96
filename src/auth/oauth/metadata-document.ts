// Client ID Metadata Documents (headless only): a client_id that is an https URL names a JSON document
// describing the client, fetched by this server. It is the one outgoing request the server makes, and
// whoever types a client_id chooses its target, so the fetch is built to be useless for reaching
// anything else: https only, public addresses only (checked on the address actually connected to, so
// a name that resolves elsewhere a second time gains nothing), no redirects, 5 s, 64 KiB.
import { request } from "node:https";
import { request as httpRequest } from "node:http";
import { BlockList, isIP } from "node:net";
import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { isRegistrationError, readClientMetadata, type ClientMetadata } from "./clients";

export const DOCUMENT_TIMEOUT_MS = 5000;
export const DOCUMENT_LIMIT_BYTES = 64 * 1024;
export const DOCUMENT_CACHE_ENTRIES = 100;
export const DOCUMENT_CACHE_MS = 5 * 60_000;

/** Loopback, private, link-local, shared, documentation, multicast and reserved ranges. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24], ["224.0.0.0", 3],
] as const) NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128], ["::1", 128], ["64:ff9b::", 96], ["100::", 64], ["2001:db8::", 32], ["2002::", 16], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8],
] as const) NOT_PUBLIC.addSubnet(network, prefix, "ipv6");

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // BlockList checks an IPv4-mapped IPv6 address (::ffff:127.0.0.1) against the IPv4 ranges too.
  return !NOT_PUBLIC.check(address, family === 6 ? "ipv6" : "ipv4");
}

export interface DocumentFetchOptions {
  /** Test only: http to a loopback server. Never read from the config file. */
  allowLoopbackHttp?: boolean;
  timeoutMs?: number;
}

/** Whether a client_id names a metadata document: an https URL with a path, no fragment or credentials. */
export function isMetadataDocumentUrl(clientId: string, options: DocumentFetchOptions = {}): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  const scheme = url.protocol === "https:" || (options.allowLoopbackHttp === true && url.protocol === "http:");
  return scheme && url.pathname !== "/" && url.hash === "" && url.username === "" && url.password === "" && url.href === clientId;
}

export type DocumentResult = { ok: true; metadata: ClientMetadata } | { ok: false; reason: string; description: string };

function refused(reason: string, description: string): DocumentResult {
  return { ok: false, reason, description };
}

/** Resolves like dns.lookup, then refuses an address that is not public (the socket connects to what this returns). */
function publicOnlyLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: false }, (error, address, family) => {
      if (error) return callback(error, "", 0);
      const text = String(address);
      if (!isPublicAddress(text) && !(allowLoopback && (text === "127.0.0.1" || text === "::1"))) {
        const refusal = Object.assign(new Error("not a public address"), { code: "ENOTPUBLIC" });
        return callback(refusal, "", 0);
      }
      callback(null, text, family);
    });
  };
}

/** Fetches and checks the document a client_id names. */
export function fetchMetadataDocument(clientId: string, options: DocumentFetchOptions = {}): Promise<DocumentResult> {
  if (!isMetadataDocumentUrl(clientId, options)) return Promise.resolve(refused("document_url", "client_id must be an https URL with a path and no fragment or credentials."));
  const url = new URL(clientId);
  const loopbackHttp = url.protocol === "http:";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) !== 0 && !isPublicAddress(host) && !(loopbackHttp && (host === "127.0.0.1" || host === "::1"))) {
    return Promise.resolve(refused("document_address", "client_id names an address that is not public; its metadata document must be on the internet."));
  }
  const timeoutMs = options.timeoutMs ?? DOCUMENT_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: DocumentResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const send = loopbackHttp ? httpRequest : request;
    const req = send(url, { method: "GET", headers: { Accept: "application/json" }, lookup: publicOnlyLookup(loopbackHttp), agent: false }, (res) => {
      if (res.statusCode !== 200) {
        // A redirect is not followed: its target would be another fetch the client chose.
        finish(refused("document_status", `The client's metadata document answered HTTP ${res.statusCode ?? "?"} (redirects are not followed); it must answer 200 with JSON.`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > DOCUMENT_LIMIT_BYTES) finish(refused("document_too_large", `The client's metadata document is larger than ${DOCUMENT_LIMIT_BYTES} bytes.`));
        else chunks.push(chunk);
      });
      res.on("end", () => finish(checkDocument(clientId, Buffer.concat(chunks).toString("utf8"))));
      res.on("error", () => finish(refused("document_unreachable", "The client's metadata document could not be read.")));
    });
    const timer = setTimeout(() => finish(refused("document_timeout", `The client's metadata document did not arrive within ${timeoutMs / 1000} s.`)), timeoutMs);
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOTPUBLIC") finish(refused("document_address", "client_id's host resolves to an address that is not public; its metadata document must be on the internet."));
      else finish(refused("document_unreachable", "The client's metadata document could not be fetched."));
    });
    req.end();
  });
}

function checkDocument(clientId: string, text: string): DocumentResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refused("document_invalid", "The client's metadata document is not JSON.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return refused("document_invalid", "The client's metadata document is not a JSON object.");
  if ((body as { client_id?: unknown }).client_id !== clientId) return refused("document_client_id", "The client's metadata document names another client_id than its own URL.");
  const metadata = readClientMetadata(body);
  if (isRegistrationError(metadata)) return refused("document_metadata", metadata.error_description);
  return { ok: true, metadata };
}

/** Documents by URL, each kept a few minutes; at most DOCUMENT_CACHE_ENTRIES, the oldest dropped first. */
export class MetadataDocumentCache {
  private readonly entries = new Map<string, { metadata: ClientMetadata; expires: number }>();

  constructor(
    private readonly fetcher: (clientId: string) => Promise<DocumentResult> = (clientId) => fetchMetadataDocument(clientId),
    private readonly clock: () => number = Date.now,
  ) {}

  async resolve(clientId: string): Promise<DocumentResult> {
    const cached = this.entries.get(clientId);
    if (cached && cached.expires > this.clock()) return { ok: true, metadata: cached.metadata };
    this.entries.delete(clientId);
    const result = await this.fetcher(clientId);
    if (result.ok) {
      this.entries.set(clientId, { metadata: result.metadata, expires: this.clock() + DOCUMENT_CACHE_MS });
      while (this.entries.size > DOCUMENT_CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
    return result;
  }

  get size(): number {
    return this.entries.size;
  }
}
