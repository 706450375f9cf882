/**
 * The forked branches of a lab run (LabRun.fork): each a copy of a variant
 * (or of another fork) under one seed, with changed reward weights / judge
 * noise, that trains beside the variants on its parent's prompts and
 * sampling seeds. This file keeps the branches: making one (a GPU copy of
 * the parent's parameters and AdamW state), its marker, looking one up,
 * dropping them, and their part of a run snapshot. LabRun trains them.
 */
import type { LabEngine, Policy } from "../engine/lab-engine";
import type { AdamWOptions } from "../kernels/adamw/launch";
import { VariantSchema, type VariantConfig } from "../settings/experiment";
import { forkKey } from "../settings/fork-key";
import type { WeightValue } from "../settings/variant-table";
import type { Marker, MetricRow, RunSink } from "./run-types";
import type { PolicySnapshot } from "./snapshot";

/** One trained copy: a variant's or a fork's policy under one seed. */
export interface TrainedCopy {
  /** Row, sample and marker key: the variant's name, or the fork key. */
  key: string;
  config: VariantConfig;
  policy: Policy;
  /** The seed of this copy: Experiment.seeds[i], or `seed` for a single-seed run. */
  seed: number;
}

/** A forked branch under one seed. */
export interface ForkCopy extends TrainedCopy {
  /** The variant name or fork key it was forked from. */
  parent: string;
  /** Last RL step this copy has been trained on (the fork step right after the fork). */
  trainedTo: number;
}

/** Most fork branches one run keeps (lab choice: each costs one variant-step of time per step). */
const MAX_FORKS = 4;

/** The fork branches of one run (see the file comment). */
export class RunForks {
  private list: ForkCopy[] = [];

  /**
   * @param engine the run's engine (the copies' GPU buffers).
   * @param policyName the buffer label of a copy (`key`, or `key.s<seed>` in a multi-seed run).
   * @param multiSeed true when rows carry their seed (Experiment.seeds given).
   */
  constructor(
    private readonly engine: LabEngine,
    private readonly policyName: (key: string, seed: number) => string,
    private readonly multiSeed: () => boolean,
  ) {}

  /** Every fork copy, in the order they were made (each seed's copy of a fork together). */
  get copies(): readonly ForkCopy[] {
    return this.list;
  }

  /** Keys of the forks, once each, in the order they were made. */
  get keys(): string[] {
    return [...new Set(this.list.map((f) => f.key))];
  }

  /** The copies of fork `key` (one per seed; empty when there is none). */
  ofKey(key: string): ForkCopy[] {
    return this.list.filter((f) => f.key === key);
  }

  /** The copy of fork `key` under `seed`, or undefined. */
  find(key: string, seed: number): ForkCopy | undefined {
    return this.list.find((f) => f.key === key && f.seed === seed);
  }

  /** Reward settings of fork `key` (the parent's with the changed weights). @throws Error for an unknown key. */
  config(key: string): VariantConfig {
    const f = this.ofKey(key)[0];
    if (!f) throw new Error(`no fork '${key}' in this run`);
    return f.config;
  }

  /**
   * Parameters of fork `key`'s policy [totalFloats]; `seed` picks the copy in
   * a multi-seed run (default: its first copy).
   * @throws Error for an unknown key or seed.
   */
  async params(key: string, seed?: number): Promise<Float32Array> {
    const f = seed === undefined ? this.ofKey(key)[0] : this.find(key, seed);
    if (!f)
      throw new Error(
        `no fork '${key}'${seed === undefined ? "" : ` with seed ${seed}`} in this run`,
      );
    return this.engine.readParams(f.policy.params);
  }

  /** True when every fork copy has trained up to `step`. */
  allTrainedTo(step: number): boolean {
    return this.list.every((f) => f.trainedTo === step);
  }

  /**
   * Forks `name` (the variant copies `variantParents`, or else the fork of
   * that key) at `step` (LabRun.fork). Every seed's copy of the parent gets
   * its own fork: a new policy whose parameters AND AdamW state (m, v, t)
   * are GPU copies of the parent's now, so the curves part only through the
   * changed reward. Emits a marker (variant = the fork key, step, `fork`
   * set), then each copy's first eval row at this step: a copy of the
   * parent's row when `parentEval` gives one of this step, else a fresh eval
   * (`evalCopy`; the parameters equal the parent's, so the values are its).
   * @returns the fork key.
   * @throws Error naming an unknown parent, a step that is half done
   *   (`partlyDone`, or a parent fork behind), an invalid value or too many forks.
   */
  async fork(args: {
    variantParents: readonly TrainedCopy[];
    name: string;
    step: number;
    partlyDone: boolean;
    weights: Readonly<Record<string, WeightValue>>;
    judge?: Partial<VariantConfig["judge"]>;
    parentEval?: (seed: number) => MetricRow | undefined;
    sink: RunSink;
    evalCopy: (f: ForkCopy, step: number) => Promise<unknown>;
  }): Promise<string> {
    const { name, step } = args;
    const forkParents = this.ofKey(name);
    const parents = args.variantParents.length ? args.variantParents : forkParents;
    if (parents.length === 0) throw new Error(`fork: no variant or fork '${name}' in this run`);
    if (args.partlyDone || forkParents.some((f) => f.trainedTo !== step))
      throw new Error(
        `fork: step ${step + 1} is only partly done (a variant failed); train one more step, then fork`,
      );
    const { key, made, marker } = this.make(parents, name, step, args.weights, args.judge);
    args.sink.marker(marker);
    for (const f of made) {
      const prev = args.parentEval?.(f.seed);
      if (prev && prev.kind === "eval" && prev.step === step) {
        const row = { variant: key, step, time: prev.time, kind: "eval" as const };
        const values = { ...prev.values };
        args.sink.metrics([
          this.multiSeed() ? { ...row, values, seed: f.seed } : { ...row, values },
        ]);
      } else await args.evalCopy(f, step);
    }
    return key;
  }

  /**
   * Makes fork copies of `parents` (every seed's copy of the variant or fork
   * `name`) at `step` with `weights` / `judge` changed: GPU copies of each
   * parent's parameters and AdamW state (LabEngine.forkPolicy, no read-back).
   * Key format (src/settings/fork-key.ts): `<name>@fork<step>`, a second fork of
   * the same parent at the same step `<name>@fork<step>.2`.
   * @returns the key, the new copies and the fork's marker.
   * @throws Error naming an invalid value, or more than MAX_FORKS forks.
   */
  private make(
    parents: readonly TrainedCopy[],
    name: string,
    step: number,
    weights: Readonly<Record<string, WeightValue>>,
    judge?: Partial<VariantConfig["judge"]>,
  ): { key: string; made: ForkCopy[]; marker: Marker } {
    if (this.keys.length >= MAX_FORKS)
      throw new Error(
        `fork: this run already has ${MAX_FORKS} forks (lab limit); Reset to start over`,
      );
    const base = parents[0].config;
    const parsed = VariantSchema.safeParse({
      ...base,
      weights: { ...base.weights, ...weights },
      judge: { ...base.judge, ...(judge ?? {}) },
    });
    if (!parsed.success) {
      throw new Error(
        `fork: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
      );
    }
    const config = parsed.data;
    let n = 1;
    while (this.list.some((f) => f.key === forkKey(name, step, n))) n++;
    const key = forkKey(name, step, n);
    const made = parents.map((p) => {
      const f: ForkCopy = {
        key,
        parent: name,
        config,
        seed: p.seed,
        trainedTo: step,
        policy: this.engine.forkPolicy(p.policy, this.policyName(key, p.seed)),
      };
      this.list.push(f);
      return f;
    });
    const changes: Record<string, number | string> = {};
    for (const [k, v] of Object.entries(config.weights))
      if (base.weights[k as keyof typeof base.weights] !== v) changes[k] = v;
    for (const [k, v] of Object.entries(config.judge))
      if (base.judge[k as keyof typeof base.judge] !== v) changes[k] = v;
    const label = `fork of ${name}: ${
      Object.entries(changes)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ") || "same weights"
    }`;
    return { key, made, marker: { variant: key, step, label, fork: { parent: name, changes } } };
  }

  /** Drops every fork and frees its GPU buffers; returns the dropped copies' policy names. */
  clear(): string[] {
    const names = this.list.map((f) => f.policy.name);
    for (const f of this.list) this.engine.destroyPolicy(f.policy);
    this.list = [];
    return names;
  }

  /**
   * Each fork copy's part of a run snapshot (3 read-backs of [totalFloats] f32).
   * @param skipStreak the copy's skip streak by policy name.
   */
  async snapshots(skipStreak: (policy: string) => number): Promise<PolicySnapshot[]> {
    const out: PolicySnapshot[] = [];
    for (const f of this.list)
      out.push({
        key: f.key,
        seed: f.seed,
        ...(await this.engine.readPolicyState(f.policy)),
        skipStreak: skipStreak(f.policy.name),
        fork: { parent: f.parent, config: f.config, trainedTo: f.trainedTo },
      });
    return out;
  }

  /**
   * Makes the forks of a snapshot again (after `clear`): a policy per fork
   * copy with the snapshot's parameters and AdamW state.
   * @returns the policy names with their skip streaks (> 0 only).
   */
  restore(policies: readonly PolicySnapshot[], adam: AdamWOptions): [string, number][] {
    const streaks: [string, number][] = [];
    for (const p of policies) {
      if (!p.fork) continue;
      const name = this.policyName(p.key, p.seed);
      const policy = this.engine.createPolicy(name, adam);
      this.engine.writePolicyState(policy, p);
      if (p.skipStreak > 0) streaks.push([name, p.skipStreak]);
      this.list.push({
        key: p.key,
        parent: p.fork.parent,
        config: p.fork.config,
        policy,
        seed: p.seed,
        trainedTo: p.fork.trainedTo,
      });
    }
    return streaks;
  }
}
