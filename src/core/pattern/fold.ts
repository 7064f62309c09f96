// Simple case folding, as JavaScript's `iu` flags compare characters (Canonicalize: CaseFolding.txt,
// statuses C and S). Taken from the runtime's own case mappings, so it follows the Unicode version of the
// host (Node or Obsidian's Electron) without a table of our own.

/** Blocks that hold every character with a case variant (checked against all code points by a test). */
export const CASED_BLOCKS: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x2fff],
  [0xa600, 0xabff],
  [0xfb00, 0xffff],
  [0x10400, 0x10fff],
  [0x11800, 0x118ff],
  [0x16e00, 0x16eff],
  [0x1e900, 0x1e9ff],
];

/** Dotless i folds to itself although its upper case is I (Turkic casing is not simple folding). */
const FOLDS_TO_ITSELF = new Set([0x131]);

function single(text: string): number {
  const cp = text.codePointAt(0);
  return cp !== undefined && (cp > 0xffff ? 2 : 1) === text.length ? cp : -1;
}

/** The runtime's simple fold of one code point: lower case of its upper case, where both are one character. */
export function computeFold(cp: number): number {
  if (FOLDS_TO_ITSELF.has(cp) || (cp >= 0xd800 && cp <= 0xdfff)) return cp;
  const text = String.fromCodePoint(cp);
  const upper = text.toUpperCase();
  if (single(upper) >= 0) {
    const lower = single(upper.toLowerCase());
    if (lower >= 0) return lower;
  }
  const lower = single(text.toLowerCase());
  return lower >= 0 ? lower : cp;
}

const ASCII_FOLD = new Uint32Array(128).map((_, cp) => (cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp));
let folds: Map<number, number> | null = null;
let variants: Array<readonly [number, number]> | null = null;

/** Built once, on the first case-insensitive pattern: about 20,000 code points, a few milliseconds. */
function table(): Map<number, number> {
  if (folds !== null) return folds;
  const built = new Map<number, number>();
  for (const [low, high] of CASED_BLOCKS) {
    for (let cp = Math.max(low, 0x80); cp <= high; cp++) {
      const folded = computeFold(cp);
      if (folded !== cp) built.set(cp, folded);
    }
  }
  folds = built;
  return built;
}

export function foldCodePoint(cp: number): number {
  if (cp < 128) return ASCII_FOLD[cp]!;
  return table().get(cp) ?? cp;
}

/** Every code point whose fold is another one, with that fold. */
export function caseVariants(): ReadonlyArray<readonly [number, number]> {
  if (variants !== null) return variants;
  const list: Array<readonly [number, number]> = [];
  for (let cp = 0x41; cp <= 0x5a; cp++) list.push([cp, cp + 32]);
  for (const [cp, folded] of table()) list.push([cp, folded]);
  variants = list;
  return list;
}

let targets: Set<number> | null = null;

/** Whether a code point has a case variant at all (then `i` compares it by its fold). */
export function hasCaseVariant(cp: number): boolean {
  if (foldCodePoint(cp) !== cp) return true;
  targets ??= new Set(caseVariants().map(([, folded]) => folded));
  return targets.has(cp);
}

let orbits: Map<number, number[]> | null = null;

/** The code points that fold alike with `cp`, itself included. */
export function sameFold(cp: number): number[] {
  if (orbits === null) {
    const built = new Map<number, number[]>();
    for (const [variant, folded] of caseVariants()) {
      const orbit = built.get(folded) ?? [folded];
      orbit.push(variant);
      built.set(folded, orbit);
    }
    orbits = built;
  }
  return orbits.get(foldCodePoint(cp)) ?? [cp];
}
