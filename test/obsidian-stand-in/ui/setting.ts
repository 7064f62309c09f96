// Setting rows with Obsidian's DOM and class names, so the plugin's styles.css applies.
import { ButtonComponent, DropdownComponent, ExtraButtonComponent, TextAreaComponent, TextComponent, ToggleComponent, type BaseComponent } from "./components";

export class Setting {
  settingEl: HTMLElement;
  infoEl: HTMLElement;
  nameEl: HTMLElement;
  descEl: HTMLElement;
  controlEl: HTMLElement;
  components: BaseComponent[] = [];

  constructor(containerEl: HTMLElement) {
    this.settingEl = containerEl.appendChild(document.createElement("div"));
    this.settingEl.className = "setting-item";
    this.infoEl = this.settingEl.appendChild(document.createElement("div"));
    this.infoEl.className = "setting-item-info";
    this.nameEl = this.infoEl.appendChild(document.createElement("div"));
    this.nameEl.className = "setting-item-name";
    this.descEl = this.infoEl.appendChild(document.createElement("div"));
    this.descEl.className = "setting-item-description";
    this.controlEl = this.settingEl.appendChild(document.createElement("div"));
    this.controlEl.className = "setting-item-control";
  }

  private setContent(el: HTMLElement, value: string | DocumentFragment): void {
    el.textContent = "";
    if (typeof value === "string") el.textContent = value;
    else el.appendChild(value);
  }

  setName(name: string | DocumentFragment): this {
    this.setContent(this.nameEl, name);
    return this;
  }

  setDesc(desc: string | DocumentFragment): this {
    this.setContent(this.descEl, desc);
    return this;
  }

  setHeading(): this {
    this.settingEl.classList.add("setting-item-heading");
    return this;
  }

  setClass(cls: string): this {
    this.settingEl.classList.add(cls);
    return this;
  }

  setDisabled(disabled: boolean): this {
    this.settingEl.classList.toggle("is-disabled", disabled);
    for (const component of this.components) component.setDisabled(disabled);
    return this;
  }

  setTooltip(tooltip: string): this {
    this.nameEl.setAttribute("aria-label", tooltip);
    return this;
  }

  private add<T extends BaseComponent>(component: T, cb: (component: T) => unknown): this {
    this.components.push(component);
    cb(component);
    return this;
  }

  addText(cb: (component: TextComponent) => unknown): this {
    return this.add(new TextComponent(this.controlEl), cb);
  }

  addTextArea(cb: (component: TextAreaComponent) => unknown): this {
    return this.add(new TextAreaComponent(this.controlEl), cb);
  }

  addToggle(cb: (component: ToggleComponent) => unknown): this {
    return this.add(new ToggleComponent(this.controlEl), cb);
  }

  addDropdown(cb: (component: DropdownComponent) => unknown): this {
    return this.add(new DropdownComponent(this.controlEl), cb);
  }

  addButton(cb: (component: ButtonComponent) => unknown): this {
    return this.add(new ButtonComponent(this.controlEl), cb);
  }

  addExtraButton(cb: (component: ExtraButtonComponent) => unknown): this {
    return this.add(new ExtraButtonComponent(this.controlEl), cb);
  }

  then(cb: (setting: this) => unknown): this {
    cb(this);
    return this;
  }
}
