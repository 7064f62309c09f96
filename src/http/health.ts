// /healthz: enough to tell that the server is up and what it speaks, nothing about whom it serves.

export interface HealthInput {
  version: string;
  vaultCount: number;
  /** Milliseconds since the epoch. */
  startedAt: number;
  protocolVersion: string;
  now: number;
}

export interface HealthReport {
  [field: string]: unknown;
  status: "ok";
  version: string;
  vaults: number;
  started: string;
  uptime_s: number;
  protocol_version: string;
  stateless: true;
}

export function buildHealth(input: HealthInput): HealthReport {
  return {
    status: "ok",
    version: input.version,
    vaults: input.vaultCount,
    started: new Date(input.startedAt).toISOString(),
    uptime_s: Math.max(0, Math.floor((input.now - input.startedAt) / 1000)),
    protocol_version: input.protocolVersion,
    stateless: true,
  };
}
