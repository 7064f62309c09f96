// What a scrape reads besides the counters: per-vault gauges from the index (vault_stats' counts,
// added up in time slices) and the OAuth token numbers. Vaults are labelled by their position in the
// configuration ("0" is the first), never by name: a vault's name is whatever its owner typed, and a
// scrape lands in databases and dashboards that outlive it.
import type { Metrics, ScrapeInput, VaultGauges, VaultSample } from "../core/metrics";
import type { Logger, Yielder } from "../core/ports";
import { TimeSlice } from "../core/time-slice";
import type { VaultEngine } from "../core/vault/types";
import { computeStatsInSlices } from "../tools/find/vault-info";

/**
 * Gauges younger than this are served again: however many scrapers ask, a vault is counted at most
 * this often. Prometheus scrapes every 15 s or more, so each scrape it makes still counts afresh.
 */
export const VAULT_GAUGE_MAX_AGE_MS = 5_000;

export interface MetricsScrapeOptions {
  metrics: Metrics;
  version: string;
  /** The served vaults in configuration order; the label of each is its index. */
  engines(): readonly VaultEngine[];
  /** OAuth tokens issued since start and active now; absent with OAuth off. */
  oauth?(): { issued: number; active: number };
  yielder: Yielder;
  now(): number;
  logger: Logger;
  maxAgeMs?: number;
}

interface Counted {
  at: number;
  samples: VaultSample[];
  seconds: number;
}

export class MetricsScrape {
  private last: Counted | null = null;
  private counting: Promise<Counted> | null = null;

  constructor(private readonly options: MetricsScrapeOptions) {}

  async render(): Promise<string> {
    const vaults = await this.vaults();
    const input: ScrapeInput = {
      version: this.options.version,
      vaults: vaults.samples,
      oauth: this.options.oauth?.() ?? { issued: 0, active: 0 },
      vaultSeconds: vaults.seconds,
    };
    return this.options.metrics.render(input);
  }

  /** The last count while it is fresh, else one count shared by every scrape that asks meanwhile. */
  private vaults(): Promise<Counted> {
    const maxAge = this.options.maxAgeMs ?? VAULT_GAUGE_MAX_AGE_MS;
    const last = this.last;
    if (last && this.options.now() - last.at < maxAge) return Promise.resolve(last);
    this.counting ??= this.count().finally(() => {
      this.counting = null;
    });
    return this.counting;
  }

  private async count(): Promise<Counted> {
    const started = this.options.now();
    const slice = new TimeSlice(() => this.options.now(), this.options.yielder);
    const samples: VaultSample[] = [];
    for (const [index, engine] of this.options.engines().entries()) {
      const label = String(index);
      const available = engine.available();
      if (!available) {
        samples.push({ label, available });
        continue;
      }
      try {
        const stats = await computeStatsInSlices(engine, () => slice.pause());
        const gauges: VaultGauges = {
          notes: stats.notes,
          attachments: stats.attachments,
          words: stats.words,
          links: stats.links,
          broken_links: stats.broken_links,
          orphans: stats.orphans,
          open_tasks: stats.open_tasks,
          tags: stats.tags,
        };
        samples.push({ label, available, gauges });
      } catch (error) {
        // One vault that cannot be counted leaves its gauges out; the rest of the scrape stands.
        this.options.logger.log({ level: "warn", event: "metrics_vault_failed", vault: label, error: error instanceof Error ? error.name : typeof error });
        samples.push({ label, available });
      }
    }
    const counted = { at: this.options.now(), samples, seconds: (this.options.now() - started) / 1000 };
    this.last = counted;
    return counted;
  }
}
