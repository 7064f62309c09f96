// What the index keeps per note, by MiniSearch's short id, in typed arrays: whether it is indexed,
// its field lengths (and their sums, for the averages BM25F divides by) and its phrase filter. The
// evaluator reads these once per posting; MiniSearch's own maps would cost a lookup each.
import type { DocumentTable } from "./evaluator";
import type { FieldLengthStore, MiniSearchWriter } from "./minisearch-access";
import { FIELD_COUNT } from "./ranking";

/** Per-document arrays by short id, grown as ids are handed out. */
export class Documents implements DocumentTable, FieldLengthStore {
  alive = new Uint8Array(0);
  fieldLengths = new Int32Array(0);
  filters: Array<Uint8Array | undefined> = [];
  readonly fieldCount = FIELD_COUNT;
  removals = 0;
  live = 0;
  /** Sum of each field's length over the live documents. */
  private readonly totals = new Float64Array(FIELD_COUNT);
  private readonly writer: () => MiniSearchWriter;

  constructor(writer: () => MiniSearchWriter) {
    this.writer = writer;
  }

  path(id: number): string {
    return this.writer().documentId(id)!;
  }

  reserve(ids: number): void {
    if (this.alive.length >= ids) return;
    const capacity = Math.max(ids, this.alive.length * 2, 256);
    const alive = new Uint8Array(capacity);
    alive.set(this.alive);
    const fieldLengths = new Int32Array(capacity * FIELD_COUNT);
    fieldLengths.set(this.fieldLengths);
    this.alive = alive;
    this.fieldLengths = fieldLengths;
  }

  add(id: number, lengths: ArrayLike<number>, filter: Uint8Array | undefined): void {
    this.setLengths(id, lengths);
    for (let f = 0; f < FIELD_COUNT; f++) this.totals[f] = this.totals[f]! + lengths[f]!;
    this.alive[id] = 1;
    this.filters[id] = filter;
    this.live += 1;
  }

  setLengths(id: number, lengths: ArrayLike<number>): void {
    this.reserve(id + 1);
    for (let f = 0; f < FIELD_COUNT; f++) this.fieldLengths[id * FIELD_COUNT + f] = lengths[f]!;
  }

  lengthsOf(id: number): Int32Array | undefined {
    return this.alive[id] === 1 ? this.fieldLengths.subarray(id * FIELD_COUNT, (id + 1) * FIELD_COUNT) : undefined;
  }

  *indexedIds(): IterableIterator<number> {
    for (let id = 0; id < this.alive.length; id++) if (this.alive[id] === 1) yield id;
  }

  get indexed(): number {
    return this.live;
  }

  averageLength(f: number): number {
    return this.live > 0 ? this.totals[f]! / this.live : 0;
  }

  remove(id: number): void {
    for (let f = 0; f < FIELD_COUNT; f++) this.totals[f] = this.totals[f]! - this.fieldLengths[id * FIELD_COUNT + f]!;
    this.alive[id] = 0;
    this.filters[id] = undefined;
    this.live -= 1;
    this.removals += 1;
  }
}
