// A git pack (version 2) and its index (version 2), as `git index-pack` would write them, for the
// history's compaction: each commit rewrites the tree of every folder it touches, and a folder of
// thousands of notes is a tree of a hundred kilobytes, so loose objects grow by that much a write.
// In a pack each version of a tree or note is stored as a delta against the next newer version of the
// same path (git's own choice: the newest version, the one read most, is whole).

export type PackObjectType = "commit" | "tree" | "blob";

export interface PackInput {
  oid: string;
  type: PackObjectType;
  /** The object's content, without git's `type size\0` header. */
  content: Uint8Array;
  /** An earlier entry of the same pack this one is stored as a delta against; its index in the list. */
  base?: number;
}

export interface PackCodecs {
  /** zlib's deflate (RFC 1950), as loose objects are stored. */
  deflate(bytes: Uint8Array): Promise<Uint8Array>;
  /** SHA-1 in lower-case hex. */
  sha1(bytes: Uint8Array): Promise<string> | string;
}

export interface EncodedPack {
  /** The pack's own SHA-1: its file names are `pack-<name>.pack` and `pack-<name>.idx`. */
  name: string;
  pack: Uint8Array;
  index: Uint8Array;
}

const TYPE_CODES: Record<PackObjectType, number> = { commit: 1, tree: 2, blob: 3 };
const OFS_DELTA = 6;
/** A copy instruction copies at most this much (24 bits of size); a longer run is several. */
const MAX_COPY = 0xffffff;
/** An insert instruction carries at most 127 bytes. */
const MAX_INSERT = 127;
/** Offsets past this need the index's 64-bit table, which these packs are kept far from. */
export const MAX_PACK_BYTES = 0x7fffffff;

/** A size in git's delta header: 7 bits a byte, least significant first. */
function pushVarint(out: number[], value: number): void {
  let rest = value;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    out.push(byte);
  } while (rest > 0);
}

function pushCopy(out: number[], offset: number, size: number): void {
  let at = offset;
  let left = size;
  while (left > 0) {
    const run = Math.min(left, MAX_COPY);
    const operands: number[] = [];
    let op = 0x80;
    for (let i = 0; i < 4; i++) {
      const byte = Math.floor(at / 2 ** (8 * i)) % 256;
      if (byte !== 0) {
        op |= 1 << i;
        operands.push(byte);
      }
    }
    // A size of exactly 0x10000 is written as no size bytes at all.
    if (run !== 0x10000) {
      for (let i = 0; i < 3; i++) {
        const byte = Math.floor(run / 2 ** (8 * i)) % 256;
        if (byte !== 0) {
          op |= 0x10 << i;
          operands.push(byte);
        }
      }
    }
    out.push(op, ...operands);
    at += run;
    left -= run;
  }
}

function pushInsert(out: number[], bytes: Uint8Array, from: number, to: number): void {
  for (let start = from; start < to; start += MAX_INSERT) {
    const end = Math.min(to, start + MAX_INSERT);
    out.push(end - start);
    for (let i = start; i < end; i++) out.push(bytes[i]!);
  }
}

/**
 * `target` as a git delta against `base`: the bytes they share at the start and at the end copied, the
 * rest inserted. A tree patched for a commit, or a note edited in one place, differs from its
 * neighbour version in one run; null when the delta would save too little to be worth a lookup chain.
 */
export function deltaOf(base: Uint8Array, target: Uint8Array): Uint8Array | null {
  const most = Math.min(base.length, target.length);
  let prefix = 0;
  while (prefix < most && base[prefix] === target[prefix]) prefix++;
  let suffix = 0;
  while (suffix < most - prefix && base[base.length - 1 - suffix] === target[target.length - 1 - suffix]) suffix++;
  const inserted = target.length - prefix - suffix;
  if (inserted > target.length / 2) return null;
  const out: number[] = [];
  pushVarint(out, base.length);
  pushVarint(out, target.length);
  if (prefix > 0) pushCopy(out, 0, prefix);
  pushInsert(out, target, prefix, prefix + inserted);
  if (suffix > 0) pushCopy(out, base.length - suffix, suffix);
  return Uint8Array.from(out);
}

/** Applies a git delta; throws on one that does not fit its base. Compaction checks each delta with it before anything is removed. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = delta[at++];
      if (byte === undefined) throw new Error("delta cut short");
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if ((byte & 0x80) === 0) return value;
    }
  };
  if (varint() !== base.length) throw new Error("delta made for another base");
  const out = new Uint8Array(varint());
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset += delta[at++]! * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) size += delta[at++]! * 2 ** (8 * i);
      if (size === 0) size = 0x10000;
      if (offset + size > base.length || written + size > out.length) throw new Error("delta copies past its bounds");
      out.set(base.subarray(offset, offset + size), written);
      written += size;
    } else if (op > 0) {
      if (at + op > delta.length || written + op > out.length) throw new Error("delta inserts past its bounds");
      out.set(delta.subarray(at, at + op), written);
      at += op;
      written += op;
    } else {
      throw new Error("delta has a reserved instruction");
    }
  }
  if (written !== out.length) throw new Error("delta leaves its result short");
  return out;
}

let crcTable: Uint32Array | null = null;

/** CRC-32 (ISO 3309), as the pack index keeps one of each entry's bytes. */
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** An entry's header: type and size, 4 bits of size in the first byte, then 7 a byte. */
function entryHeader(type: number, size: number): number[] {
  const out: number[] = [];
  let byte = (type << 4) | (size % 16);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    out.push(byte | 0x80);
    byte = rest % 128;
    rest = Math.floor(rest / 128);
  }
  out.push(byte);
  return out;
}

/** How far back an OFS_DELTA's base lies, in git's big-endian base-128 with an offset per byte. */
function negativeOffset(distance: number): number[] {
  let rest = distance;
  const out = [rest % 128];
  rest = Math.floor(rest / 128);
  while (rest > 0) {
    rest -= 1;
    out.unshift(0x80 | rest % 128);
    rest = Math.floor(rest / 128);
  }
  return out;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function uint32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/**
 * The pack and its index. An entry with a `base` is stored as a delta against it when that is smaller,
 * and every delta is applied back and compared with the content before it is kept.
 */
export async function encodePack(entries: readonly PackInput[], codecs: PackCodecs): Promise<EncodedPack> {
  const header = new Uint8Array(12);
  header.set([0x50, 0x41, 0x43, 0x4b]);
  new DataView(header.buffer).setUint32(4, 2);
  new DataView(header.buffer).setUint32(8, entries.length);
  const parts: Uint8Array[] = [header];
  const offsets: number[] = [];
  const crcs: number[] = [];
  let size = header.length;
  for (const [index, entry] of entries.entries()) {
    const base = entry.base === undefined ? undefined : entries[entry.base];
    if (entry.base !== undefined && (entry.base >= index || !base)) throw new Error(`pack entry ${index} names a base that does not come before it`);
    let delta = base ? deltaOf(base.content, entry.content) : null;
    if (delta && base) {
      const rebuilt = applyDelta(base.content, delta);
      if (rebuilt.length !== entry.content.length || rebuilt.some((byte, at) => byte !== entry.content[at])) throw new Error(`the delta of ${entry.oid} does not rebuild it`);
    }
    if (delta && delta.length >= entry.content.length) delta = null;
    const head = delta ? [...entryHeader(OFS_DELTA, delta.length), ...negativeOffset(size - offsets[entry.base!]!)] : entryHeader(TYPE_CODES[entry.type], entry.content.length);
    const body = await codecs.deflate(delta ?? entry.content);
    const record = concat([Uint8Array.from(head), body]);
    offsets.push(size);
    crcs.push(crc32(record));
    parts.push(record);
    size += record.length;
    if (size > MAX_PACK_BYTES) throw new Error("the pack would pass 2 GiB");
  }
  const body = concat(parts);
  const name = await codecs.sha1(body);
  const pack = concat([body, hexBytes(name)]);

  const order = entries.map((_, index) => index).sort((a, b) => (entries[a]!.oid < entries[b]!.oid ? -1 : entries[a]!.oid > entries[b]!.oid ? 1 : 0));
  for (let i = 1; i < order.length; i++) if (entries[order[i]!]!.oid === entries[order[i - 1]!]!.oid) throw new Error(`the pack holds ${entries[order[i]!]!.oid} twice`);
  const fanout = new Uint8Array(256 * 4);
  const view = new DataView(fanout.buffer);
  let counted = 0;
  for (let first = 0; first < 256; first++) {
    while (counted < order.length && parseInt(entries[order[counted]!]!.oid.slice(0, 2), 16) <= first) counted++;
    view.setUint32(first * 4, counted);
  }
  const indexBody = concat([
    Uint8Array.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...order.map((at) => hexBytes(entries[at]!.oid)),
    ...order.map((at) => uint32(crcs[at]!)),
    ...order.map((at) => uint32(offsets[at]!)),
    hexBytes(name),
  ]);
  const index = concat([indexBody, hexBytes(await codecs.sha1(indexBody))]);
  return { name, pack, index };
}
