/**
 * The flags of `npm run record` (src/cli/record.ts): one table for the
 * parser, --help and docs/cli.md.
 */
import type { CliTable } from "../lib/cli-table";
import { PRESET_NAMES } from "../settings/presets";
import { numberField } from "./experiment-flags";
import { SEEDS_FLAG } from "./lab-flags";

/** Most inspector groups a recording keeps (lab choice: the file stays a few MB at most). */
const MAX_GROUPS = 2000;

export const RECORD_TABLE = {
  command: "npm run record --",
  summary:
    "Records a preset's run (every metric row and marker, a sample of inspector groups) as the JSON file the page plays where it cannot train.",
  flags: {
    preset: {
      kind: "enum",
      of: PRESET_NAMES,
      required: true,
      arg: "NAME",
      help: "the preset to record (src/settings/presets.ts)",
    },
    seeds: {
      ...SEEDS_FLAG,
      field: "seeds",
      defaultText: "1,2,3",
      help: "every variant once per seed",
    },
    steps: numberField("algorithm.steps", "RL steps", "the preset's"),
    "eval-every": numberField(
      "algorithm.evalEvery",
      "RL steps between held-out evals",
      "the preset's",
    ),
    "eval-size": numberField("evalSize", "held-out prompts per eval", "the preset's"),
    "group-size": numberField("algorithm.groupSize", "rollouts per prompt (G)", "the preset's"),
    "batch-prompts": numberField("algorithm.batchPrompts", "prompts per RL step", "the preset's"),
    "max-groups": {
      kind: "int",
      min: 1,
      max: MAX_GROUPS,
      default: 40,
      help: "inspector groups kept (the first seed's)",
    },
    out: {
      kind: "string",
      arg: "FILE",
      defaultText: "public/recordings/<preset>.json",
      help: "the recording file",
    },
    force: { kind: "bool", help: "replace an existing --out file" },
    quiet: { kind: "bool", help: "no per-step lines on stderr" },
  },
} as const satisfies CliTable;
