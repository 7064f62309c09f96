// Logging a failure nobody anticipated, without its message: messages may quote note text.
import type { Logger } from "../core/ports";

// A frame's file as its name alone: the folder it was installed in may hold the host's user name.
const FRAME_FILE = /(?:file:\/\/)?(?:(?<![\w:.])\/|\b[A-Za-z]:\\)(?:[^\s()]*[\\/])?([^\s\\/()]+)/g;

function stackFrames(error: unknown): string | undefined {
  const stack = error instanceof Error ? error.stack : undefined;
  return stack
    ?.split("\n")
    .filter((line) => line.trimStart().startsWith("at "))
    .map((line) => line.replace(FRAME_FILE, "$1"))
    .join("\n");
}

export function logUnexpected(logger: Logger, event: string, error: unknown, fields: Record<string, unknown> = {}): void {
  logger.log({
    level: "debug",
    event,
    ...fields,
    error: error instanceof Error ? error.name : typeof error,
    stack: stackFrames(error),
  });
}
