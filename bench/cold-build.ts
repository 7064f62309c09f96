// Child: a cold index build of our engine on a fresh data folder (started by bench/run.ts).
import { childMain } from "./child";
import { folderBytes } from "./measure";
import { startMeasured, type StartMeasurement } from "./ours";

export interface ColdBuildInput {
  root: string;
  dataDir: string;
}

export interface ColdBuildResult extends StartMeasurement {
  rss_before_bytes: number;
  data_bytes: number;
}

async function coldBuild(input: ColdBuildInput): Promise<ColdBuildResult> {
  if ((await folderBytes(input.dataDir)) > 0) throw new Error(`data folder ${input.dataDir} is not empty: a cold build needs a fresh one`);
  const rssBefore = process.memoryUsage().rss;
  const { host, measurement } = await startMeasured(input.root, input.dataDir);
  await host.stop();
  return { ...measurement, rss_before_bytes: rssBefore, data_bytes: await folderBytes(input.dataDir) };
}

if (require.main === module) childMain(coldBuild);
