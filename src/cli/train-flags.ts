/**
 * The flags of `npm run train:sft` (src/cli/train-sft.ts) and `npm run
 * train:prm` (src/cli/train-prm.ts): one table each, for the parser, --help
 * and docs/cli.md.
 */
import type { CliTable } from "../lib/cli-table";
import { numberField, taskFlags } from "./experiment-flags";

const SIZE_FLAG = {
  kind: "enum",
  of: ["small", "default"],
  default: "small",
  help: "the model size",
} as const;

export const TRAIN_SFT_TABLE = {
  command: "npm run train:sft --",
  summary:
    "Makes a cold-start checkpoint: SFT on the digit task (real MNIST digits), greedy held-out eval, one JSON line of figures.",
  flags: {
    size: SIZE_FLAG,
    steps: numberField("sftSteps", "SFT steps", "600"),
    seed: numberField("seed", "the run's seed", "1"),
    lr: numberField("sftLr", "SFT learning rate (AdamW, warm-up then cosine)", "2e-3"),
    batch: numberField("sftBatch", "SFT batch (sequences per step)", "32"),
    "open-ended": {
      kind: "bool",
      help: "train the open-ended form of the task (the final box holds the number, no options)",
    },
    ...taskFlags("sft"),
    "hint-copy": numberField(
      "task.hintCopyRate",
      "share of the other hinted targets whose final box copies the hint",
      "0.5",
    ),
    out: {
      kind: "string",
      arg: "FILE",
      defaultText: "public/checkpoints/<the task's name>.ckpt",
      help: "where the checkpoint goes (written under a temporary name, then renamed)",
    },
    resume: {
      kind: "string",
      arg: "FILE",
      help: "continue from this checkpoint (a new warm-up and cosine cycle)",
    },
    "eval-every": {
      kind: "int",
      min: 1,
      max: 100_000,
      default: 100,
      help: "SFT steps between held-out evals",
    },
    snapshots: {
      kind: "bool",
      help: "also write FILE.step<N>.ckpt at every intermediate eval (to pick an earlier cold start)",
    },
    quiet: { kind: "bool", help: "no per-step lines on stderr" },
  },
} as const satisfies CliTable;

export const TRAIN_PRM_TABLE = {
  command: "npm run train:prm --",
  summary:
    "Trains the learned PRM (GRR's PRM arm) from the open-ended SFT cold start as a generative step verifier, printing held-out step accuracy and AUC before and after.",
  flags: {
    size: SIZE_FLAG,
    steps: { kind: "int", min: 0, max: 1_000_000, default: 150, help: "training steps" },
    lr: { kind: "number", above: 0, max: 1, default: 1e-3, help: "learning rate (AdamW)" },
    batch: {
      kind: "int",
      min: 2,
      max: 1024,
      default: 32,
      help: "traces per step (even: half correct, half corrupted)",
    },
    seed: { kind: "int", min: 0, max: 2 ** 31 - 1, default: 1, help: "the run's seed" },
    "eval-size": { kind: "int", min: 1, max: 10_000, default: 64, help: "held-out traces" },
    "eval-every": {
      kind: "int",
      min: 0,
      max: 1_000_000,
      default: 0,
      help: "steps between held-out evals (0: before and after only)",
    },
    init: {
      kind: "string",
      arg: "FILE",
      defaultText: "public/checkpoints/sft-digits2-open-<size>.ckpt",
      help: "the checkpoint to start from",
    },
    out: {
      kind: "string",
      arg: "FILE",
      defaultText: "public/prm/prm-digits2-<size>.ckpt",
      help: "where the PRM checkpoint goes",
    },
    quiet: { kind: "bool", help: "no per-step lines on stderr" },
  },
} as const satisfies CliTable;
