// The embedding providers' transport on Node: fetch with a deadline.
import { TransportError, type HttpPost } from "../../core/search/semantic/provider";

export const nodeHttpPost: HttpPost = async (url, headers, body, timeoutMs) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, { method: "POST", headers, body, signal: controller.signal });
    return { status: response.status, body: await response.text() };
  } catch {
    // The cause (ECONNREFUSED, a reset) stays out of the message: it can carry the host's addresses.
    throw new TransportError(controller.signal.aborted ? "timed out" : "no answer", controller.signal.aborted);
  } finally {
    clearTimeout(timer);
  }
};
