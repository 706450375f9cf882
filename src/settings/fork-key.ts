/**
 * Keys of forked branches (LabRun.fork). A fork's metric rows, sample
 * groups and its marker carry the key instead of a variant name:
 *
 *   <parent>@fork<step>        e.g. grr@fork12: forked from grr after step 12
 *   <parent>@fork<step>.<n>    the n-th fork (n = 2, 3, …) of the same parent at the same step
 *
 * The parent may itself be a fork key (grr@fork12@fork20); the base variant
 * (the reward, and the colour on the charts) is the part before the first
 * "@". Pure: the trainer names forks with it, the page reads them with it.
 */

/** What a fork key says. */
export interface ForkKeyInfo {
  /** The reward variant the fork trains (part before the first "@"), e.g. "grr". */
  base: string;
  /** The key it was forked from (a variant name or another fork key). */
  parent: string;
  /** RL step the fork branched at (its first eval row is at this step). */
  step: number;
  /** 1 for the first fork of `parent` at `step`, 2, 3, … for later ones. */
  n: number;
}

/**
 * The key of the n-th fork of `parent` at `step`.
 * @throws Error on a negative or non-integer step or n < 1.
 */
export function forkKey(parent: string, step: number, n = 1): string {
  if (!Number.isInteger(step) || step < 0)
    throw new Error(`forkKey: step must be an integer ≥ 0, got ${step}`);
  if (!Number.isInteger(n) || n < 1) throw new Error(`forkKey: n must be an integer ≥ 1, got ${n}`);
  return n === 1 ? `${parent}@fork${step}` : `${parent}@fork${step}.${n}`;
}

const FORK_RE = /^(.+)@fork(\d+)(?:\.(\d+))?$/;

/** Parses a fork key; null for a plain variant name (or anything else). */
export function parseForkKey(key: string): ForkKeyInfo | null {
  const m = FORK_RE.exec(key);
  if (!m) return null;
  return { base: key.split("@")[0], parent: m[1], step: Number(m[2]), n: m[3] ? Number(m[3]) : 1 };
}

/** The reward variant behind a series key: the key itself for a variant, the base variant for a fork. */
export function baseVariant(key: string): string {
  return key.split("@")[0];
}
