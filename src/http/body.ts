// Reads a request body up to a byte limit, without buffering a byte past it.
import type { IncomingMessage } from "node:http";

export const DEFAULT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export type BodyOutcome = { kind: "ok"; text: string } | { kind: "too_large" };

function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers["content-length"];
  return header === undefined || !/^\d+$/.test(header) ? undefined : Number(header);
}

export function readBody(req: IncomingMessage, limitBytes: number): Promise<BodyOutcome> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limitBytes) return Promise.resolve({ kind: "too_large" });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limitBytes) {
        req.off("data", onData);
        chunks.length = 0;
        resolve({ kind: "too_large" });
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve({ kind: "ok", text: Buffer.concat(chunks).toString("utf8") }));
    req.once("error", reject);
  });
}

export type JsonOutcome = { kind: "ok"; value: unknown } | { kind: "invalid"; reason: string };

export function parseJson(text: string): JsonOutcome {
  if (text.trim() === "") return { kind: "invalid", reason: "the request body is empty" };
  try {
    return { kind: "ok", value: JSON.parse(text) as unknown };
  } catch (error) {
    return { kind: "invalid", reason: error instanceof SyntaxError ? error.message : "the body is not JSON" };
  }
}
