// Notice: every one is recorded so tests can read what the user was told.
export interface RecordedNotice {
  message: string;
  duration: number | undefined;
  hidden: boolean;
  history: string[];
}

export const notices: RecordedNotice[] = [];

export function clearNotices(): void {
  notices.length = 0;
}

function textOf(message: string | DocumentFragment): string {
  return typeof message === "string" ? message : (message.textContent ?? "");
}

export class Notice {
  noticeEl: HTMLElement;
  messageEl: HTMLElement;
  private readonly record: RecordedNotice;

  constructor(message: string | DocumentFragment, duration?: number) {
    this.noticeEl = document.createElement("div");
    this.noticeEl.className = "notice";
    this.messageEl = this.noticeEl.appendChild(document.createElement("div"));
    this.record = { message: "", duration, hidden: false, history: [] };
    notices.push(this.record);
    this.setMessage(message);
  }

  setMessage(message: string | DocumentFragment): this {
    this.record.message = textOf(message);
    this.record.history.push(this.record.message);
    this.messageEl.textContent = this.record.message;
    return this;
  }

  hide(): void {
    this.record.hidden = true;
    this.noticeEl.remove();
  }
}
