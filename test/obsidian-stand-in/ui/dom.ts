// One happy-dom window with Obsidian's DOM helpers (obsidian-api.md §8, X6) installed on its
// prototypes, and the globals plugin code uses (window, document, createEl, …).
import { Window } from "happy-dom";

interface DomElementInfo {
  cls?: string | string[];
  text?: string;
  attr?: Record<string, string | number | boolean | null>;
  title?: string;
  value?: string;
  type?: string;
  placeholder?: string;
  href?: string;
  parent?: Node;
  prepend?: boolean;
}

let installed: Window | null = null;
/** Every text written to the clipboard. */
export const clipboardWrites: string[] = [];

export function installDom(): Window {
  if (installed) return installed;
  const win = new Window({ url: "app://obsidian.md/index.html" });
  installed = win;
  const doc = win.document as unknown as Document;

  const createEl = (tag: string, o?: DomElementInfo | string, callback?: (el: HTMLElement) => void): HTMLElement => {
    const info: DomElementInfo = typeof o === "string" ? { cls: o } : (o ?? {});
    const el = doc.createElement(tag);
    if (info.cls) el.className = Array.isArray(info.cls) ? info.cls.join(" ") : info.cls;
    if (info.text) el.textContent = info.text;
    if (info.title !== undefined) el.title = info.title;
    for (const key of ["value", "type", "placeholder", "href"] as const) if (info[key] !== undefined) el.setAttribute(key, String(info[key]));
    if (info.value !== undefined && "value" in el) (el as HTMLInputElement).value = info.value;
    for (const [key, value] of Object.entries(info.attr ?? {})) {
      if (value === null) el.removeAttribute(key);
      else el.setAttribute(key, String(value));
    }
    callback?.(el);
    if (info.parent) {
      if (info.prepend) info.parent.insertBefore(el, info.parent.firstChild);
      else info.parent.appendChild(el);
    }
    return el;
  };

  const nodeProto = win.Node.prototype as unknown as Record<string, unknown>;
  const elementProto = win.HTMLElement.prototype as unknown as Record<string, unknown>;
  const fragmentProto = win.DocumentFragment.prototype as unknown as Record<string, unknown>;
  for (const proto of [nodeProto, fragmentProto]) {
    proto.createEl = function (this: Node, tag: string, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
      const info = typeof o === "string" ? { cls: o } : (o ?? {});
      return createEl(tag, { ...info, parent: this }, cb);
    };
    proto.createDiv = function (this: Node & { createEl: typeof createEl }, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
      return this.createEl("div", o, cb);
    };
    proto.createSpan = function (this: Node & { createEl: typeof createEl }, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
      return this.createEl("span", o, cb);
    };
    proto.empty = function (this: Node) {
      while (this.firstChild) this.removeChild(this.firstChild);
    };
    proto.setText = function (this: Node, value: string | Node) {
      if (typeof value === "string") this.textContent = value;
      else {
        while (this.firstChild) this.removeChild(this.firstChild);
        this.appendChild(value);
      }
    };
    proto.detach = function (this: Node) {
      this.parentNode?.removeChild(this);
    };
  }
  elementProto.addClass = function (this: HTMLElement, ...classes: string[]) {
    this.classList.add(...classes);
  };
  elementProto.addClasses = function (this: HTMLElement, classes: string[]) {
    this.classList.add(...classes);
  };
  elementProto.removeClass = function (this: HTMLElement, ...classes: string[]) {
    this.classList.remove(...classes);
  };
  elementProto.toggleClass = function (this: HTMLElement, cls: string, on: boolean) {
    this.classList.toggle(cls, on);
  };
  elementProto.hasClass = function (this: HTMLElement, cls: string) {
    return this.classList.contains(cls);
  };
  elementProto.setAttr = function (this: HTMLElement, key: string, value: string | number | boolean | null) {
    if (value === null) this.removeAttribute(key);
    else this.setAttribute(key, String(value));
  };
  elementProto.setAttrs = function (this: HTMLElement & { setAttr(k: string, v: unknown): void }, attrs: Record<string, string | null>) {
    for (const [key, value] of Object.entries(attrs)) this.setAttr(key, value);
  };
  elementProto.getAttr = function (this: HTMLElement, key: string) {
    return this.getAttribute(key);
  };
  elementProto.setCssProps = function (this: HTMLElement, props: Record<string, string>) {
    for (const [key, value] of Object.entries(props)) this.style.setProperty(key, value);
  };
  elementProto.show = function (this: HTMLElement) {
    this.style.display = "";
  };
  elementProto.hide = function (this: HTMLElement) {
    this.style.display = "none";
  };
  elementProto.toggle = function (this: HTMLElement, show: boolean) {
    this.style.display = show ? "" : "none";
  };

  const globals = globalThis as unknown as Record<string, unknown>;
  globals.window = win;
  // Obsidian's renderer is a browser window, where `self` is the window too.
  globals.self = win;
  globals.document = doc;
  globals.activeWindow = win;
  globals.activeDocument = doc;
  globals.createEl = createEl;
  globals.createDiv = (o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) => createEl("div", o, cb);
  globals.createSpan = (o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) => createEl("span", o, cb);
  globals.createFragment = (cb?: (fragment: DocumentFragment) => void) => {
    const fragment = doc.createDocumentFragment();
    cb?.(fragment);
    return fragment;
  };
  const clipboard = {
    writeText: (text: string) => {
      clipboardWrites.push(text);
      return Promise.resolve();
    },
    readText: () => Promise.resolve(clipboardWrites[clipboardWrites.length - 1] ?? ""),
  };
  Object.defineProperty(globalThis, "navigator", { value: { clipboard, userAgent: "Obsidian stand-in" }, configurable: true });
  // Plugin code uses window timers; they must be Node's real ones.
  const timers = win as unknown as Record<string, unknown>;
  timers.setTimeout = setTimeout;
  timers.clearTimeout = clearTimeout;
  timers.setInterval = setInterval;
  timers.clearInterval = clearInterval;
  return win;
}
