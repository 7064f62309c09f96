// Who a request comes from, for the per-address limits (sign-in attempts, registrations, requests
// without a valid token) and the logs. Behind a reverse proxy every connection is the proxy's, so all
// callers would share one allowance and one guesser could lock everyone out. A proxy the operator names
// in server.trusted_proxies appends the address it saw to X-Forwarded-For; the rightmost address there
// that is not a trusted proxy is the caller. Whatever lies further left the caller wrote itself, so it
// is never believed, and nothing is believed from a peer that is not a trusted proxy.
import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";

/** The most X-Forwarded-For hops looked at: a chain of proxies is short, a forged header need not be. */
const MAX_HOPS = 20;

const noted = new WeakMap<IncomingMessage, string>();

type Family = "ipv4" | "ipv6";

function familyOf(address: string): Family | null {
  const version = isIP(address);
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : null;
}

/** An address as it is compared and logged: IPv4 for an IPv4-mapped IPv6 one, lower case, no zone. */
function canonical(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/** One X-Forwarded-For hop: an address, perhaps in brackets or with a port, as proxies write them; null when it is none. */
function hopAddress(hop: string): string | null {
  let text = hop.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  return familyOf(text) === null ? null : canonical(text);
}

/** Why a trusted_proxies entry is refused, or null: an address (`127.0.0.1`, `::1`) or a range (`10.0.0.0/8`, `fd00::/8`). */
export function trustedProxyProblem(entry: string): string | null {
  const [address = "", prefix, extra] = entry.split("/");
  const family = familyOf(address);
  if (family === null || extra !== undefined) return "must be an IP address (127.0.0.1, ::1) or a range of them (10.0.0.0/8, fd00::/8)";
  if (prefix === undefined) return null;
  const bits = Number(prefix);
  const most = family === "ipv4" ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || bits > most) return `has a prefix length that must be a whole number from 0 to ${most}`;
  return null;
}

export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  /** `entries` as trustedProxyProblem accepts them; a refused one throws. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const problem = trustedProxyProblem(entry);
      if (problem !== null) throw new Error(`trusted proxy "${entry}" ${problem}`);
      const [address = "", prefix] = entry.split("/");
      const family = familyOf(address)!;
      if (prefix === undefined) this.list.addAddress(canonical(address), family);
      else this.list.addSubnet(address, Number(prefix), family);
    }
    this.empty = entries.length === 0;
  }

  private trusts(address: string): boolean {
    const family = familyOf(address);
    return family !== null && this.list.check(address, family);
  }

  /**
   * The caller's address: the peer's unless it is a trusted proxy, then the rightmost forwarded
   * address that is not one. A hop that is no address stops the walk at the last trusted one.
   */
  callerOf(peer: string, forwardedFor: string | string[] | undefined): string {
    let address = canonical(peer);
    if (this.empty || forwardedFor === undefined || !this.trusts(address)) return address;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor).split(",");
    for (let index = hops.length - 1; index >= Math.max(0, hops.length - MAX_HOPS); index--) {
      const hop = hopAddress(hops[index]!);
      if (hop === null) return address;
      address = hop;
      if (!this.trusts(hop)) return hop;
    }
    return address;
  }

  /** Works out and keeps the caller's address of `req`, which clientAddress then gives. */
  note(req: IncomingMessage): void {
    noted.set(req, this.callerOf(req.socket.remoteAddress ?? "", req.headers["x-forwarded-for"]));
  }
}

/** The caller's address of `req`: as TrustedProxies.note worked it out, else the connection's peer. */
export function clientAddress(req: IncomingMessage): string {
  return noted.get(req) ?? canonical(req.socket.remoteAddress ?? "");
}
