// Copying to the clipboard with a Notice either way, so the user always learns what happened.
import { Notice } from "obsidian";

export async function copyToClipboard(text: string, what: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    new Notice(`Copied ${what} to the clipboard.`);
    return true;
  } catch {
    new Notice(`Could not reach the clipboard. Open "show connection info" and copy ${what} from there.`);
    return false;
  }
}
