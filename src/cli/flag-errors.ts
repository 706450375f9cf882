/**
 * Experiment settings given as CLI flags, checked by the experiment schema
 * with errors that name the flag as well as the field (`--eval-size:
 * evalSize: at most 512 (MAX_EVAL_SIZE: …), got 1000000000`), before any
 * work starts.
 */
import { ExperimentSchema, parseExperiment, type Experiment } from "../settings/experiment";

/** Schema field path (dot-joined) → the flag that sets it. */
export type FlagOfField = Readonly<Record<string, string>>;

/** The flag of a field path: an exact entry, else the entry of its longest prefix. */
function flagFor(path: string, flagOf: FlagOfField): string | undefined {
  for (let p = path; p; p = p.includes(".") ? p.slice(0, p.lastIndexOf(".")) : "")
    if (Object.hasOwn(flagOf, p)) return flagOf[p];
  return undefined;
}

/**
 * Parses an experiment built from flags (parseExperiment's checks and
 * defaults).
 * @param flagOf the flags that were given, by the field they set; an issue on
 *   one of those fields names the flag first.
 * @throws Error "Invalid experiment config: [--flag: ]path: message; …".
 */
export function parseExperimentFlags(input: unknown, flagOf: FlagOfField): Experiment {
  const r = ExperimentSchema.safeParse(input ?? {});
  if (!r.success) {
    const msg = r.error.issues
      .map((i) => {
        const path = i.path.join(".");
        const flag = flagFor(path, flagOf);
        return `${flag ? `${flag}: ` : ""}${path || "(root)"}: ${i.message}`;
      })
      .join("; ");
    throw new Error(`Invalid experiment config: ${msg}`);
  }
  return parseExperiment(r.data);
}

/** Keeps the entries of `flagOf` whose flag (without `--`) is in `given`. */
export function givenFlags(
  flagOf: FlagOfField,
  given: Readonly<Record<string, unknown>>,
): FlagOfField {
  return Object.fromEntries(
    Object.entries(flagOf).filter(([, flag]) => given[flag.replace(/^--/, "")] !== undefined),
  );
}
