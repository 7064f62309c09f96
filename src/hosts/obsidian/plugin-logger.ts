// Where the plugin's structured records go: warnings and errors to the developer console, tool calls
// to the audit file when the user turned it on, and every tool call to listeners (the status bar).
// Records never carry note content (SPEC §11), so they are safe in both places.
import type { DataAdapter } from "obsidian";
import type { Logger, LogRecord } from "../../core/ports";

export interface PluginLoggerOptions {
  adapter: DataAdapter;
  /** Vault-relative path of the audit file, or null when auditing is off. */
  auditPath: () => string | null;
}

export class PluginLogger implements Logger {
  private readonly options: PluginLoggerOptions;
  private readonly listeners = new Set<(record: LogRecord) => void>();
  private appending: Promise<void> = Promise.resolve();

  constructor(options: PluginLoggerOptions) {
    this.options = options;
  }

  log(record: LogRecord): void {
    if (record.level === "error") console.error("[secondbrain-mcp]", JSON.stringify(record));
    else if (record.level === "warn") console.warn("[secondbrain-mcp]", JSON.stringify(record));
    if (record.event === "tool_call") {
      const auditPath = this.options.auditPath();
      if (auditPath !== null) this.append(auditPath, JSON.stringify({ ts: Date.now(), ...record }) + "\n");
    }
    for (const listener of this.listeners) listener(record);
  }

  private append(path: string, line: string): void {
    const adapter = this.options.adapter;
    this.appending = this.appending
      .then(async () => {
        if (await adapter.exists(path)) await adapter.append(path, line);
        else await adapter.write(path, line);
      })
      .catch((error: unknown) => console.warn("[secondbrain-mcp] audit log not written:", error instanceof Error ? error.message : String(error)));
  }

  onRecord(listener: (record: LogRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once queued audit lines are on disk. */
  flushed(): Promise<void> {
    return this.appending;
  }
}
