/**
 * The flags of `npm run lab` (src/cli/lab.ts): one table for the parser,
 * --help and docs/cli.md. Flags that set an experiment field are range-checked
 * by the experiment schema (experiment-flags.ts), the rest here.
 */
import type { CliTable } from "../lib/cli-table";
import { DEFAULT_MAX_HOURS } from "../run/sweep";
import { ESTIMATOR_NAMES } from "../settings/estimator-table";
import { PRESET_NAMES } from "../settings/presets";
import { numberField, taskFlags, textField } from "./experiment-flags";

/** Most hours a sweep may be given (lab choice: a bound on the input, about six weeks). */
const MAX_SWEEP_HOURS = 1000;

/** The seed-list flag of the sweeps (parsed by parseSeedList: integers, no repeats, at most 1000). */
export const SEEDS_FLAG = {
  kind: "string",
  arg: "S1,S2,…",
  range: "comma-separated integers in [0, 2147483647], no repeats, at most 1000",
} as const;

/** --max-hours of the sweeps. */
export const MAX_HOURS_FLAG = {
  kind: "number",
  above: 0,
  max: MAX_SWEEP_HOURS,
  default: DEFAULT_MAX_HOURS,
  arg: "H",
  help: "the hours one sitting of a sweep runs: it stops cleanly before the first unit that would not end within them (exit 0; --resume DIR goes on)",
} as const;

export const LAB_TABLE = {
  command: "npm run lab --",
  summary:
    "Trains the preset's variants side by side on Node (the page's engine and reward code) and prints one JSON line of their final metrics; --seeds makes it a resumable sweep.",
  flags: {
    preset: {
      kind: "enum",
      of: PRESET_NAMES,
      default: "smoke",
      arg: "NAME",
      help: "the experiment to start from (src/settings/presets.ts)",
    },
    steps: numberField(
      "algorithm.steps",
      "RL steps",
      "the preset's (with --resume: the snapshot's)",
    ),
    seed: numberField("seed", "the run's seed (prompts, rollouts, judge noise)", "the preset's"),
    seeds: {
      ...SEEDS_FLAG,
      help: "train every variant once per seed from the same cold start (a sweep; excludes --seed)",
    },
    lr: numberField("algorithm.lr", "RL learning rate (AdamW)", "the preset's"),
    temperature: numberField(
      "algorithm.temperature",
      "rollout sampling temperature (the loss uses softmax(logits/T) as well)",
      "the preset's",
    ),
    "group-size": numberField("algorithm.groupSize", "rollouts per prompt (G)", "the preset's"),
    "batch-prompts": numberField("algorithm.batchPrompts", "prompts per RL step", "the preset's"),
    "eval-every": numberField(
      "algorithm.evalEvery",
      "RL steps between held-out evals",
      "the preset's",
    ),
    "eval-size": numberField("evalSize", "held-out prompts per eval", "the preset's"),
    "eval-temperature": numberField(
      "evalTemperature",
      "held-out eval decoding (0: greedy)",
      "the preset's",
    ),
    "sft-steps": numberField("sftSteps", "SFT steps of --from-scratch", "the preset's"),
    variants: {
      kind: "string",
      arg: "a,b,…",
      field: "variants",
      defaultText: "the preset's",
      range: "comma-separated names of the variant table (src/settings/variant-table.ts)",
      help: "the variants to train (the preset's settings for those it has)",
    },
    estimator: {
      ...textField("algorithm.estimator", "the algorithm's advantage estimator", "the preset's"),
      range: `one of ${ESTIMATOR_NAMES.join(", ")}`,
      help: "the algorithm's advantage estimator (a variant with its own keeps it unless --set VARIANT.estimator=NAME)",
    },
    set: {
      kind: "repeat",
      arg: "VARIANT.KEY=VALUE",
      range:
        "a weight, judge setting, estimator or beta of a variant in the run, checked by its schema",
      help: "set one setting of one variant (repeatable), e.g. grr.lambda=0.5",
    },
    ...taskFlags("preset"),
    faint: numberField(
      "task.faintContrast",
      "one digit of every RL and held-out prompt drawn at this contrast (the SCS faint-digit scenario; the cold start is not retrained)",
      "the preset's (off when it has none)",
    ),
    "multiple-choice": {
      kind: "bool",
      help: "ask with options A–D (the final box holds the letter)",
    },
    checkpoint: {
      kind: "string",
      arg: "FILE",
      defaultText: "the shipped cold start",
      help: "start RL from this cold start (e.g. a train:sft --snapshots file); must fit the model size and task",
    },
    "from-scratch": { kind: "bool", help: "SFT from random weights first (excludes --checkpoint)" },
    "full-size": {
      kind: "bool",
      help: "the default model even on a CPU adapter (which otherwise gets the small one)",
    },
    prm: {
      kind: "string",
      arg: "FILE",
      defaultText: "the shipped public/prm file",
      help: "the learned PRM of the prm variant",
    },
    reward: {
      kind: "string",
      arg: "FILE",
      range: "a JavaScript file defining reward(group), at most 64000 characters",
      help: "train this written reward as the user variant beside the others (e.g. examples/rewards/length-bonus.js; run in the reward sandbox)",
    },
    out: {
      kind: "string",
      arg: "DIR",
      help: "write metrics, checkpoints and the run snapshot here (an earlier run's folder goes to DIR/run-<n>)",
    },
    force: { kind: "bool", help: "write into an --out folder that holds an earlier run" },
    resume: {
      kind: "string",
      arg: "FILE|DIR",
      help: "continue a run snapshot (FILE: only --steps, --out, --force, --quiet, --dry-run, --prm go with it) or a sweep (DIR: with the same flags)",
    },
    "max-hours": MAX_HOURS_FLAG,
    "dry-run": { kind: "bool", help: "print the experiment the flags give as JSON and stop" },
    quiet: { kind: "bool", help: "no per-step lines on stderr" },
  },
} as const satisfies CliTable;
