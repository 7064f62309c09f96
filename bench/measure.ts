// Timing, memory and event-loop probes shared by the orchestrator and the child processes.
import { promises as fs } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const RSS_SAMPLE_MS = 50;
const TICK_MS = 10;

export interface PhaseStats {
  wall_ms: number;
  /** Highest `process.memoryUsage().rss` seen by the 50 ms sampler (and at the phase's edges). */
  peak_rss_bytes: number;
  rss_end_bytes: number;
  /** Longest event-loop stall: the largest gap between 10 ms ticks, minus the 10 ms. */
  max_stall_ms: number;
  /**
   * The same, counting of each gap only the CPU time the process used in it: on a loaded machine a
   * gap is often the process waiting for a core, not work holding the event loop.
   */
  max_stall_cpu_ms?: number;
}

/**
 * Watches one stretch of work. `mark()` closes a phase and opens the next one, so a single build can
 * be split where the engine's own log says a step ended (index built, snapshot written).
 *
 * Stalls come from a drift probe rather than `monitorEventLoopDelay`: a phase often ends inside
 * the synchronous block that stalls (the engine logs, then keeps computing), and the histogram only
 * records a delay once its timer runs again, and loses it if reset before that. The probe instead
 * counts the gap still open at `mark()` towards the phase being closed.
 */
/** User and system CPU time of the process so far, in milliseconds (every thread of it). */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export class PhaseProbe {
  private readonly rssTimer: NodeJS.Timeout;
  private readonly tickTimer: NodeJS.Timeout;
  private phaseStart: number;
  private lastTick: number;
  private maxGap = 0;
  private maxBusyGap = 0;
  private lastCpu = cpuMs();
  private peakRss: number;

  private constructor() {
    this.phaseStart = performance.now();
    this.lastTick = this.phaseStart;
    this.peakRss = process.memoryUsage().rss;
    this.rssTimer = setInterval(() => this.sample(), RSS_SAMPLE_MS);
    this.tickTimer = setInterval(() => this.tick(), TICK_MS);
  }

  static start(): PhaseProbe {
    return new PhaseProbe();
  }

  private sample(): number {
    const rss = process.memoryUsage().rss;
    if (rss > this.peakRss) this.peakRss = rss;
    return rss;
  }

  private tick(): void {
    const now = performance.now();
    const cpu = cpuMs();
    this.maxGap = Math.max(this.maxGap, now - this.lastTick);
    this.maxBusyGap = Math.max(this.maxBusyGap, Math.min(now - this.lastTick, cpu - this.lastCpu));
    this.lastTick = now;
    this.lastCpu = cpu;
  }

  mark(): PhaseStats {
    const now = performance.now();
    const rss = this.sample();
    const gap = Math.max(this.maxGap, now - this.lastTick);
    const stats: PhaseStats = {
      wall_ms: round(now - this.phaseStart),
      peak_rss_bytes: this.peakRss,
      rss_end_bytes: rss,
      max_stall_ms: round(Math.max(0, gap - TICK_MS)),
      max_stall_cpu_ms: round(Math.max(0, Math.max(this.maxBusyGap, Math.min(now - this.lastTick, cpuMs() - this.lastCpu)) - TICK_MS)),
    };
    this.phaseStart = now;
    this.lastTick = now;
    this.lastCpu = cpuMs();
    this.maxGap = 0;
    this.maxBusyGap = 0;
    this.peakRss = rss;
    return stats;
  }

  stop(): PhaseStats {
    const stats = this.mark();
    clearInterval(this.rssTimer);
    clearInterval(this.tickTimer);
    return stats;
  }
}

/** Folds several phases into one: summed wall time, the highest peak, the longest stall. */
export function combinePhases(phases: readonly PhaseStats[]): PhaseStats {
  return {
    wall_ms: round(phases.reduce((sum, phase) => sum + phase.wall_ms, 0)),
    peak_rss_bytes: Math.max(0, ...phases.map((phase) => phase.peak_rss_bytes)),
    rss_end_bytes: phases[phases.length - 1]?.rss_end_bytes ?? 0,
    max_stall_ms: Math.max(0, ...phases.map((phase) => phase.max_stall_ms)),
  };
}

export interface LatencySummary {
  n: number;
  p50_ms: number;
  p95_ms: number;
  mean_ms: number;
  max_ms: number;
}

/** Nearest-rank percentiles over the samples, in milliseconds. */
export function summarize(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) return { n: 0, p50_ms: Number.NaN, p95_ms: Number.NaN, mean_ms: Number.NaN, max_ms: Number.NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return {
    n: sorted.length,
    p50_ms: round(rank(0.5)),
    p95_ms: round(rank(0.95)),
    mean_ms: round(sorted.reduce((sum, value) => sum + value, 0) / sorted.length),
    max_ms: round(sorted[sorted.length - 1]!),
  };
}

export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

export function timedSync<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

/** Bytes of every regular file under `dir` (0 when it does not exist). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) total += (await fs.stat(full)).size;
  }
  return total;
}

export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A full GC, so RSS shows what the process keeps rather than start-up garbage. */
export function collectGarbage(): boolean {
  // Without --expose-gc on the command line: expose it for a fresh context and take its `gc`.
  setFlagsFromString("--expose-gc");
  const collect: unknown = runInNewContext("gc");
  if (typeof collect !== "function") return false;
  (collect as () => void)();
  return true;
}
