// Phrases are verified on the text of the candidate notes, not stored in the index (bodies of 20,000
// notes would double memory and the snapshot): candidates are read in rank order only until a page
// is full, the rest estimated from the share verified.
import type { Candidate, RankedCandidates } from "./candidates";
import { matchedTerm, type Evaluation } from "./evaluator";
import { PhraseText, containsPhrase } from "./phrase";
import type { HitChecks, PhraseCheck } from "./query-plan";
import { wordSequence } from "./tokenizer";

const PHRASE_READ_CONCURRENCY = 8;

export interface PhrasePlan {
  evaluation: Evaluation;
  checks: HitChecks;
  phrases: PhraseCheck[];
  /** The query has phrases every hit must hold (else only suspects of excluded phrases are read). */
  hasPositivePhrases: boolean;
  /** Candidates holding every term of an excluded phrase, with those phrases. */
  suspects: ReadonlyMap<number, PhraseCheck[]>;
  loadText: ((path: string) => Promise<string | null>) | undefined;
}

/**
 * Keeps the candidates (sorted best first) that really hold their phrases, reading their text in
 * rank order only until `wanted` are kept: a phrase of two common words has thousands of candidates,
 * and a page of 10 needs about 10 of them read. The rest is estimated from the share verified.
 */
export async function verifyPhrases(
  candidates: RankedCandidates,
  wanted: number,
  pathOf: (candidate: Candidate) => string,
  plan: PhrasePlan,
): Promise<{ kept: Candidate[]; total: number; estimated: boolean }> {
  const { hasPositivePhrases } = plan;
  const loadText = plan.loadText;
  if (!loadText) {
    const kept = candidates.all().filter((candidate) => !plan.suspects.has(candidate.id));
    return { kept, total: kept.length, estimated: false };
  }
  // Reads run up to PHRASE_READ_CONCURRENCY ahead of the candidate being decided, in rank order.
  const kept: Candidate[] = [];
  const verdicts = new Map<number, Promise<boolean>>();
  let launched = 0;
  let checked = 0;
  while (checked < candidates.length && (kept.length < wanted || checked === 0)) {
    while (launched < candidates.length && launched < checked + PHRASE_READ_CONCURRENCY) {
      const candidate = candidates.at(launched);
      if (hasPositivePhrases || plan.suspects.has(candidate.id)) {
        verdicts.set(launched, holdsPhrases(candidate, pathOf(candidate), plan, loadText).catch(() => false));
      }
      launched += 1;
    }
    const verdict = verdicts.get(checked);
    verdicts.delete(checked);
    if (verdict === undefined || (await verdict)) kept.push(candidates.at(checked));
    checked += 1;
  }
  const remaining = candidates.length - checked;
  if (remaining === 0) return { kept, total: kept.length, estimated: false };
  return { kept, total: kept.length + Math.round((remaining * kept.length) / checked), estimated: true };
}

async function holdsPhrases(
  candidate: Candidate,
  path: string,
  plan: PhrasePlan,
  loadText: (path: string) => Promise<string | null>,
): Promise<boolean> {
  const text = await loadText(path);
  if (text === null) return false;
  const body = new PhraseText(text);
  const titleWords = wordSequence(basename(path));
  const present = (phrase: PhraseCheck): boolean => body.contains(phrase.words) || containsPhrase(titleWords, phrase.words);
  if (!plan.phrases.every(present)) return false;
  const groupsHold = plan.checks.groups.every((alternatives) =>
    alternatives.some(
      (alternative) =>
        alternative.terms.every((term) => matchedTerm(plan.evaluation, candidate.at, term)) && alternative.phrases.every(({ phrase }) => present(phrase)),
    ),
  );
  if (!groupsHold) return false;
  return !(plan.suspects.get(candidate.id) ?? []).some(present);
}

function basename(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}
