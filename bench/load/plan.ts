// What the clients work on: search queries made of the corpus's own words, and the append targets
// (a few hot notes shared by all, a disjoint set owned by each client), all drawn from one seed.
import { promises as fs } from "node:fs";
import path from "node:path";
import { seededRandom } from "./client";

const SAMPLED_NOTES = 200;
const QUERY_COUNT = 300;
const WORD = /\p{L}{4,}/gu;

export interface AppendTargets {
  hot: string[];
  /** `own[i]` belongs to client i only. */
  own: string[][];
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

export function pickTargets(notes: readonly string[], clients: number, ownPerClient: number, hot: number, seed: number): AppendTargets {
  const needed = hot + clients * ownPerClient;
  if (notes.length < needed) throw new Error(`the vault has ${notes.length} notes; ${clients} clients need ${needed} append targets (use more --notes or fewer --own-notes)`);
  const order = shuffled(notes, seededRandom(seed));
  return {
    hot: order.slice(0, hot),
    own: Array.from({ length: clients }, (_, client) => order.slice(hot + client * ownPerClient, hot + (client + 1) * ownPerClient)),
  };
}

/** One- and two-word queries and prefixes, from words found in a seeded sample of the notes. */
export async function corpusQueries(root: string, notes: readonly string[], seed: number): Promise<string[]> {
  const random = seededRandom(seed ^ 0x5eed);
  const words = new Set<string>();
  for (const note of shuffled(notes, random).slice(0, SAMPLED_NOTES)) {
    const text = await fs.readFile(path.join(root, note), "utf8");
    for (const match of text.matchAll(WORD)) words.add(match[0].toLowerCase());
  }
  const vocabulary = [...words].sort();
  if (vocabulary.length === 0) throw new Error("no words of four letters or more in the sampled notes; cannot make search queries");
  const word = (): string => vocabulary[Math.floor(random() * vocabulary.length)]!;
  return Array.from({ length: QUERY_COUNT }, (_, index) => {
    switch (index % 3) {
      case 0:
        return word();
      case 1:
        return `${word()} ${word()}`;
      default:
        return `${word().slice(0, 4)}*`;
    }
  });
}
