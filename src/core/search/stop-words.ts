// English and German function words, in their folded index form (für → fur, daß → dass). They stay in
// the index so phrases containing them still match; queries only give them little weight.

const ENGLISH = [
  "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as",
  "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
  "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further",
  "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in",
  "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "no", "nor", "not", "of",
  "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "s", "same", "she",
  "should", "so", "some", "such", "t", "than", "that", "the", "their", "them", "then", "there",
  "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was",
  "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
  "would", "you", "your",
];

const GERMAN = [
  "aber", "alle", "als", "also", "auch", "auf", "aus", "bei", "bin", "bis", "bist", "da", "damit",
  "dann", "das", "dass", "dein", "dem", "den", "denn", "der", "des", "die", "dies", "diese", "doch",
  "du", "durch", "ein", "eine", "einem", "einen", "einer", "eines", "er", "es", "fur", "hat",
  "hatte", "ich", "ihr", "im", "ist", "ja", "kann", "mit", "nach", "nicht", "noch", "nur", "ob",
  "oder", "sich", "sie", "sind", "um", "und", "uns", "von", "vor", "wenn", "wie", "wir", "wird",
  "zu", "zum", "zur",
];

export const STOP_WORDS: ReadonlySet<string> = new Set([...ENGLISH, ...GERMAN]);

export function isStopWord(term: string): boolean {
  return STOP_WORDS.has(term);
}
