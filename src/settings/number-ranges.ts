/**
 * The range of each number field of a settings schema, read from the schema
 * itself: the one place a weight's or a judge setting's bounds are written is
 * its zod schema (src/settings/variant-table.ts), and the page's sliders and
 * number fields read them from here.
 */
import { z } from "zod";

/** A number weight's range and kind, read from its schema (the page's slider and number fields use it). */
export interface NumberRange {
  min: number;
  max: number;
  /** An integer weight (a count): the page steps by 1. */
  integer: boolean;
}

/**
 * The range of every number field of an object schema (its defaults
 * unwrapped): the one place a weight's bounds are written is its schema.
 * @throws Error naming a number field without both bounds (a table entry's bug).
 */
export function numberRanges(schema: z.ZodObject): Readonly<Record<string, NumberRange>> {
  const out: Record<string, NumberRange> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const inner = field instanceof z.ZodDefault ? field.unwrap() : field;
    if (!(inner instanceof z.ZodNumber)) continue;
    const { minValue: min, maxValue: max } = inner;
    if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max))
      throw new Error(`weight '${key}': its schema needs a finite min and max`);
    out[key] = { min, max, integer: inner.isInt };
  }
  return out;
}
