/**
 * Pacing of a read-back in Node: Node/Dawn busy-polls its main thread while
 * a GPU promise is pending, taking a core from SwiftShader (docs/design.md,
 * measured up to 1.4×), so before awaiting the result of submitted work the
 * caller sleeps for ~80% of what the same kind of work took before (an EMA
 * of submit-to-result times per kind). Browsers do not poll: there it is off
 * by default. Lab choice; used by TrainGraph for its step statistics.
 */

/** True when running under Node (not in a browser or worker). */
export const IS_NODE =
  typeof process !== "undefined" &&
  typeof process.versions?.node === "string" &&
  typeof window === "undefined";

/** Sleeps before a read-back for a share of the previous durations of the same kind of work. */
export class ReadPacer<Kind extends string> {
  private last: { kind: Kind; submitted: number } | null = null;
  private ms = new Map<Kind, number>();

  /** @param enabled sleep at all (default: in Node only). */
  constructor(private readonly enabled = IS_NODE) {}

  /** Notes that work of `kind` was submitted now. */
  submitted(kind: Kind): void {
    this.last = { kind, submitted: performance.now() };
  }

  /** Forgets the measured durations (after a warm-up that paid for the pipeline builds). */
  forget(): void {
    this.ms.clear();
  }

  /**
   * Awaits `read` (the read-back of the last submitted work), first sleeping
   * for 0.8× the EMA (weight 0.3 on the newest) of earlier durations of its
   * kind, less the time already passed; then updates the EMA.
   */
  async read<T>(read: () => Promise<T>): Promise<T> {
    const last = this.last;
    const est = last ? this.ms.get(last.kind) : undefined;
    if (last && this.enabled && est !== undefined) {
      const wait = 0.8 * est - (performance.now() - last.submitted);
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const out = await read();
    if (last) {
      const took = performance.now() - last.submitted;
      this.ms.set(last.kind, est ? 0.7 * est + 0.3 * took : took);
      this.last = null;
    }
    return out;
  }
}
