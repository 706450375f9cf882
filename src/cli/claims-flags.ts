/**
 * The flags of `npm run claims` (src/cli/claims.ts) and `npm run stability`
 * (src/cli/stability.ts): one table each, for the parser, --help and
 * docs/cli.md.
 */
import type { CliTable } from "../lib/cli-table";
import { MAX_STABILITY_GROUP_SIZE, MAX_STABILITY_PROMPTS } from "../experiments/stability-study";
import { JUDGE_NAMES } from "../rewards/judges";
import { MAX_HOURS_FLAG, SEEDS_FLAG } from "./lab-flags";

/** The judge flag of both (its default noise; GRR App. B.1's text-only auditors by default). */
const JUDGE_FLAG = {
  kind: "enum",
  of: JUDGE_NAMES,
  default: "text-auditor",
  arg: "NAME",
  help: "the judge of the judge arms and the stability sweep, at its default noise",
} as const;

const CHECKPOINT_HELP = "the cold start to sample from instead of the shipped one";

export const CLAIMS_TABLE = {
  command: "npm run claims --",
  summary:
    "Runs each paper's claims in the lab as a resumable sweep over seeds and judges each claim (reproduced, not reproduced, inconclusive) from its paired comparisons.",
  flags: {
    size: {
      kind: "enum",
      of: ["ci", "full", "horizon", "tiny", "tiny-horizon"],
      default: "ci",
      help: "the run size (CLAIM_SIZES: seeds, steps, G, prompts, held-out size; horizon: 140 steps, an eval every 20, grr-rcacc at σ_b 0, 0.1, 0.2 and prm-shift with two PRMs; tiny and tiny-horizon are test sizes, their figures meaningless)",
    },
    seeds: { ...SEEDS_FLAG, defaultText: "the size's", help: "the seeds of the sweep" },
    claims: {
      kind: "string",
      arg: "ID,…",
      defaultText: "every claim",
      range: "comma-separated claim ids (src/experiments/claims.ts)",
      help: "run only these claims",
    },
    judge: JUDGE_FLAG,
    checkpoint: {
      kind: "string",
      arg: "FILE",
      defaultText: "the shipped cold start",
      help: "the default scenario's cold start",
    },
    "eval-size": {
      kind: "int",
      min: 4,
      max: 512,
      defaultText: "the size's",
      help: "held-out prompts per eval (a pilot; each claim's command line then carries it)",
    },
    out: {
      kind: "string",
      arg: "DIR",
      help: "a new folder, or one holding only notes (*.md), for sweep.json, the units and the report (excludes --resume)",
    },
    resume: {
      kind: "string",
      arg: "DIR",
      help: "continue the sweep in DIR with the same flags",
    },
    "max-hours": MAX_HOURS_FLAG,
    quiet: { kind: "bool", help: "no per-step lines on stderr" },
  },
} as const satisfies CliTable;

export const STABILITY_TABLE = {
  command: "npm run stability --",
  summary:
    "Judge stability on the lab's own rollouts (GRR §4.3.4): per judge setting, the mean per-rollout variance of pointwise GR and of GRR over repeated reward assignments.",
  flags: {
    prompts: {
      kind: "int",
      min: 1,
      max: MAX_STABILITY_PROMPTS,
      default: 16,
      help: "training prompts per draw (N)",
    },
    "group-size": {
      kind: "int",
      min: 2,
      max: MAX_STABILITY_GROUP_SIZE,
      default: 8,
      help: "rollouts per prompt (G)",
    },
    repeats: {
      kind: "int",
      min: 2,
      max: 1000,
      default: 4,
      help: "reward assignments per judge setting (R)",
    },
    seed: {
      kind: "int",
      min: 0,
      max: 2 ** 31 - 1,
      default: 1,
      help: "the seed of the one draw (excludes --seeds)",
    },
    seeds: { ...SEEDS_FLAG, help: "one draw per seed, then the pooled figures" },
    judge: JUDGE_FLAG,
    checkpoint: {
      kind: "string",
      arg: "FILE",
      defaultText: "the shipped cold start",
      help: CHECKPOINT_HELP,
    },
    temperature: {
      kind: "number",
      above: 0,
      max: 5,
      defaultText: "the experiment's",
      help: "rollout sampling temperature",
    },
    "full-size": {
      kind: "bool",
      help: "the default model even on a CPU adapter (which otherwise gets the small one)",
    },
    "sigma-j": {
      kind: "string",
      arg: "LIST",
      defaultText: "the judge's sweep",
      range: "comma-separated numbers in [0, 1], at most 32; goes with --sigma-b",
      help: "σ_j values of the grid",
    },
    "sigma-b": {
      kind: "string",
      arg: "LIST",
      defaultText: "the judge's sweep",
      range: "comma-separated numbers in [0, 1], at most 32; goes with --sigma-j",
      help: "σ_b values of the grid",
    },
    delta: {
      kind: "number",
      min: 0,
      max: 1,
      defaultText: "the judge's",
      help: "the oracle auditor's tie margin δ of the grid (needs --sigma-j and --sigma-b)",
    },
    fit: {
      kind: "string",
      arg: "P,G",
      range: "two variances > 0",
      help: "print the grid point whose pooled variances are nearest P (pointwise) and G (groupwise)",
    },
    quiet: { kind: "bool", help: "no per-step lines on stderr" },
  },
} as const satisfies CliTable;
