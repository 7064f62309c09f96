// MCP over stdin/stdout, one JSON-RPC message per line, in place of the SDK's StdioServerTransport:
// that one buffers a line whole up to 10 MiB and closes the session on a longer one, never notices
// the end of its input, and calls onclose each time it is closed. Here a line over the limit is
// counted and dropped as it streams in and answered with an error, the session goes on, the end of
// the input closes the transport once the requests in flight are answered, and onclose fires once.
// The SDK's serveStdio owns onclose (it picks the protocol era per connection); `closed` tells the
// host when to shut down.
import type { Readable, Writable } from "node:stream";
import { parseJSONRPCMessage, type JSONRPCMessage, type RequestId, type Transport } from "@modelcontextprotocol/server";

export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;

/** Bytes kept of each end of an oversized line, to find the request id the answer must carry. */
const ID_WINDOW = 1024;
const NEWLINE = 0x0a;

export interface LineTransportOptions {
  input: Readable;
  output: Writable;
  /** The longest line taken, in bytes, without its newline. */
  maxLineBytes: number;
  /** After the input ends: how long requests in flight may still take to be answered. */
  drainMs: number;
}

/**
 * The id of a request too long to parse, read from its first or last bytes: a serializer puts `id`
 * either first (after `jsonrpc`) or last, and in valid JSON only a top-level member can sit there.
 */
export function sniffRequestId(head: string, tail: string): RequestId | null {
  const value = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
  const first = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}\s*,`).exec(head);
  const last = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "number" || typeof parsed === "string" ? parsed : null;
  } catch {
    return null;
  }
}

function formatBytes(bytes: number): string {
  return bytes.toLocaleString("en-US");
}

function mib(bytes: number): string {
  return String(Math.round((bytes / 1024 / 1024) * 10) / 10);
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly options: LineTransportOptions;
  /** The current line's pieces while it is within the limit. */
  private pieces: Buffer[] = [];
  private pending = 0;
  /** Set while an oversized line streams past: its length so far and its two ends. */
  private oversized: { bytes: number; head: Buffer; tail: Buffer } | null = null;
  /** Requests received and not yet answered, so that the end of the input waits for their answers. */
  private readonly open = new Set<RequestId>();
  private inputEnded = false;
  private drainTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private markClosed: () => void = () => undefined;
  /** Settles once the transport has closed, whoever owns onclose. */
  readonly ended: Promise<void>;

  constructor(options: LineTransportOptions) {
    this.options = options;
    this.ended = new Promise((resolve) => (this.markClosed = resolve));
  }

  /** Bytes of the current line held in memory: never more than the limit, however long the line. */
  get bufferedBytes(): number {
    return this.pending;
  }

  async start(): Promise<void> {
    const { input, output } = this.options;
    input.on("data", this.onData);
    input.on("end", this.onEnd);
    input.on("error", this.onInputError);
    // A client that went away leaves a broken pipe: nobody is left to answer.
    output.on("error", this.onOutputError);
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    if (("result" in message || "error" in message) && message.id !== undefined) this.open.delete(message.id);
    const { output } = this.options;
    const written = output.write(JSON.stringify(message) + "\n");
    if (!written) await new Promise<void>((resolve) => {
      const done = (): void => {
        output.off("drain", done);
        output.off("close", done);
        resolve();
      };
      output.once("drain", done);
      output.once("close", done);
    });
    if (this.inputEnded && this.open.size === 0) void this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    const { input, output } = this.options;
    input.off("data", this.onData);
    input.off("end", this.onEnd);
    input.off("error", this.onInputError);
    output.off("error", this.onOutputError);
    input.pause();
    this.pieces = [];
    this.oversized = null;
    try {
      this.onclose?.();
    } finally {
      this.markClosed();
    }
    return Promise.resolve();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let start = 0;
    while (start <= bytes.length && !this.closed) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline < 0 ? bytes.length : newline;
      this.take(bytes.subarray(start, end));
      if (newline < 0) break;
      this.endLine();
      start = newline + 1;
    }
  };

  /** A piece of the current line: kept while the line is within the limit, counted once past it. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversized) {
      this.oversized.bytes += piece.length;
      this.oversized.tail = firstBytes([piece, this.oversized.tail], ID_WINDOW, true);
      return;
    }
    if (this.pending + piece.length <= this.options.maxLineBytes) {
      this.pieces.push(piece);
      this.pending += piece.length;
      return;
    }
    const seen = [...this.pieces, piece];
    this.oversized = { bytes: this.pending + piece.length, head: firstBytes(seen, ID_WINDOW), tail: firstBytes([...seen].reverse(), ID_WINDOW, true) };
    this.pieces = [];
    this.pending = 0;
  }

  private endLine(): void {
    if (this.oversized) {
      const { bytes, head, tail } = this.oversized;
      this.oversized = null;
      this.refuseOversized(bytes, head.toString("utf8"), tail.toString("utf8"));
      return;
    }
    const line = Buffer.concat(this.pieces).toString("utf8").replace(/\r$/, "");
    this.pieces = [];
    this.pending = 0;
    if (line.trim() === "") return;
    this.dispatch(line);
  }

  private dispatch(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.answerError(null, JSONRPC_PARSE_ERROR, "Parse error: the line is not JSON. Send one JSON-RPC message per line.");
      return;
    }
    try {
      parseJSONRPCMessage(json);
    } catch {
      const id = typeof json === "object" && json !== null ? (json as { id?: unknown }).id : undefined;
      this.answerError(typeof id === "string" || typeof id === "number" ? id : null, JSONRPC_INVALID_REQUEST, "Invalid request: the line is JSON but not a JSON-RPC 2.0 message.");
      return;
    }
    // Checked, but passed on as it arrived: the schema's copy would drop an own `__proto__` argument.
    const message = json as JSONRPCMessage;
    if ("method" in message && "id" in message && message.id !== undefined) this.open.add(message.id);
    this.onmessage?.(message);
  }

  private refuseOversized(bytes: number, head: string, tail: string): void {
    const limit = this.options.maxLineBytes;
    this.answerError(
      sniffRequestId(head, tail),
      JSONRPC_INVALID_REQUEST,
      `The message was ${formatBytes(bytes)} bytes; over stdio a message (one line) may have at most ${formatBytes(limit)} bytes (${mib(limit)} MiB), so it was discarded unread. ` +
        `attachment_put carries files up to about ${mib((limit * 3) / 4)} MiB this way (base64 takes 4 characters for 3 bytes): send a smaller file, or copy a large one into the vault folder directly.`,
    );
  }

  private answerError(id: RequestId | null, code: number, message: string): void {
    const answer = { jsonrpc: "2.0" as const, id, error: { code, message } };
    // id null is JSON-RPC's answer to a message whose id cannot be known; the SDK's type has no room for it.
    void this.send(answer as unknown as JSONRPCMessage);
  }

  private readonly onEnd = (): void => {
    this.inputEnded = true;
    if (this.open.size === 0) {
      void this.close();
      return;
    }
    this.drainTimer = setTimeout(() => void this.close(), this.options.drainMs);
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  private readonly onOutputError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };
}

/** The first `count` bytes of the buffers laid end to end, copied (or the last ones, of buffers given last first). */
function firstBytes(buffers: readonly Buffer[], count: number, fromEnd = false): Buffer {
  const taken: Buffer[] = [];
  let length = 0;
  for (const buffer of buffers) {
    if (length >= count) break;
    const part = fromEnd ? lastBytes(buffer, count - length) : buffer.subarray(0, count - length);
    taken.push(part);
    length += part.length;
  }
  return Buffer.concat(fromEnd ? taken.reverse() : taken);
}

function lastBytes(buffer: Buffer, count: number): Buffer {
  return buffer.length <= count ? buffer : buffer.subarray(buffer.length - count);
}
