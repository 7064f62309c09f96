// Phases that measure memory run in a process of their own, so RSS is not inflated by whatever the
// orchestrator has loaded. A child takes its input as one JSON argument and prints one JSON line.
import { spawn } from "node:child_process";
import path from "node:path";
import { BENCH_DIR, BUNDLED, REPO_ROOT } from "./paths";


/** Runs `bench/<script>` under tsx and returns the JSON object it printed last. */
export function runChild<O>(script: string, input: unknown, timeoutMs: number): Promise<O> {
  return new Promise((resolve, reject) => {
    const entry = BUNDLED ? [path.join(__dirname, script.replace(/\.ts$/, ".js"))] : ["--import", "tsx", path.join(BENCH_DIR, script)];
    const child = spawn(process.execPath, [...entry, JSON.stringify(input)], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split("\n").pop() ?? "";
      if (code !== 0) {
        reject(new Error(`${script} exited with ${signal ?? code}: ${stderr.trim().slice(-800)}`));
        return;
      }
      try {
        resolve(JSON.parse(last) as O);
      } catch {
        reject(new Error(`${script} printed no JSON result: ${last.slice(0, 200)}`));
      }
    });
  });
}

/** The child side: parses the input, runs the phase, prints the result as one line. */
export function childMain<I, O>(phase: (input: I) => Promise<O>): void {
  const raw = process.argv[2];
  if (raw === undefined) {
    console.error("usage: node bench/out/build/<phase>.js '<json input>' (started by npm run bench)");
    process.exit(2);
  }
  phase(JSON.parse(raw) as I).then(
    (result) => {
      process.stdout.write(JSON.stringify(result) + "\n");
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      process.exit(1);
    },
  );
}
