// The setting components (obsidian-api.md §8) over real DOM elements, so tests type and click.

export function setIcon(el: HTMLElement, name: string): void {
  el.dataset.icon = name;
}

export class BaseComponent {
  disabled = false;

  then(cb: (component: this) => unknown): this {
    cb(this);
    return this;
  }

  setDisabled(disabled: boolean): this {
    this.disabled = disabled;
    return this;
  }
}

export abstract class ValueComponent<T> extends BaseComponent {
  abstract getValue(): T;
  abstract setValue(value: T): this;
}

export class TextComponent extends ValueComponent<string> {
  inputEl: HTMLInputElement;
  private changeCallback: ((value: string) => unknown) | null = null;

  constructor(containerEl: HTMLElement, tag: "input" | "textarea" = "input") {
    super();
    this.inputEl = containerEl.appendChild(document.createElement(tag)) as HTMLInputElement;
    if (tag === "input") this.inputEl.type = "text";
    this.inputEl.addEventListener("input", () => void this.changeCallback?.(this.inputEl.value));
  }

  getValue(): string {
    return this.inputEl.value;
  }

  setValue(value: string): this {
    this.inputEl.value = value;
    return this;
  }

  setPlaceholder(placeholder: string): this {
    this.inputEl.placeholder = placeholder;
    return this;
  }

  override setDisabled(disabled: boolean): this {
    this.inputEl.disabled = disabled;
    return super.setDisabled(disabled);
  }

  onChange(callback: (value: string) => unknown): this {
    this.changeCallback = callback;
    return this;
  }
}

export class TextAreaComponent extends TextComponent {
  constructor(containerEl: HTMLElement) {
    super(containerEl, "textarea");
  }
}

export class ToggleComponent extends ValueComponent<boolean> {
  toggleEl: HTMLElement;
  private value = false;
  private changeCallback: ((value: boolean) => unknown) | null = null;

  constructor(containerEl: HTMLElement) {
    super();
    this.toggleEl = containerEl.appendChild(document.createElement("div"));
    this.toggleEl.className = "checkbox-container";
    this.toggleEl.appendChild(document.createElement("input")).setAttribute("type", "checkbox");
    this.toggleEl.addEventListener("click", () => {
      if (!this.disabled) this.setValue(!this.value);
    });
  }

  getValue(): boolean {
    return this.value;
  }

  /** Fires onChange when the value changes (as Obsidian does). */
  setValue(value: boolean): this {
    const changed = value !== this.value;
    this.value = value;
    this.toggleEl.classList.toggle("is-enabled", value);
    if (changed) void this.changeCallback?.(value);
    return this;
  }

  onChange(callback: (value: boolean) => unknown): this {
    this.changeCallback = callback;
    return this;
  }
}

export class DropdownComponent extends ValueComponent<string> {
  selectEl: HTMLSelectElement;
  private changeCallback: ((value: string) => unknown) | null = null;

  constructor(containerEl: HTMLElement) {
    super();
    this.selectEl = containerEl.appendChild(document.createElement("select"));
    this.selectEl.className = "dropdown";
    this.selectEl.addEventListener("change", () => void this.changeCallback?.(this.selectEl.value));
  }

  addOption(value: string, display: string): this {
    const option = this.selectEl.appendChild(document.createElement("option"));
    option.value = value;
    option.textContent = display;
    return this;
  }

  addOptions(options: Record<string, string>): this {
    for (const [value, display] of Object.entries(options)) this.addOption(value, display);
    return this;
  }

  getValue(): string {
    return this.selectEl.value;
  }

  setValue(value: string): this {
    this.selectEl.value = value;
    return this;
  }

  onChange(callback: (value: string) => unknown): this {
    this.changeCallback = callback;
    return this;
  }
}

export class ButtonComponent extends BaseComponent {
  buttonEl: HTMLButtonElement;
  private clickCallback: ((evt: MouseEvent) => unknown) | null = null;

  constructor(containerEl: HTMLElement) {
    super();
    this.buttonEl = containerEl.appendChild(document.createElement("button"));
    this.buttonEl.addEventListener("click", (evt) => {
      if (!this.disabled) void this.clickCallback?.(evt);
    });
  }

  setButtonText(text: string): this {
    this.buttonEl.textContent = text;
    return this;
  }

  setCta(): this {
    this.buttonEl.classList.add("mod-cta");
    return this;
  }

  setWarning(): this {
    this.buttonEl.classList.add("mod-warning");
    return this;
  }

  setClass(cls: string): this {
    this.buttonEl.classList.add(cls);
    return this;
  }

  setTooltip(tooltip: string): this {
    this.buttonEl.setAttribute("aria-label", tooltip);
    return this;
  }

  setIcon(icon: string): this {
    setIcon(this.buttonEl, icon);
    return this;
  }

  override setDisabled(disabled: boolean): this {
    this.buttonEl.disabled = disabled;
    return super.setDisabled(disabled);
  }

  onClick(callback: (evt: MouseEvent) => unknown): this {
    this.clickCallback = callback;
    return this;
  }
}

export class ExtraButtonComponent extends BaseComponent {
  extraSettingsEl: HTMLElement;
  private clickCallback: (() => unknown) | null = null;

  constructor(containerEl: HTMLElement) {
    super();
    this.extraSettingsEl = containerEl.appendChild(document.createElement("div"));
    this.extraSettingsEl.className = "clickable-icon extra-setting-button";
    this.extraSettingsEl.addEventListener("click", () => {
      if (!this.disabled) void this.clickCallback?.();
    });
  }

  setIcon(icon: string): this {
    setIcon(this.extraSettingsEl, icon);
    return this;
  }

  setTooltip(tooltip: string): this {
    this.extraSettingsEl.setAttribute("aria-label", tooltip);
    return this;
  }

  onClick(callback: () => unknown): this {
    this.clickCallback = callback;
    return this;
  }
}
