// The question an OAuth sign-in puts to the person at Obsidian: which application (by the name it
// gave itself, which proves nothing), as which user, with which vaults. Allow and Deny decide once;
// closing the window denies; when the time is up the window goes away without deciding, and the
// browser page says the sign-in timed out.
import { Modal, Setting, type App } from "obsidian";
import type { Approval } from "../../auth/oauth/approval";

export interface ApprovalDetails {
  /** The vault names the user may use (every vault when the user has no list). */
  vaults: readonly string[];
  readOnly: boolean;
  toolsets?: readonly string[];
}

export class ApprovalModal extends Modal {
  private readonly approval: Approval;
  private readonly details: ApprovalDetails;
  private timer: number | null = null;
  private timedOut = false;

  constructor(app: App, approval: Approval, details: ApprovalDetails) {
    super(app);
    this.approval = approval;
    this.details = details;
  }

  override onOpen(): void {
    this.setTitle("Allow access to your vaults?");
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("secondbrain-approval");
    const { request, user } = this.approval;
    const intro = contentEl.createEl("p");
    intro.createEl("strong", { cls: "secondbrain-approval-client", text: request.client_name ?? "An application without a name" });
    intro.createSpan({ text: " asks to connect from your browser." });
    contentEl.createEl("p", {
      cls: "secondbrain-hint secondbrain-self-declared",
      text: "The application chose this name itself; Obsidian cannot check it. Allow only if you just started a connection in it.",
    });
    const scope = contentEl.createEl("ul", { cls: "secondbrain-approval-scope" });
    scope.createEl("li", { cls: "secondbrain-approval-user", text: `It will act as ${user}.` });
    scope.createEl("li", { cls: "secondbrain-approval-vaults", text: `Vaults: ${this.details.vaults.join(", ")}` });
    scope.createEl("li", { text: this.details.readOnly ? "Read-only: it cannot change notes." : "It can read and change notes." });
    if (this.details.toolsets) scope.createEl("li", { text: `Toolsets: ${this.details.toolsets.join(", ")}` });
    scope.createEl("li", { text: `After you decide, the browser returns to ${new URL(request.redirect_uri).host}.` });
    new Setting(contentEl)
      .addButton((button) =>
        button
          .setButtonText("Deny")
          .setClass("secondbrain-approval-deny")
          .onClick(() => this.decide("deny")),
      )
      .addButton((button) =>
        button
          .setButtonText("Allow")
          .setCta()
          .setClass("secondbrain-approval-allow")
          .onClick(() => this.decide("allow")),
      );
    this.timer = window.setTimeout(() => {
      this.timedOut = true;
      this.close();
    }, Math.max(0, this.approval.decideBy - Date.now()));
  }

  private decide(decision: "allow" | "deny"): void {
    this.approval.decide(decision);
    this.close();
  }

  override onClose(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
    // Closed without a choice (Escape, the close button): that is a no, not a wait of minutes.
    if (!this.timedOut) this.approval.decide("deny");
    this.contentEl.empty();
  }
}
