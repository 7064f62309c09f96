// Embedding providers: a model behind an interface that turns texts into vectors. The one here speaks
// the OpenAI-compatible `/v1/embeddings` protocol (Ollama, LM Studio, llama.cpp server, Hugging Face
// TEI, OpenAI) over a transport the host supplies (fetch on Node, requestUrl in Obsidian, which is not
// held to the browser's CORS rules). It never throws anything but an EmbeddingError, whose message
// names the endpoint's host and the failure, never the key or the texts.

/**
 * What a text is: a question asked of the vault or a passage of a note. Asymmetric models are trained
 * with a marker on each side (e5: "query: " and "passage: ") and rank worse without it.
 */
export type EmbeddingRole = "query" | "passage";

export interface EmbeddingProvider {
  /** The model's name as the endpoint knows it; vectors record it, and a change re-embeds everything. */
  readonly model: string;
  /** Most texts sent in one request. */
  readonly batchSize: number;
  /** One vector per text, in order, each of the same length. */
  embed(texts: readonly string[], role: EmbeddingRole): Promise<Float32Array[]>;
}

export interface HttpResponse {
  status: number;
  body: string;
}

/** POSTs a JSON body; rejects when no answer came (refused, reset, timed out: `timedOut` says which). */
export type HttpPost = (url: string, headers: Readonly<Record<string, string>>, body: string, timeoutMs: number) => Promise<HttpResponse>;

export class TransportError extends Error {
  readonly timedOut: boolean;
  constructor(message: string, timedOut: boolean) {
    super(message);
    this.name = "TransportError";
    this.timedOut = timedOut;
  }
}

export type EmbeddingFailure = "unreachable" | "timeout" | "http" | "bad_response";

export class EmbeddingError extends Error {
  readonly failure: EmbeddingFailure;
  readonly status: number | undefined;
  constructor(failure: EmbeddingFailure, message: string, status?: number) {
    super(message);
    this.name = "EmbeddingError";
    this.failure = failure;
    this.status = status;
  }
}

export interface OpenAIProviderOptions {
  /** The endpoint: a base such as `http://localhost:11434/v1`, or the full `…/v1/embeddings`. */
  url: string;
  model: string;
  /** Sent as a bearer token when set; never logged or returned. */
  apiKey?: string;
  post: HttpPost;
  /** Texts per request (default 32). */
  batchSize?: number;
  /** How long one request may take (default 30 s). */
  timeoutMs?: number;
  /** Most requests a minute toward the endpoint (default 600, one every 100 ms). */
  requestsPerMinute?: number;
  /** Put before each question / each passage; none unless configured, since most served models want none. */
  queryPrefix?: string;
  passagePrefix?: string;
  now?: () => number;
  /** Waits for the rate limit (the host's timer: core code has none of its own). */
  sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_BATCH_SIZE = 32;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_REQUESTS_PER_MINUTE = 600;

/** `…/embeddings` as given; a base gains `/embeddings` (when it ends in a version) or `/v1/embeddings`. */
export function embeddingsUrl(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, "");
  if (/\/embeddings$/.test(trimmed)) return trimmed;
  if (/\/v\d+$/.test(trimmed)) return `${trimmed}/embeddings`;
  return `${trimmed}/v1/embeddings`;
}

/** Why a URL cannot be an endpoint, or null: http(s), no credentials in it (the key has its own field). */
export function endpointProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL; give the endpoint, e.g. http://localhost:11434/v1";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "must be an http(s) URL";
  if (parsed.username !== "" || parsed.password !== "") return "must not hold credentials; set the API key on its own";
  return null;
}

export class OpenAICompatibleProvider implements EmbeddingProvider {
  readonly model: string;
  readonly batchSize: number;
  private readonly url: string;
  private readonly host: string;
  private readonly options: OpenAIProviderOptions;
  private readonly interval: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** When the next request may leave; requests queue behind each other for the rate limit. */
  private nextSlot = 0;

  constructor(options: OpenAIProviderOptions) {
    this.options = options;
    this.model = options.model;
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
    this.url = embeddingsUrl(options.url);
    this.host = new URL(this.url).host;
    this.interval = 60_000 / Math.max(1, options.requestsPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE);
    this.now = options.now ?? (() => Date.now());
    this.sleep = options.sleep;
  }

  async embed(texts: readonly string[], role: EmbeddingRole = "passage"): Promise<Float32Array[]> {
    const prefix = (role === "query" ? this.options.queryPrefix : this.options.passagePrefix) ?? "";
    const marked = prefix === "" ? texts : texts.map((text) => prefix + text);
    const vectors: Float32Array[] = [];
    for (let at = 0; at < marked.length; at += this.batchSize) vectors.push(...(await this.request(marked.slice(at, at + this.batchSize))));
    return vectors;
  }

  private async waitForSlot(): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.interval;
    if (slot > now) await this.sleep(slot - now);
  }

  private async request(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    await this.waitForSlot();
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    const timeout = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let response: HttpResponse;
    try {
      response = await this.options.post(this.url, headers, JSON.stringify({ model: this.model, input: texts }), timeout);
    } catch (error) {
      if (error instanceof TransportError && error.timedOut) {
        throw new EmbeddingError("timeout", `the embedding endpoint at ${this.host} did not answer within ${timeout} ms`);
      }
      throw new EmbeddingError("unreachable", `the embedding endpoint at ${this.host} could not be reached (is the server running?)`);
    }
    if (response.status < 200 || response.status > 299) {
      const hint = response.status === 401 || response.status === 403 ? " (check the API key)" : response.status === 404 ? ` (check the URL and that model "${this.model}" exists there)` : "";
      throw new EmbeddingError("http", `the embedding endpoint at ${this.host} answered HTTP ${response.status}${hint}`, response.status);
    }
    return this.parse(response.body, texts.length);
  }

  private parse(body: string, count: number): Float32Array[] {
    const bad = (why: string): EmbeddingError => new EmbeddingError("bad_response", `the embedding endpoint at ${this.host} sent an answer that is not OpenAI embeddings: ${why}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw bad("not JSON");
    }
    const data = (parsed as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== count) throw bad(`expected ${count} embeddings`);
    const vectors = new Array<Float32Array>(count);
    let dims = -1;
    for (const [position, item] of data.entries()) {
      const embedding = (item as { embedding?: unknown }).embedding;
      const index = (item as { index?: unknown }).index;
      const at = typeof index === "number" && Number.isInteger(index) && index >= 0 && index < count ? index : position;
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((value) => typeof value === "number" && Number.isFinite(value))) throw bad("an embedding is not a list of numbers");
      if (dims !== -1 && embedding.length !== dims) throw bad("embeddings of different lengths");
      dims = embedding.length;
      vectors[at] = Float32Array.from(embedding as number[]);
    }
    if (vectors.some((vector) => vector === undefined)) throw bad("indexes do not cover the inputs");
    return vectors;
  }
}
