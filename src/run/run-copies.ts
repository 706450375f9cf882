/**
 * The variant copies of a lab run: every reward variant of the experiment
 * under every seed, in seed-major order (one seed's variants see the same
 * prompts, so they sit together), each its own policy on the run's engine.
 * Beside them, the step bookkeeping LabRun needs: which copies finished the
 * step in progress (a failed step resumes with the others only), which were
 * stopped for good (a PRM file error), and the streaks of skipped updates
 * (of forks too, by policy name).
 */
import type { LabEngine } from "../engine/lab-engine";
import type { AdamWOptions } from "../kernels/adamw/launch";
import type { Experiment, VariantConfig } from "../settings/experiment";
import type { TrainedCopy } from "./run-forks";
import type { PolicySnapshot } from "./snapshot";

/** The variant copies of one run (see the file comment). */
export class VariantCopies {
  private copies: TrainedCopy[];
  /** Copies (`name|seed`) that finished the step in progress. */
  private readonly done = new Set<string>();
  /** Copies (`name|seed`) stopped by a PRM file error, with the message. */
  private readonly stoppedCopies = new Map<string, string>();
  /** Consecutive RL steps whose update AdamW skipped, by policy name (absent: the last update went through). */
  private readonly skipStreak = new Map<string, number>();

  /**
   * @throws Error naming a seed that appears twice.
   */
  constructor(
    private readonly engine: LabEngine,
    exp: Experiment,
    seeds: readonly number[],
    policyName: (key: string, seed: number) => string,
    adam: AdamWOptions,
  ) {
    const dup = seeds.find((s, i) => seeds.indexOf(s) !== i);
    if (dup !== undefined)
      throw new Error(`Invalid experiment config: seeds: ${dup} appears twice`);
    this.copies = seeds.flatMap((seed) =>
      exp.variants.map((config) => ({
        key: config.name,
        config,
        seed,
        policy: engine.createPolicy(policyName(config.name, seed), adam),
      })),
    );
  }

  /** Every copy, seed-major. */
  get all(): readonly TrainedCopy[] {
    return this.copies;
  }

  /** The copies of variant `name` (one per seed). */
  named(name: string): TrainedCopy[] {
    return this.copies.filter((c) => c.key === name);
  }

  /**
   * `exp` with variant `config.name`'s config replaced by `config` (already
   * parsed: applyVariantPatch); every copy of the variant takes it.
   * @returns the new experiment.
   * @throws Error naming a variant that is not in this run.
   */
  withWeights(exp: Experiment, config: VariantConfig): Experiment {
    const copies = this.named(config.name);
    if (copies.length === 0) throw new Error(`setWeights: no variant '${config.name}' in this run`);
    for (const c of copies) c.config = config;
    return {
      ...exp,
      variants: exp.variants.map((c) => (c.name === config.name ? config : c)),
    };
  }

  /** The copy of variant `name` under `seed`, or undefined. */
  find(name: string, seed: number): TrainedCopy | undefined {
    return this.copies.find((c) => c.key === name && c.seed === seed);
  }

  /** The copies still to train at the step in progress (not done, not stopped), seed-major. */
  pending(): TrainedCopy[] {
    return this.copies.filter((c) => !this.done.has(id(c)) && !this.stoppedCopies.has(id(c)));
  }

  /** Marks `copy` done with the step in progress. */
  markDone(copy: TrainedCopy): void {
    this.done.add(id(copy));
  }

  /** The step in progress is over (or dropped): no copy is done with the next one. */
  clearStep(): void {
    this.done.clear();
  }

  /** True when some copies finished the step in progress and others did not (a step failed). */
  get partlyDone(): boolean {
    return this.done.size > 0;
  }

  /** Stops `copy` for good with the reason: it trains no further steps and is not evaluated. */
  stop(copy: TrainedCopy, message: string): void {
    this.stoppedCopies.set(id(copy), message);
  }

  /** True when `copy` was stopped. */
  isStopped(copy: TrainedCopy): boolean {
    return this.stoppedCopies.has(id(copy));
  }

  /** Why each stopped copy (`name|seed`) stopped. */
  get stopped(): ReadonlyMap<string, string> {
    return this.stoppedCopies;
  }

  /** Counts a skipped update of policy `name` (or ends its streak when `skipped` is false). */
  noteSkip(name: string, skipped: boolean): void {
    if (skipped) this.skipStreak.set(name, (this.skipStreak.get(name) ?? 0) + 1);
    else this.skipStreak.delete(name);
  }

  /** The skip streak of policy `name` (0: none). */
  streak(name: string): number {
    return this.skipStreak.get(name) ?? 0;
  }

  /** Sets the skip streak of policy `name` (a restored snapshot's; 0 removes it). */
  setStreak(name: string, steps: number): void {
    if (steps > 0) this.skipStreak.set(name, steps);
    else this.skipStreak.delete(name);
  }

  /** Policies with a skip streak of `n` or more steps, with its length. */
  repeatedSkips(n: number): { policy: string; steps: number }[] {
    return [...this.skipStreak]
      .filter(([, k]) => k >= n)
      .map(([policy, steps]) => ({ policy, steps }));
  }

  /** Every copy back to the reference parameters with a fresh optimizer; no step in progress, no streaks. */
  reset(): void {
    for (const c of this.copies) this.engine.resetPolicy(c.policy);
    this.done.clear();
    this.skipStreak.clear();
  }

  /** Each copy's part of a run snapshot (3 read-backs of [totalFloats] f32 per copy). */
  async snapshots(): Promise<PolicySnapshot[]> {
    const out: PolicySnapshot[] = [];
    for (const c of this.copies)
      out.push({
        key: c.key,
        seed: c.seed,
        ...(await this.engine.readPolicyState(c.policy)),
        skipStreak: this.streak(c.policy.name),
      });
    return out;
  }

  /**
   * Writes the copies' part of a snapshot back (`own`: the non-fork
   * policies, in this run's order); clears the step in progress and every
   * streak first.
   * @throws Error when the snapshot's copies are not this run's.
   */
  restore(own: readonly PolicySnapshot[]): void {
    const want = this.copies.map((v) => `${v.key} (seed ${v.seed})`);
    const got = own.map((p) => `${p.key} (seed ${p.seed})`);
    if (want.join("|") !== got.join("|"))
      throw new Error(
        `restore: the snapshot holds ${got.join(", ")}; this run trains ${want.join(", ")}`,
      );
    this.done.clear();
    this.skipStreak.clear();
    this.copies.forEach((c, i) => {
      this.engine.writePolicyState(c.policy, own[i]);
      this.setStreak(c.policy.name, own[i].skipStreak);
    });
  }

  /** Frees every copy's GPU buffers; the copies must not be used afterwards. */
  dispose(): void {
    for (const c of this.copies) this.engine.destroyPolicy(c.policy);
    this.copies = [];
  }
}

const id = (c: TrainedCopy) => `${c.key}|${c.seed}`;
