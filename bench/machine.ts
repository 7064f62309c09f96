// What the numbers were measured on, printed with them.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sqliteVersion } from "./fts5";
import { REPO_ROOT } from "./paths";

export interface MachineInfo {
  cpu_model: string;
  cores: number;
  available_parallelism: number;
  total_memory_bytes: number;
  platform: string;
  kernel: string;
  node: string;
  sqlite: string;
  packages: Record<string, string>;
}



function packageVersion(name: string): string {
  try {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
  } catch {
    return "missing";
  }
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    available_parallelism: os.availableParallelism(),
    total_memory_bytes: os.totalmem(),
    platform: `${os.platform()} ${os.arch()}`,
    kernel: os.release(),
    node: process.version,
    sqlite: sqliteVersion(),
    packages: Object.fromEntries(["minisearch", "better-sqlite3", "@modelcontextprotocol/sdk"].map((name) => [name, packageVersion(name)])),
  };
}
