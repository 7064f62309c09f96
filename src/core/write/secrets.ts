// Credentials must not land in a vault that syncs to other devices and feeds other agents. Detectors
// look only at lines a write adds; documentation placeholders (`Bearer <token>`, `sk-...`) pass.

export interface SecretFinding {
  /** 1-based line of the new text. */
  line: number;
  detector: string;
}

interface Detector {
  name: string;
  pattern: RegExp;
}

const DETECTORS: readonly Detector[] = [
  { name: "private key", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { name: "JSON web token", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { name: "bearer token", pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/ },
  { name: "Anthropic API key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { name: "OpenAI API key", pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/ },
  { name: "GitHub token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/ },
  { name: "AWS access key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { name: "Slack token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { name: "Google API key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { name: "Stripe key", pattern: /\b(?:sk|rk)_live_[0-9a-zA-Z]{20,}/ },
  { name: "Second Brain token", pattern: /\bsbm_[A-Za-z0-9_-]{40,}/ },
];

/** Placeholder-looking values: a run of one character, x's, or the words people use in docs. */
function looksLikePlaceholder(match: string): boolean {
  const value = match.replace(/^(?:Bearer\s+|sk-(?:ant-|proj-)?|gh[pousr]_|xox[abposr]-|sbm_)/, "");
  if (/^(.)\1+$/.test(value.replace(/[-_.]/g, ""))) return true;
  return /x{6,}|\.{3}|example|placeholder|your[-_]?|redacted|<|>|\*{3,}/i.test(value);
}

export function findSecrets(addedLines: ReadonlyArray<{ line: number; text: string }>): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const { line, text } of addedLines) {
    for (const detector of DETECTORS) {
      const match = detector.pattern.exec(text);
      if (match && !looksLikePlaceholder(match[0])) {
        findings.push({ line, detector: detector.name });
        break;
      }
    }
  }
  return findings;
}
