// The small host services the engine needs on Node: hashing, time, yielding and logging.
import { createHash } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import type { Clock, Hasher, Logger, LogLevel, LogRecord, Yielder } from "../../core/ports";

export const nodeHasher: Hasher = {
  sha256Hex: (bytes) => createHash("sha256").update(bytes).digest("hex"),
};

export const systemClock: Clock = { now: () => Date.now() };

export const setImmediateYielder: Yielder = () => new Promise((resolve) => setImmediate(resolve));

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One JSON object per line, to stderr or a file; records below `minLevel` are dropped. */
export class JsonLineLogger implements Logger {
  private readonly minLevel: number;
  private readonly sink: (line: string) => void;
  private readonly stream: WriteStream | null;
  private readonly listeners: Array<(line: string) => void> = [];

  constructor(options: { level?: LogLevel; file?: string; write?: (line: string) => void } = {}) {
    this.minLevel = LEVELS[options.level ?? "info"];
    this.stream = options.file ? createWriteStream(options.file, { flags: "a" }) : null;
    if (options.write) this.sink = options.write;
    else if (this.stream) {
      const stream = this.stream;
      this.sink = (line) => stream.write(line);
    } else this.sink = (line) => process.stderr.write(line);
  }

  log(record: LogRecord): void {
    if (LEVELS[record.level] < this.minLevel) return;
    const line = JSON.stringify({ ts: Date.now(), ...record }) + "\n";
    this.sink(line);
    for (const listener of this.listeners) listener(line);
  }

  /** Lets tests and the CLI observe lines without parsing stderr. */
  onLine(listener: (line: string) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    const stream = this.stream;
    if (stream) await new Promise<void>((resolve) => stream.end(resolve));
  }
}
