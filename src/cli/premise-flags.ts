/**
 * The flags of `npm run premise` (src/cli/premise.ts): one table for the
 * parser, --help and docs/cli.md.
 */
import type { CliTable } from "../lib/cli-table";
import { PRESET_NAMES } from "../settings/presets";
import { numberField } from "./experiment-flags";
import { SEEDS_FLAG } from "./lab-flags";

export const PREMISE_TABLE = {
  command: "npm run premise --",
  summary:
    "The premise check of a scenario on its outcome-only baseline arm alone (docs/reward-spec.md §4.3): the flaw rate at the last eval against each seed's step-0 95 % Wilson band.",
  flags: {
    preset: {
      kind: "enum",
      of: PRESET_NAMES,
      default: "scs-premise",
      arg: "NAME",
      help: "the scenario's baseline preset (one variant; a preset with more is refused)",
    },
    seeds: {
      ...SEEDS_FLAG,
      required: true,
      help: "the tuning seeds",
    },
    steps: numberField("algorithm.steps", "RL steps (the horizon)", "the preset's"),
    "eval-every": numberField(
      "algorithm.evalEvery",
      "RL steps between held-out evals",
      "the preset's",
    ),
    "eval-size": numberField("evalSize", "held-out prompts per eval", "the preset's"),
    quiet: { kind: "bool", help: "no per-step lines on stderr" },
  },
} as const satisfies CliTable;

export const ACRE_PREMISE_TABLE = {
  command: "npm run premise:acre --",
  summary:
    "ACRE's premise check (docs/results.md, 2026-12-06): the scenario's baseline arm alone (GRPO + format + length) under each tuning seed; binding: the bound-form rate against each seed's step-0 band, with the two forms' step-0 accuracies within 0.10; prior and blank: the top-letter share must rise above the band; skew-letter: the skewed letter's share.",
  flags: {
    scenario: {
      kind: "enum",
      of: ["binding", "prior", "blank", "skew-letter"],
      default: "binding",
      arg: "NAME",
      help: "binding: acre-premise, the bound form must stay (boundRate ≥ the step-0 band's lower edge); prior: acre-prior, an option-position prior must be learned (topLetterShare ≥ the band's upper edge); blank: acre-prior-blank, the same with the faint digit blank; skew-letter: acre-prior-blank, the share of the skewed letter A must rise above the band",
    },
    seeds: { ...SEEDS_FLAG, defaultText: "41,42,43 (the tuning seeds)", help: "the tuning seeds" },
    steps: numberField("algorithm.steps", "RL steps (the horizon)", "the preset's"),
    "eval-every": numberField(
      "algorithm.evalEvery",
      "RL steps between held-out evals",
      "the preset's",
    ),
    "eval-size": numberField("evalSize", "held-out prompts per eval", "the preset's"),
    quiet: { kind: "bool", help: "no per-step lines on stderr" },
  },
} as const satisfies CliTable;
