/**
 * Records a preset's run for the page to play where it cannot train (no
 * WebGPU) or to overlay on a live run:
 *   npm run record -- --preset NAME [--seeds S1,S2,…] [--steps N] [--eval-every E]
 *                     [--eval-size N] [--group-size G] [--batch-prompts P]
 *                     [--max-groups N] [--out FILE] [--force] [--quiet]
 * Trains the preset (src/settings/presets.ts) with the same engine and reward
 * code as `npm run lab` (small model on a CPU adapter), every variant once
 * per seed (default 1,2,3), and writes one JSON file (src/store/recording.ts):
 * every metric row and marker, the experiment as run, and a sample of the
 * inspector groups (the first seed's, at most --max-groups, default 40).
 * Default file: public/recordings/<preset>.json. The path is checked before
 * any work; an existing file is never replaced without --force, and the file
 * is written under a temporary name and renamed into place when complete.
 * Prints progress on stderr and ends with one JSON line on stdout:
 *   {"preset", "out", "bytes", "rows", "groups", "steps", "seeds", "seconds"}
 *   on failure: {"error": message} (exit 1).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { RunController } from "../controller/run-controller";
import { createInProcessScorer } from "../rl/reward-contract";
import type { Marker, MetricRow } from "../run/run-types";
import type { GroupView } from "../rl/step-types";
import { PRM_FILE } from "../prm/file";
import { presetExperiment } from "../settings/presets";
import { appendMetrics, emptyMetrics } from "../store/run-data";
import {
  packGroup,
  recordedRun,
  recordingPath,
  roundRow,
  sampleGroups,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordingFile,
} from "../store/recording";
import { checkRecording } from "../store/saved-run-check";
import { givenFlags, parseExperimentFlags } from "./flag-errors";
import { nodePrm } from "./node-prm";
import { consoleSink, nodeContext, parseSeedList, REPO_ROOT } from "./node-run";
import { flagOfField } from "./experiment-flags";
import { RECORD_TABLE } from "./record-flags";
import { readCliFlags } from "../lib/cli-flags";
import { checkOutputFile, finishCli, writeFileAtomic } from "./out-files";

/** Seeds of a recording unless --seeds (lab choice: three, so the charts draw bands). */
const DEFAULT_SEEDS = [1, 2, 3];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { flags } = readCliFlags(RECORD_TABLE, argv);
  const preset = flags.preset;
  const maxGroups = flags["max-groups"];
  const base = presetExperiment(preset);
  const algorithm: Record<string, unknown> = { ...base.algorithm };
  if (flags.steps !== undefined) algorithm.steps = flags.steps;
  if (flags["eval-every"] !== undefined) algorithm.evalEvery = flags["eval-every"];
  if (flags["group-size"] !== undefined) algorithm.groupSize = flags["group-size"];
  if (flags["batch-prompts"] !== undefined) algorithm.batchPrompts = flags["batch-prompts"];
  const exp = parseExperimentFlags(
    {
      ...base,
      seeds:
        flags.seeds !== undefined ? parseSeedList("seeds", String(flags.seeds)) : DEFAULT_SEEDS,
      algorithm,
      evalSize: flags["eval-size"] ?? base.evalSize,
    },
    givenFlags(flagOfField(RECORD_TABLE.flags), flags),
  );
  const out = resolve(String(flags.out ?? resolve(REPO_ROOT, "public", recordingPath(preset))));
  checkOutputFile("--out", out);
  if (existsSync(out) && !flags.force)
    throw new Error(`--out ${out} exists; it is kept as it is (--force replaces it)`);

  const t0 = Date.now();
  const sink = consoleSink(undefined, Boolean(flags.quiet));
  const rows: MetricRow[] = [];
  const groups: GroupView[] = [];
  const markers: Marker[] = [];
  let error: string | null = null;
  const controller = new RunController(
    {
      createContext: nodeContext,
      createScorer: () => createInProcessScorer(nodePrm(resolve(REPO_ROOT, "public", PRM_FILE))),
      readAsset: async (path) => {
        const file = resolve(REPO_ROOT, "public", path);
        return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
      },
    },
    (ev) => {
      if (ev.type === "metrics") {
        rows.push(...ev.rows);
        sink.metrics(ev.rows);
      } else if (ev.type === "samples") groups.push(...ev.groups);
      else if (ev.type === "marker") {
        markers.push(ev.marker);
        sink.marker(ev.marker);
      } else if (ev.type === "log") sink.log(ev.message);
      else if (ev.type === "error") error ??= ev.message;
    },
  );
  await controller.send({ type: "init", experiment: exp });
  if (error) throw new Error(error);
  await controller.send({ type: "start" });
  await controller.whenIdle();
  if (error) throw new Error(error);
  const run = controller.run;
  if (!run || run.step < exp.algorithm.steps)
    throw new Error(`the run stopped at step ${run?.step ?? 0} of ${exp.algorithm.steps}`);
  const ran = run.experiment;
  await controller.dispose();

  const metrics = appendMetrics(
    emptyMetrics(),
    rows.map((r) => roundRow(r)),
  );
  metrics.markers = markers;
  const file: RecordingFile = {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    preset,
    command: `npm run record -- ${argv.join(" ")}`,
    run: recordedRun({ preset, experiment: ran, metrics, savedAt: Date.now() }),
    samples: sampleGroups(groups, maxGroups).map(packGroup),
  };
  const text = `${JSON.stringify(file)}\n`;
  // What the page will read: the same checks before anything is written.
  checkRecording(JSON.parse(text), `recording '${preset}'`);
  writeFileAtomic(out, text);
  process.stdout.write(
    `${JSON.stringify({
      preset,
      out,
      bytes: Buffer.byteLength(text),
      rows: rows.length,
      groups: file.samples.length,
      steps: exp.algorithm.steps,
      seeds: exp.seeds,
      seconds: Math.round((Date.now() - t0) / 1000),
    })}\n`,
  );
}

finishCli("record", main());
