/**
 * Group assembly for the groupwise variant (GRR): OpenRLHF since its
 * streaming-sampling rework posts each rollout in its own request, N of a
 * prompt at once (docs/reward-server.md, "OpenRLHF"), while GRR ranks a
 * prompt's rollouts together. The assembler holds the rollouts of a group
 * (same group key and same label) until `groupSize` of them have arrived,
 * has the whole group judged in one call, and hands each request its own
 * rollouts' rewards.
 *
 * - A group that does not fill within `groupWaitMs` of its first rollout is
 *   judged as it stands and flagged (`timedOut`).
 * - Bounded: a request that would leave more than `maxWaitingGroups` groups
 *   or `maxWaitingRollouts` rollouts waiting is refused whole (AssemblyFull,
 *   HTTP 503 with Retry-After); nothing of it is kept.
 * - Retries: a rollout whose request dropped its connection stays in its
 *   group (it is a valid sample) and becomes claimable. A later rollout with
 *   the same group key and the same response text claims it instead of
 *   joining as a new rollout: it is the client's retry, so it waits for (or,
 *   once judged, gets at once) that rollout's reward. A judged claimable
 *   rollout stays claimable for `groupWaitMs`. A rollout whose request is
 *   still open is never claimed, so two samples with equal texts both count.
 */

/** Bounds and timing of assembly (lab choices, docs/reward-server.md). */
export interface AssemblyLimits {
  /** Rollouts per group (OpenRLHF's n_samples_per_prompt); 0 turns assembly off. */
  groupSize: number;
  /** Milliseconds a group waits for its last rollout before it is judged as it stands. */
  groupWaitMs: number;
  /** Groups waiting at once. */
  maxWaitingGroups: number;
  /** Rollouts waiting at once (in waiting groups). */
  maxWaitingRollouts: number;
}

/**
 * Defaults (lab choices): assembly off; 120 s leaves 60 s of OpenRLHF's
 * 180 s request timeout for the judge call; 4,096 groups of up to 8 is
 * 32,768 rollouts, twice the largest request (limits.maxRollouts).
 */
export const DEFAULT_ASSEMBLY: Readonly<AssemblyLimits> = {
  groupSize: 0,
  groupWaitMs: 120_000,
  maxWaitingGroups: 4_096,
  maxWaitingRollouts: 32_768,
};

/** A request refused because assembly is at its caps. */
export class AssemblyFull extends Error {
  readonly statusCode = 503;
  constructor(
    message: string,
    /** Suggested wait in whole seconds (≥ 1): until the oldest waiting group is judged. */
    readonly retryAfterS: number,
  ) {
    super(message);
  }
}

/** One rollout offered to the assembler. */
export interface AssemblyItem<R> {
  /** Group key and label together: rollouts with equal keys form one group. */
  key: string;
  /** The response text (what a retry repeats). */
  text: string;
  rollout: R;
}

/** Judges one group: `rollouts` share a key; returns one result per rollout, in order. */
export type GroupJudge<R, T> = (rollouts: R[], timedOut: boolean) => Promise<T[]>;

interface Slot<R, T> {
  key: string;
  text: string;
  rollout: R;
  /** Open requests waiting on this rollout. */
  live: number;
  /** True once its group was judged. */
  judged: boolean;
  result: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

interface Group<R, T> {
  key: string;
  slots: Slot<R, T>[];
  opened: number;
  timer: ReturnType<typeof setTimeout>;
}

/** Counts since start, and the waiting set now. */
export interface AssemblyState extends AssemblyLimits {
  waitingGroups: number;
  waitingRollouts: number;
  /** Rollouts of dropped requests that a retry may claim now. */
  claimable: number;
  /** Groups judged with groupSize rollouts. */
  groupsFilled: number;
  /** Groups judged short because groupWaitMs passed (or the server closed). */
  groupsTimedOut: number;
  /** Rollouts that claimed the rollout of a dropped request (retries, not counted again). */
  retries: number;
  /** Requests refused at the caps. */
  refused: number;
}

/** The assembler (see the module comment). */
export class GroupAssembler<R, T> {
  private readonly waiting = new Map<string, Group<R, T>>();
  /** Rollouts of dropped requests that a retry may claim, by key and text. */
  private readonly claimable = new Map<string, Slot<R, T>[]>();
  private waitingRollouts = 0;
  private claimableCount = 0;
  private readonly counts = { groupsFilled: 0, groupsTimedOut: 0, retries: 0, refused: 0 };

  /** @throws Error naming the limit when one is not an integer in range. */
  constructor(
    readonly limits: AssemblyLimits,
    private readonly judge: GroupJudge<R, T>,
  ) {
    for (const [k, v] of Object.entries(limits))
      if (!Number.isInteger(v) || v < 0) throw new Error(`assembly.${k} must be an integer >= 0`);
    if (limits.groupSize === 1) throw new Error("assembly.groupSize must be 0 (off) or >= 2");
  }

  state(): AssemblyState {
    return {
      ...this.limits,
      waitingGroups: this.waiting.size,
      waitingRollouts: this.waitingRollouts,
      claimable: this.claimableCount,
      ...this.counts,
    };
  }

  /**
   * Admits the rollouts of one request, all or none.
   * @param dropped aborted when the request's connection closes before its
   *   reply (its rollouts become claimable by a retry).
   * @returns one result per item, in order, once each item's group is judged.
   * @throws AssemblyFull when admitting would pass a cap.
   */
  admit(items: readonly AssemblyItem<R>[], dropped: AbortSignal): Promise<T[]> {
    const taken = new Map<string, number>(); // claimable slots this request takes, by claim key
    const claims: (Slot<R, T> | null)[] = items.map((it) => {
      const ck = claimKey(it.key, it.text);
      const list = this.claimable.get(ck);
      const used = taken.get(ck) ?? 0;
      if (list === undefined || used >= list.length) return null;
      taken.set(ck, used + 1);
      return list[used];
    });
    this.checkCaps(items, claims);
    const slots = items.map((it, i) => {
      const claimed = claims[i];
      if (claimed) {
        this.unclaimable(claimed);
        this.counts.retries++;
        claimed.live++;
        return claimed;
      }
      const slot = newSlot<R, T>(it);
      this.join(slot);
      return slot;
    });
    const onDrop = () => {
      for (const s of slots) {
        s.live--;
        if (s.live === 0) {
          this.makeClaimable(s);
          if (s.judged) this.expireLater([s]);
        }
      }
    };
    if (dropped.aborted) onDrop();
    else dropped.addEventListener("abort", onDrop, { once: true });
    return Promise.all(slots.map((s) => s.result)).finally(() =>
      dropped.removeEventListener("abort", onDrop),
    );
  }

  /** Judges every waiting group as it stands (on shutdown), flagged as timed out. */
  flush(): void {
    for (const g of [...this.waiting.values()]) this.close(g, true);
  }

  private checkCaps(items: readonly AssemblyItem<R>[], claims: readonly unknown[]): void {
    const added = new Map<string, number>();
    items.forEach((it, i) => {
      if (!claims[i]) added.set(it.key, (added.get(it.key) ?? 0) + 1);
    });
    const size = this.limits.groupSize;
    let groups = this.waiting.size;
    let rollouts = this.waitingRollouts;
    for (const [key, k] of added) {
      const before = this.waiting.get(key)?.slots.length ?? 0;
      const after = (before + k) % size;
      groups += (after > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
      rollouts += after - before;
    }
    const { maxWaitingGroups, maxWaitingRollouts } = this.limits;
    if (groups <= maxWaitingGroups && rollouts <= maxWaitingRollouts) return;
    this.counts.refused++;
    let oldest = Number.POSITIVE_INFINITY;
    for (const g of this.waiting.values()) oldest = Math.min(oldest, g.opened);
    const leftMs = Number.isFinite(oldest) ? oldest + this.limits.groupWaitMs - Date.now() : 0;
    const retryAfterS = Math.min(60, Math.max(1, Math.ceil(leftMs / 1000)));
    throw new AssemblyFull(
      `server busy: ${this.waiting.size} groups with ${this.waitingRollouts} rollouts wait for their other rollouts (assembly.maxWaitingGroups ${maxWaitingGroups}, assembly.maxWaitingRollouts ${maxWaitingRollouts}); retry after ${retryAfterS} s`,
      retryAfterS,
    );
  }

  private join(slot: Slot<R, T>): void {
    let g = this.waiting.get(slot.key);
    if (!g) {
      const group: Group<R, T> = {
        key: slot.key,
        slots: [],
        opened: Date.now(),
        timer: setTimeout(() => this.close(group, true), this.limits.groupWaitMs),
      };
      g = group;
      this.waiting.set(slot.key, g);
    }
    g.slots.push(slot);
    this.waitingRollouts++;
    if (g.slots.length >= this.limits.groupSize) this.close(g, false);
  }

  private close(g: Group<R, T>, timedOut: boolean): void {
    if (this.waiting.get(g.key) !== g) return;
    clearTimeout(g.timer);
    this.waiting.delete(g.key);
    this.waitingRollouts -= g.slots.length;
    const short = timedOut && g.slots.length < this.limits.groupSize;
    if (short) this.counts.groupsTimedOut++;
    else this.counts.groupsFilled++;
    this.judge(
      g.slots.map((s) => s.rollout),
      short,
    ).then(
      (results) => {
        g.slots.forEach((s, i) => {
          s.judged = true;
          s.resolve(results[i]);
        });
        const orphans = g.slots.filter((s) => s.live === 0);
        if (orphans.length > 0) this.expireLater(orphans);
      },
      (e: unknown) => {
        for (const s of g.slots) s.reject(e);
      },
    );
  }

  /** Judged rollouts of dropped requests stay claimable for groupWaitMs, then go. */
  private expireLater(slots: Slot<R, T>[]): void {
    setTimeout(() => {
      for (const s of slots) if (s.live === 0) this.unclaimable(s);
    }, this.limits.groupWaitMs).unref();
  }

  private makeClaimable(s: Slot<R, T>): void {
    const ck = claimKey(s.key, s.text);
    const list = this.claimable.get(ck);
    if (list) list.push(s);
    else this.claimable.set(ck, [s]);
    this.claimableCount++;
  }

  private unclaimable(s: Slot<R, T>): void {
    const ck = claimKey(s.key, s.text);
    const list = this.claimable.get(ck);
    if (!list) return;
    const i = list.indexOf(s);
    if (i >= 0) {
      list.splice(i, 1);
      this.claimableCount--;
    }
    if (list.length === 0) this.claimable.delete(ck);
  }
}

function claimKey(key: string, text: string): string {
  return JSON.stringify([key, text]);
}

function newSlot<R, T>(it: AssemblyItem<R>): Slot<R, T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const result = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  result.catch(() => {}); // a slot whose requests all dropped has no one to tell
  return {
    key: it.key,
    text: it.text,
    rollout: it.rollout,
    live: 1,
    judged: false,
    result,
    resolve,
    reject,
  };
}
