// "Restore a previous version of the active note": earlier versions (trash copies) with their date
// and size change; the chosen one is written back through the write path.
import { SuggestModal, type App } from "obsidian";
import { formatMoment } from "../../core/dates-format";

export interface RestoreCandidate {
  /** Where the bytes come from, e.g. a trash copy's path. */
  id: string;
  source: "trash" | "history";
  when: number;
  bytes: number;
  /** Bytes relative to the current version. */
  delta: number;
  label?: string;
}

function formatDelta(delta: number): string {
  if (delta === 0) return "same size";
  return `${delta > 0 ? "+" : "−"}${Math.abs(delta).toLocaleString()} bytes`;
}

export function describeCandidate(candidate: RestoreCandidate): { title: string; detail: string } {
  const when = formatMoment(candidate.when, "YYYY-MM-DD HH:mm:ss");
  const origin = candidate.source === "trash" ? "Before a change" : (candidate.label ?? "History");
  return { title: when, detail: `${origin} · ${candidate.bytes.toLocaleString()} bytes (${formatDelta(candidate.delta)})` };
}

export class RestoreModal extends SuggestModal<RestoreCandidate> {
  private readonly candidates: RestoreCandidate[];
  private readonly onChoose: (candidate: RestoreCandidate) => void;

  constructor(app: App, notePath: string, candidates: RestoreCandidate[], onChoose: (candidate: RestoreCandidate) => void) {
    super(app);
    this.candidates = candidates;
    this.onChoose = onChoose;
    this.setPlaceholder(`Restore ${notePath} to the version of…`);
    this.emptyStateText = "No earlier version of this note.";
  }

  getSuggestions(query: string): RestoreCandidate[] {
    const wanted = query.trim().toLowerCase();
    if (wanted === "") return this.candidates;
    return this.candidates.filter((candidate) => {
      const { title, detail } = describeCandidate(candidate);
      return `${title} ${detail}`.toLowerCase().includes(wanted);
    });
  }

  renderSuggestion(candidate: RestoreCandidate, el: HTMLElement): void {
    const { title, detail } = describeCandidate(candidate);
    el.createDiv({ cls: "secondbrain-restore-title", text: title });
    el.createEl("small", { cls: "secondbrain-restore-detail", text: detail });
  }

  onChooseSuggestion(candidate: RestoreCandidate): void {
    this.onChoose(candidate);
  }
}
