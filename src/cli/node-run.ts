/**
 * Node plumbing shared by the CLIs: device, data, checkpoints, output files.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { GpuContext } from "../gpu/context";
import { requestNodeDevice } from "../gpu/node-gpu";
import { loadCheckpoint } from "../model/checkpoint";
import { loadMnistSubsetNode } from "../tasks/mnist-data-node";
import type { MnistSubset } from "../tasks/mnist-data";
import type { Experiment } from "../settings/experiment";
import { checkpointPath } from "../settings/checkpoints";
import type { RunSink } from "../run/lab-run";
import type { MetricRow } from "../run/run-types";
import type { RunFiles } from "./out-files";

/** Repository root (two levels above src/cli). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** A GPU context on Node's WebGPU (SwiftShader here). */
export async function nodeContext(): Promise<GpuContext> {
  return new GpuContext(await requestNodeDevice());
}

/** The packed MNIST subset (only the digits family needs it). */
export function mnistFor(exp: Experiment): MnistSubset | undefined {
  return exp.task.family === "digits" ? loadMnistSubsetNode() : undefined;
}

/** Absolute path of the shipped cold-start checkpoint for `exp`. */
export function checkpointFile(exp: Experiment): string {
  return join(REPO_ROOT, "public", checkpointPath(exp));
}

/** Loads the shipped checkpoint for `exp` (every check of loadCheckpoint), or null when there is none. */
export function loadShippedCheckpoint(exp: Experiment) {
  const file = checkpointFile(exp);
  if (!existsSync(file)) return null;
  return loadCheckpoint(new Uint8Array(readFileSync(file)));
}

const CSV_HEAD = ["variant", "seed", "kind", "step", "time"];

/** The header line of metrics.csv (long format: one line per metric value). */
export const METRICS_CSV_HEADER = `${[...CSV_HEAD, "metric", "value"].join(",")}\n`;

/** The metrics.csv lines of one row (one per metric value), each ending in a newline. */
export function metricsCsvLines(r: MetricRow): string {
  const lines = Object.entries(r.values).map(([k, v]) =>
    [r.variant, r.seed ?? "", r.kind, r.step, r.time.toFixed(3), k, v].join(","),
  );
  return `${lines.join("\n")}\n`;
}

/**
 * A sink that prints progress and, with `files`, appends every metric row to
 * the run's metrics.jsonl and metrics.csv (long format: one row per metric
 * value), streamed as `.partial` files until `files.commit` (out-files.ts).
 */
export function consoleSink(files?: RunFiles, quiet = false): RunSink & { rows: MetricRow[] } {
  const rows: MetricRow[] = [];
  if (files) {
    files.openStream("metrics.jsonl");
    files.openStream("metrics.csv", METRICS_CSV_HEADER);
  }
  return {
    rows,
    metrics(batch) {
      for (const r of batch) {
        rows.push(r);
        if (files) {
          files.append("metrics.jsonl", `${JSON.stringify(r)}\n`);
          files.append("metrics.csv", metricsCsvLines(r));
        }
        if (quiet) continue;
        const v = r.values;
        if (r.kind === "eval") {
          console.error(
            `[eval] ${r.variant}${seedTag(r)} step ${r.step}: acc ${fmt(v.acc)} rcAcc ${fmt(v.rcAcc)} incR ${fmt(v.incR)} cbir ${fmt(v.cbir)} hintFollow ${fmt(v.hintFollow)} format ${fmt(v.formatRate)} stepAcc ${fmt(v.stepAcc)}${v.oscr === undefined ? "" : ` oscr ${fmt(v.oscr)}`} lucky ${fmt(v.luckyGuess)}${v.distinctK04 === undefined ? "" : ` distinct@0.4 ${fmt(v.distinctK04)} distinct@0.8 ${fmt(v.distinctK08)}`}`,
          );
        } else if (r.variant === "sft") {
          if (r.step % 25 === 0 || r.step === 1)
            console.error(
              `[sft] step ${r.step}: loss ${fmt(v.loss)} (${Math.round(v.step_time_ms)} ms)`,
            );
        } else {
          console.error(
            `[rl] ${r.variant}${seedTag(r)} step ${r.step}: reward ${fmt(v.reward_mean)} acc ${fmt(v.train_acc)} kl ${fmt(v.kl)}${v.aux_loss === undefined ? "" : ` aux ${fmt(v.aux_loss)}`} (${Math.round(v.step_time_ms)} ms)`,
          );
        }
      }
    },
    samples() {},
    marker(m) {
      if (!quiet) console.error(`[marker] ${m.variant} step ${m.step}: ${m.label}`);
    },
    log(message) {
      if (!quiet) console.error(message);
    },
  };
}

function seedTag(r: MetricRow): string {
  return r.seed === undefined ? "" : ` (seed ${r.seed})`;
}

function fmt(x: number | undefined): string {
  return x === undefined ? "-" : x.toFixed(3);
}

/** Most seeds one --seeds list holds (lab choice: an input bound, linear-time checks; a sweep's real limit is its time). */
const MAX_SEED_LIST = 1000;

/**
 * Parses a seed list flag such as `1,2,3` (integers 0..2^31−1, no repeats).
 * @throws Error naming the flag and the bad entry.
 */
export function parseSeedList(flag: string, text: string): number[] {
  const parts = text.split(",").map((t) => t.trim());
  if (parts.length > MAX_SEED_LIST)
    throw new Error(
      `--${flag}: ${parts.length} seeds, more than the ${MAX_SEED_LIST} a list may hold (an input bound; what limits a sweep is its time, --max-hours)`,
    );
  const seeds = parts.map((t) => {
    if (!/^\d{1,10}$/.test(t) || Number(t) > 2 ** 31 - 1)
      throw new Error(
        `--${flag}: '${t}' is not a seed (an integer 0..2147483647); give e.g. 1,2,3`,
      );
    return Number(t);
  });
  const seen = new Set<number>();
  const dup = seeds.find((x) => seen.has(x) || !seen.add(x));
  if (dup !== undefined) throw new Error(`--${flag}: seed ${dup} appears twice`);
  return seeds;
}
