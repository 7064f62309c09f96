// Setting tabs and the test hooks that open one inside a settings modal, as the app does.
export abstract class SettingTab {
  app: unknown;
  containerEl: HTMLElement;

  constructor(app: unknown) {
    this.app = app;
    this.containerEl = document.createElement("div");
    this.containerEl.className = "vertical-tab-content";
  }

  abstract display(): void;

  hide(): void {}
}

export abstract class PluginSettingTab extends SettingTab {
  plugin: unknown;

  constructor(app: unknown, plugin: unknown) {
    super(app);
    this.plugin = plugin;
  }
}

/** Opens the tab the way the settings window does: attached, then display(). */
export function openSettingTab(tab: SettingTab): HTMLElement {
  const shell = document.createElement("div");
  shell.className = "modal-container mod-dim";
  const modal = shell.appendChild(document.createElement("div"));
  modal.className = "modal mod-settings";
  const holder = modal.appendChild(document.createElement("div"));
  holder.className = "vertical-tab-content-container";
  holder.appendChild(tab.containerEl);
  document.body.appendChild(shell);
  tab.display();
  return tab.containerEl;
}

export function closeSettingTab(tab: SettingTab): void {
  tab.hide();
  tab.containerEl.closest(".modal-container")?.remove();
}
