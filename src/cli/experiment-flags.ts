/**
 * Flags that set a field of the experiment: the experiment schema
 * (src/settings/experiment.ts) checks their range, once, when the CLI parses
 * the experiment (flag-errors.ts names the flag); the flag table shows that
 * range, read from the schema itself, so --help and docs/cli.md say what the
 * schema checks.
 */
import { z } from "zod";
import type { FlagSpec } from "../lib/cli-table";
import { ExperimentSchema } from "../settings/experiment";
import type { FlagOfField } from "./flag-errors";

interface JsonNode {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonNode>;
  items?: JsonNode;
}

let schemaJson: JsonNode | null = null;

/**
 * The range of an experiment field in words, e.g. "integer in [1, 64]",
 * "number in (0, 1]", "one of near, off-misread".
 * @throws Error when the schema has no such field (a table naming a field that is gone).
 */
function fieldRange(field: string): string {
  schemaJson ??= z.toJSONSchema(ExperimentSchema, {
    io: "input",
    unrepresentable: "any",
  }) as JsonNode;
  let node: JsonNode | undefined = schemaJson;
  for (const key of field.split(".")) node = node?.properties?.[key];
  if (!node) throw new Error(`the experiment has no field '${field}'`);
  if (node.type === "array" && node.items) node = node.items;
  if (node.enum) return `one of ${node.enum.join(", ")}`;
  const lo =
    node.exclusiveMinimum !== undefined
      ? `(${node.exclusiveMinimum}`
      : node.minimum !== undefined
        ? `[${node.minimum}`
        : "(-∞";
  const hi =
    node.exclusiveMaximum !== undefined
      ? `${node.exclusiveMaximum})`
      : node.maximum !== undefined
        ? `${node.maximum}]`
        : "∞)";
  return `${node.type === "integer" ? "integer" : "number"} in ${lo}, ${hi} (experiment ${field})`;
}

/** A number flag that sets experiment field `field`; the schema checks its range. */
export function numberField(field: string, help: string, defaultText: string) {
  return { kind: "number", field, help, defaultText, range: fieldRange(field) } as const;
}

/** A text flag that sets experiment field `field` (one of the schema's values). */
export function textField(field: string, help: string, defaultText: string) {
  return {
    kind: "string",
    field,
    help,
    defaultText,
    range: fieldRange(field),
    arg: "NAME",
  } as const;
}

/** Experiment field → `--flag`, for every flag of `flags` that sets one. */
export function flagOfField(flags: Readonly<Record<string, FlagSpec>>): FlagOfField {
  const out: Record<string, string> = {};
  for (const [name, s] of Object.entries(flags)) if (s.field) out[s.field] = `--${name}`;
  return out;
}

/** The scenario flags `lab` and `train:sft` share (the task fields the cold start is trained on). */
export function taskFlags(defaults: "preset" | "sft") {
  const d = (sft: string) => (defaults === "preset" ? "the preset's" : sft);
  return {
    "hint-rate": numberField(
      "task.hintRate",
      "share of questions that carry an answer hint",
      d("0"),
    ),
    "hint-accuracy": numberField(
      "task.hintAccuracy",
      "probability the hint is right (a wrong hint is a near miss)",
      d("1"),
    ),
    "trace-slip": numberField(
      "task.traceSlipRate",
      "share of SFT traces whose last step slips (picks the cold start trained with it)",
      d("0"),
    ),
    "slip-box": textField(
      "task.traceSlipBox",
      "what a slipped trace's final box holds (picks the cold start)",
      d("hint"),
    ),
    "option-skew": numberField(
      "task.optionSkew",
      "probability the right option is at A in the training prompts (the held-out set is never skewed)",
      d("0"),
    ),
    distractors: textField(
      "task.distractorRule",
      "distractor rule of multiple choice (off-misread: no wrong option is what a one-digit misread concludes)",
      d("near"),
    ),
    misread: numberField(
      "task.misreadRate",
      "share of misread-and-guess traces (the SCS scenario; picks the cold start)",
      d("0"),
    ),
    "index-binding": numberField(
      "task.indexBindingRate",
      "share of letter-bound traces (the ACRE scenario; picks the cold start)",
      d("0"),
    ),
  } as const;
}
