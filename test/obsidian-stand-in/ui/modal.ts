// Modal, SuggestModal and FuzzySuggestModal (obsidian-api.md §8, X5), with test hooks to query and
// choose; choosing closes the modal first, then delivers the choice.
export const openModals: Modal[] = [];

export class Modal {
  app: unknown;
  containerEl: HTMLElement;
  modalEl: HTMLElement;
  titleEl: HTMLElement;
  contentEl: HTMLElement;
  isOpen = false;

  constructor(app: unknown) {
    this.app = app;
    this.containerEl = document.createElement("div");
    this.containerEl.className = "modal-container";
    this.modalEl = this.containerEl.appendChild(document.createElement("div"));
    this.modalEl.className = "modal";
    this.titleEl = this.modalEl.appendChild(document.createElement("div"));
    this.titleEl.className = "modal-title";
    this.contentEl = this.modalEl.appendChild(document.createElement("div"));
    this.contentEl.className = "modal-content";
  }

  open(): void {
    document.body.appendChild(this.containerEl);
    this.isOpen = true;
    openModals.push(this);
    void this.onOpen();
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.containerEl.remove();
    const at = openModals.indexOf(this);
    if (at >= 0) openModals.splice(at, 1);
    this.onClose();
  }

  onOpen(): void | Promise<void> {}

  onClose(): void {}

  setTitle(title: string): this {
    this.titleEl.textContent = title;
    return this;
  }

  setContent(content: string | DocumentFragment): this {
    this.contentEl.textContent = "";
    if (typeof content === "string") this.contentEl.textContent = content;
    else this.contentEl.appendChild(content);
    return this;
  }
}

export abstract class SuggestModal<T> extends Modal {
  limit = 100;
  emptyStateText = "No results found.";
  inputEl: HTMLInputElement;
  resultContainerEl: HTMLElement;
  rendered: Array<{ el: HTMLElement; value: T }> = [];

  constructor(app: unknown) {
    super(app);
    this.inputEl = this.modalEl.insertBefore(document.createElement("input"), this.contentEl);
    this.inputEl.className = "prompt-input";
    this.resultContainerEl = this.contentEl.appendChild(document.createElement("div"));
    this.resultContainerEl.className = "suggestion-container";
    this.inputEl.addEventListener("input", () => void this.refresh());
  }

  abstract getSuggestions(query: string): T[] | Promise<T[]>;
  abstract renderSuggestion(value: T, el: HTMLElement): void;
  abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;

  setPlaceholder(placeholder: string): void {
    this.inputEl.placeholder = placeholder;
  }

  setInstructions(instructions: Array<{ command: string; purpose: string }>): void {
    void instructions;
  }

  override open(): void {
    super.open();
    void this.refresh();
  }

  async refresh(): Promise<void> {
    const values = (await this.getSuggestions(this.inputEl.value)).slice(0, this.limit);
    this.resultContainerEl.textContent = "";
    this.rendered = [];
    if (values.length === 0) {
      const empty = this.resultContainerEl.appendChild(document.createElement("div"));
      empty.className = "suggestion-empty";
      empty.textContent = this.emptyStateText;
    }
    for (const value of values) {
      const el = this.resultContainerEl.appendChild(document.createElement("div"));
      el.className = "suggestion-item";
      this.renderSuggestion(value, el);
      this.rendered.push({ el, value });
    }
  }
}

export abstract class FuzzySuggestModal<T> extends SuggestModal<{ item: T }> {
  abstract getItems(): T[];
  abstract getItemText(item: T): string;
  abstract onChooseItem(item: T, evt: MouseEvent | KeyboardEvent): void;

  getSuggestions(query: string): Array<{ item: T }> {
    const wanted = query.toLowerCase();
    return this.getItems()
      .filter((item) => {
        const text = this.getItemText(item).toLowerCase();
        let at = 0;
        for (const ch of wanted) {
          at = text.indexOf(ch, at);
          if (at < 0) return false;
          at += 1;
        }
        return true;
      })
      .map((item) => ({ item }));
  }

  renderSuggestion(value: { item: T }, el: HTMLElement): void {
    el.textContent = this.getItemText(value.item);
  }

  onChooseSuggestion(value: { item: T }, evt: MouseEvent | KeyboardEvent): void {
    this.onChooseItem(value.item, evt);
  }
}

export async function setQuery(modal: SuggestModal<unknown>, query: string): Promise<void> {
  modal.inputEl.value = query;
  await modal.refresh();
}

export function suggestions(modal: SuggestModal<unknown>): Array<{ el: HTMLElement; value: unknown }> {
  return modal.rendered;
}

export async function chooseSuggestion(modal: SuggestModal<unknown>, index: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  const chosen = modal.rendered[index];
  if (!chosen) throw new Error(`no suggestion ${index}`);
  modal.close();
  modal.onChooseSuggestion(chosen.value, new window.MouseEvent("click"));
}
