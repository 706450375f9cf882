/**
 * The flags of the lab's scripts that take any (scripts/sampled-eval.ts,
 * scripts/pack-mnist.ts, scripts/resave-checkpoints.ts,
 * scripts/screenshot-lesson.ts, scripts/scs-step1-continuations.ts): one table each, for the parser, --help and
 * docs/cli.md.
 */
import type { CliTable } from "../lib/cli-table";
import { ROLLOUT_CLASSES } from "../settings/credit-table";
import { PRESET_NAMES } from "../settings/presets";
import { numberField } from "./experiment-flags";
import { SEEDS_FLAG } from "./lab-flags";

export const SAMPLED_EVAL_TABLE = {
  command: "npm run eval:sampled --",
  summary:
    "Held-out metrics of a checkpoint, greedy and sampled (τ = 1, K answers per prompt, fixed seed).",
  positionals: [{ name: "CHECKPOINT", help: "the policy checkpoint", required: true }],
  flags: {
    "hint-accuracy": numberField(
      "task.hintAccuracy",
      "probability the hint is right",
      "the task's (1)",
    ),
    "eval-size": numberField("evalSize", "held-out prompts", "128"),
    samples: { kind: "int", min: 1, max: 16, default: 4, help: "sampled answers per prompt (K)" },
    seed: { kind: "int", min: 0, max: 2 ** 31 - 1, default: 7, help: "the sampling seed" },
  },
} as const satisfies CliTable;

/** Largest class share pack:mnist takes (the package holds about 1,000 digits per class; an input bound). */
const MAX_PER_CLASS = 100_000;

/**
 * pack:mnist's defaults: lab choice (7,000 train + 500 eval, balanced, 5.9
 * MB). With 2,000 train digits the small model memorized them (SFT loss
 * 0.000) and read 89 % of the held-out digits; after 500 more SFT steps on
 * 7,000, 91 % (README, "What it learns").
 */
export const PACK_MNIST_TABLE = {
  command: "npm run pack:mnist --",
  summary:
    "Re-packs public/data/mnist-subset.bin: a fixed, seeded, class-balanced subset of the npm package mnist, train and eval disjoint.",
  flags: {
    seed: { kind: "int", min: 0, max: 2 ** 32 - 1, default: 20240601, help: "the packing seed" },
    "train-per-class": {
      kind: "int",
      min: 0,
      max: MAX_PER_CLASS,
      default: 200,
      help: "train images per class",
    },
    "eval-per-class": {
      kind: "int",
      min: 0,
      max: MAX_PER_CLASS,
      default: 50,
      help: "held-out images per class",
    },
    "extra-train-per-class": {
      kind: "int",
      min: 0,
      max: MAX_PER_CLASS,
      default: 500,
      help: "further train images per class, after the held-out ones in each class's order",
    },
    out: {
      kind: "string",
      arg: "PATH",
      defaultText: "public/data/mnist-subset.bin",
      help: "the file to write",
    },
  },
} as const satisfies CliTable;

export const RESAVE_CHECKPOINTS_TABLE = {
  command: "npm run resave:checkpoints --",
  summary:
    "Re-writes checkpoints in the current format version (with checksums), each checked to read back bit for bit before it replaces the original.",
  flags: {},
  positionals: [
    {
      name: "FILE",
      help: "a checkpoint to re-write",
      many: true,
      defaultText: "every .ckpt under public/checkpoints",
    },
  ],
} as const satisfies CliTable;

export const SCREENSHOT_LESSON_TABLE = {
  command: "npm run screenshot:lesson --",
  summary:
    "Takes the lesson's screenshot from the built page in headless Chromium, after M minutes of training (or the recording played, with --no-webgpu).",
  flags: {
    minutes: {
      kind: "number",
      above: 0,
      max: 60,
      default: 3,
      arg: "M",
      help: "minutes of training before the screenshot",
    },
    hash: { kind: "string", arg: "H", help: "the page's URL hash (a shared link's settings)" },
    out: {
      kind: "string",
      arg: "FILE",
      default: "docs/screenshot-lesson.png",
      help: "the PNG to write",
    },
    "no-webgpu": {
      kind: "bool",
      help: "remove navigator.gpu: the page plays the recording",
    },
    presentation: { kind: "bool", help: "press Presentation first" },
  },
} as const satisfies CliTable;

export const SCREENSHOT_CREDIT_TABLE = {
  command: "npm run screenshot:credit --",
  summary:
    "Takes the credit view's screenshots from the built page in headless Chromium: the credit chart after N steps of a preset, and with --tokens the token view of the first kept rollout of a class, beside the other variant where the group is shared (step 1).",
  flags: {
    preset: {
      kind: "enum",
      of: PRESET_NAMES,
      default: "default",
      arg: "NAME",
      help: "the preset (the picker's link)",
    },
    steps: { kind: "int", min: 1, max: 50, default: 5, help: "Step presses before the screenshot" },
    out: {
      kind: "string",
      arg: "FILE",
      defaultText: "docs/credit-<preset>.png (none with --tokens)",
      help: "the credit chart's PNG",
    },
    seeds: {
      ...SEEDS_FLAG,
      defaultText: "the preset's one seed",
      help: "the run's seeds (at most 8, the page's limit): each seed's step-1 group is one more shared group to find the class in",
    },
    "eval-size": {
      kind: "int",
      min: 4,
      max: 512,
      arg: "N",
      defaultText: "the preset's",
      help: "held-out prompts per eval (a smaller one shortens the run; the token view reads none)",
    },
    tokens: {
      kind: "string",
      arg: "FILE",
      help: "also take the token view to FILE (then the chart only with --out)",
    },
    class: {
      kind: "enum",
      of: ROLLOUT_CLASSES.map((c) => c.key),
      default: "flawed-right",
      arg: "KEY",
      help: "the rollout class whose token view is taken",
    },
    beside: {
      kind: "string",
      arg: "VARIANT",
      defaultText: "the preset's second variant",
      help: "the variant shown beside (step 1's shared group)",
    },
  },
} as const satisfies CliTable;

export const SCREENSHOT_REWARD_TABLE = {
  command: "npm run screenshot:reward --",
  summary:
    "Trains RLVR beside a written reward on the built page in headless Chromium (the code comes in the link, so the script presses Run first) and takes the response-length chart and the reward-hacking checks.",
  flags: {
    reward: {
      kind: "string",
      arg: "FILE",
      default: "examples/rewards/length-bonus.js",
      help: "the written reward (the user variant), trained beside RLVR",
    },
    preset: {
      kind: "enum",
      of: PRESET_NAMES,
      default: "smoke",
      arg: "NAME",
      help: "the preset whose settings the run takes (its variants replaced by rlvr and user)",
    },
    steps: { kind: "int", min: 6, max: 200, default: 60, help: "RL steps the page trains" },
    seed: { kind: "int", min: 0, max: 2147483647, default: 1, help: "the run's seed" },
    "multiple-choice": {
      kind: "bool",
      help: "ask with options A–D (the final box holds the letter)",
    },
    "hint-rate": {
      kind: "number",
      min: 0,
      max: 1,
      defaultText: "the preset's",
      help: "share of questions that carry an answer hint (with --trace-slip, picks the cold start)",
    },
    "trace-slip": {
      kind: "number",
      min: 0,
      max: 1,
      defaultText: "the preset's",
      help: "share of SFT traces whose last step slips (picks the cold start trained with it)",
    },
    out: {
      kind: "string",
      arg: "PREFIX",
      default: "docs/reward-length-bonus",
      help: "PNG files PREFIX-chart.png (response length) and PREFIX-checks.png (the checks)",
    },
  },
} as const satisfies CliTable;

export const SCS_STEP1_TABLE = {
  command: "npm run diag:scs-step1 --",
  summary:
    "The SCS pass of one seed's first RL step on the scs-paper cold start, as a claims run makes it: one JSON line per rollout with its class, its m continuations and their parsed answers, |A| and r_con.",
  flags: {
    seed: {
      kind: "int",
      min: 0,
      max: 2 ** 31 - 1,
      default: 303,
      help: "the run seed whose step-1 prompts and rollouts are made",
    },
    class: {
      kind: "enum",
      of: ROLLOUT_CLASSES.map((c) => c.key),
      arg: "KEY",
      defaultText: "every class",
      help: "print only the rollouts of this class",
    },
  },
} as const satisfies CliTable;

export const CHECKS_TABLE = {
  command: "npm run checks --",
  summary:
    "The page's reward-hacking checks (src/ui/lib/detectors.ts) on a run's metric rows (a `lab --out` folder or its metrics.jsonl): each variant's mean response length over its first and last train steps of the checks' window, and every check that fires, as one JSON line.",
  positionals: [
    {
      name: "RUN",
      help: "a `lab --out` folder (its metrics.jsonl is read) or a metrics.jsonl file",
      required: true,
    },
  ],
  flags: {
    "eval-size": {
      kind: "int",
      min: 1,
      max: 100000,
      default: 16,
      help: "held-out prompts per eval of the run (the one-seed band's n; the smoke preset's is 16)",
    },
  },
} as const satisfies CliTable;
