// Workspace (obsidian-api.md §3): layout-ready queue, the active file, and leaves that record what
// they opened. The editor is a minimal text model with a selection, enough for active_note.
import { Events } from "./events";
import type { TFile } from "./vault";

export interface EditorPosition {
  line: number;
  ch: number;
}

export class Editor {
  text = "";
  from: EditorPosition = { line: 0, ch: 0 };
  to: EditorPosition = { line: 0, ch: 0 };

  getValue(): string {
    return this.text;
  }

  getCursor(which: "from" | "to" | "head" | "anchor" = "head"): EditorPosition {
    return which === "from" || which === "anchor" ? { ...this.from } : { ...this.to };
  }

  private offset(pos: EditorPosition): number {
    const lines = this.text.split("\n");
    let at = 0;
    for (let line = 0; line < pos.line; line++) at += (lines[line] ?? "").length + 1;
    return at + pos.ch;
  }

  getSelection(): string {
    return this.text.slice(this.offset(this.from), this.offset(this.to));
  }

  setSelection(from: EditorPosition, to: EditorPosition = from): void {
    this.from = from;
    this.to = to;
  }
}

export class View {
  leaf: WorkspaceLeaf;

  constructor(leaf: WorkspaceLeaf) {
    this.leaf = leaf;
  }
}

export class MarkdownView extends View {
  file: TFile | null = null;
  editor = new Editor();
}

export interface OpenViewState {
  eState?: Record<string, unknown>;
  active?: boolean;
}

export class WorkspaceLeaf {
  view: MarkdownView;
  readonly workspace: Workspace;
  /** What this leaf was asked to open, in order. */
  readonly opened: Array<{ path: string; state?: OpenViewState }> = [];

  constructor(workspace: Workspace) {
    this.workspace = workspace;
    this.view = new MarkdownView(this);
  }

  async openFile(file: TFile, state?: OpenViewState): Promise<void> {
    this.opened.push({ path: file.path, state });
    this.view.file = file;
    this.view.editor.text = await file.vault.cachedRead(file);
    this.view.editor.setSelection({ line: 0, ch: 0 });
    this.workspace.activeLeaf = this;
    this.workspace.trigger("file-open", file);
  }
}

export class Workspace extends Events {
  layoutReady = false;
  private readonly readyQueue: Array<() => unknown> = [];
  activeLeaf: WorkspaceLeaf | null = null;
  readonly leaves: WorkspaceLeaf[] = [];

  onLayoutReady(callback: () => unknown): void {
    if (this.layoutReady) void callback();
    else this.readyQueue.push(callback);
  }

  /** The app's startup reaching layout-ready. */
  setLayoutReady(): void {
    this.layoutReady = true;
    for (const callback of this.readyQueue.splice(0)) void callback();
    this.trigger("layout-change");
  }

  getActiveFile(): TFile | null {
    return this.activeLeaf?.view.file ?? null;
  }

  getActiveViewOfType<T>(type: abstract new (...args: never[]) => T): T | null {
    const view = this.activeLeaf?.view;
    return view instanceof (type as unknown as typeof MarkdownView) ? (view as unknown as T) : null;
  }

  getLeaf(newLeaf?: boolean | "tab" | "split" | "window"): WorkspaceLeaf {
    if (!newLeaf && this.activeLeaf) return this.activeLeaf;
    const leaf = new WorkspaceLeaf(this);
    this.leaves.push(leaf);
    return leaf;
  }
}
