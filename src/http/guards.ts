// DNS-rebinding protection for a server on localhost: a page on evil.example whose name now
// resolves to 127.0.0.1 still sends its own Host and Origin, and those are what we check.

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

interface HostParts {
  hostname: string;
  port: string;
}

/** Splits a Host header (`name`, `name:port`, `[v6]:port`) into lower-cased parts. */
export function parseHostHeader(host: string): HostParts | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  if (!match?.[1]) return null;
  return { hostname: match[1].toLowerCase(), port: match[2] ?? "80" };
}

export function isLoopbackName(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase());
}

/** True when the server listens on a loopback address only (`--host` left at its default). */
export function isLoopbackBinding(host: string): boolean {
  return isLoopbackName(host.replace(/^\[(.*)\]$/, "$1"));
}

/** True when the Host header names this machine's loopback interface. */
export function isLoopbackHost(host: string | undefined): boolean {
  const parts = host === undefined ? null : parseHostHeader(host);
  return parts !== null && isLoopbackName(parts.hostname);
}

function originParts(origin: string): HostParts | null {
  try {
    const url = new URL(origin);
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    return { hostname: url.hostname.toLowerCase(), port };
  } catch {
    return null;
  }
}

/** The server's own origin: the Host the client used, or another loopback name on the same port. */
function isOwnOrigin(origin: HostParts, host: HostParts): boolean {
  if (origin.port !== host.port) return false;
  return origin.hostname === host.hostname || (isLoopbackName(origin.hostname) && isLoopbackName(host.hostname));
}

/** The form in which origins are compared: lower case, no trailing slash. */
export function normalizeOrigin(origin: string): string {
  return origin.toLowerCase().replace(/\/$/, "");
}

/** `allowedOrigins` must hold normalised origins. */
export function isOriginAllowed(origin: string, host: string | undefined, allowedOrigins: ReadonlySet<string>): boolean {
  if (allowedOrigins.has(normalizeOrigin(origin))) return true;
  const own = host === undefined ? null : parseHostHeader(host);
  const given = originParts(origin);
  return own !== null && given !== null && isOwnOrigin(given, own);
}
