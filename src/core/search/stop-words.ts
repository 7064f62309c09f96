// Function words of the languages notes are written in, in their folded index form (für → fur,
// daß → dass): the Snowball lists of English, German and French, the core of Snowball's Spanish list
// (the packaged Spanish list holds content words: día, nuevo, trabajar), and a few words a question
// is made of. They stay in the index so phrases containing them still match; queries give them
// little weight (ranking.ts), and a note matching nothing else is no hit.
import { stopwords as englishList } from "@orama/stopwords/english";
import { stopwords as frenchList } from "@orama/stopwords/french";
import { stopwords as germanList } from "@orama/stopwords/german";

const SPANISH = [
  "de", "la", "que", "el", "en", "y", "a", "los", "del", "se", "las", "por", "un", "para", "con", "no", "una", "su", "al",
  "lo", "como", "mas", "pero", "sus", "le", "ya", "o", "este", "si", "porque", "esta", "entre", "cuando", "muy", "sin",
  "sobre", "tambien", "me", "hasta", "hay", "donde", "quien", "desde", "todo", "nos", "durante", "todos", "uno", "les",
  "ni", "contra", "otros", "ese", "eso", "ante", "ellos", "e", "esto", "mi", "antes", "algunos", "unos", "yo", "otro",
  "otras", "otra", "tanto", "esa", "estos", "mucho", "quienes", "nada", "muchos", "cual", "poco", "ella", "estar", "estas",
  "algunas", "algo", "nosotros", "mis", "tu", "te", "ti", "tus", "ellas", "os", "mio", "mia", "tuyo", "tuya", "suyo",
  "suya", "nuestro", "nuestra", "esos", "esas", "estoy", "esta", "estamos", "estan", "es", "son", "fue", "era", "ser",
  "soy", "he", "ha", "han", "hemos", "cada",
];

const QUESTION_WORDS = ["can", "could", "would", "should", "will", "also", "how", "what", "why", "where", "when", "which", "who"];

/** Listed as function words but content words in notes. */
const NOT_STOP_WORDS: ReadonlySet<string> = new Set(["general", "total"]);

const SPELLED: Readonly<Record<string, string>> = { ß: "ss", æ: "ae", ø: "o", œ: "oe" };

function fold(word: string): string {
  return word
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[ßæøœ]/g, (letter) => SPELLED[letter]!);
}

function folded(lists: ReadonlyArray<readonly string[]>): Set<string> {
  const words = new Set<string>();
  for (const list of lists) {
    for (const word of list) {
      const term = fold(word);
      if (/^\p{L}+$/u.test(term) && !NOT_STOP_WORDS.has(term)) words.add(term);
    }
  }
  return words;
}

export const STOP_WORDS: ReadonlySet<string> = folded([englishList, germanList, SPANISH, frenchList, QUESTION_WORDS]);

export function isStopWord(term: string): boolean {
  return STOP_WORDS.has(term);
}
