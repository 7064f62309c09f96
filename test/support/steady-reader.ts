// The second client of the attack cases, in a process of its own: a client in the attacker's process
// would also wait for that process building and sending a 4 MiB argument, and count it as the server's.
// Started by SteadyReader (test/support/attacks.ts) with the URL and token; "start" and "stop" over IPC.
import { performance } from "node:perf_hooks";
import { connectClient, READ_TARGET, VAULT_NAME } from "./attacks";
import { callTool } from "./server";

/** How long the reader waits between two reads: short, so that a stall cannot fall between them. */
const READ_GAP_MS = 20;

export interface ReaderReport {
  longestMs: number;
  reads: number;
  failures: string[];
}

async function main(): Promise<void> {
  const [url, token] = process.argv.slice(2);
  if (url === undefined || token === undefined || process.send === undefined) throw new Error("usage: steady-reader URL TOKEN (forked with IPC)");
  const client = await connectClient(url, token, "steady-reader");
  // One loop reads all the time; a case's report collects only the reads between its start and stop.
  let report: (ReaderReport & { since: number }) | null = null;
  let pendingSince: number | null = null;
  let exiting = false;

  const readLoop = async (): Promise<void> => {
    while (!exiting) {
      const started = (pendingSince = performance.now());
      const result = await callTool(client, "note_read", { vault: VAULT_NAME, path: READ_TARGET, max_bytes: 256 }).catch((error: unknown) => error);
      pendingSince = null;
      const current = report;
      if (current !== null) {
        current.longestMs = Math.max(current.longestMs, performance.now() - Math.max(started, current.since));
        current.reads += 1;
        if (result instanceof Error) current.failures.push(result.message);
        else if ((result as { isError: boolean }).isError) current.failures.push((result as { text: string }).text.slice(0, 200));
      }
      await new Promise((resolve) => setTimeout(resolve, READ_GAP_MS));
    }
  };
  const loop = readLoop();

  process.on("message", (message: unknown) => {
    if (message === "start") {
      report = { longestMs: 0, reads: 0, failures: [], since: performance.now() };
    } else if (message === "stop" && report !== null) {
      // A read still waiting counts with what it has waited so far; the report goes out at once.
      const pending = pendingSince === null ? 0 : performance.now() - Math.max(pendingSince, report.since);
      const { longestMs, reads, failures } = report;
      report = null;
      process.send!({ longestMs: Math.max(longestMs, pending), reads, failures });
    } else if (message === "exit") {
      exiting = true;
      void loop.finally(() => process.exit(0));
      setTimeout(() => process.exit(0), 2000).unref();
    }
  });
  process.send({ ready: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`steady-reader: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
