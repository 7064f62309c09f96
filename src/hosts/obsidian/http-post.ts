// The embedding providers' transport in Obsidian: requestUrl, which is not held to the browser's CORS
// rules (a local Ollama does not allow the app's origin), with a deadline of our own since it has none.
import { requestUrl } from "obsidian";
import { TransportError, type HttpPost } from "../../core/search/semantic/provider";

export const obsidianHttpPost: HttpPost = async (url, headers, body, timeoutMs) => {
  let timer: number | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = window.setTimeout(() => reject(new TransportError("timed out", true)), timeoutMs);
  });
  try {
    const response = await Promise.race([requestUrl({ url, method: "POST", headers, body, throw: false }), deadline]);
    return { status: response.status, body: response.text };
  } catch (error) {
    if (error instanceof TransportError) throw error;
    throw new TransportError("no answer", false);
  } finally {
    window.clearTimeout(timer);
  }
};
