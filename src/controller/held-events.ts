/**
 * The run controller's output of one unit of GPU work (an RL step, an SFT
 * step, an eval, a fork), held back while it runs and emitted at its end in
 * one batch: the events in order, then one `metrics` and one `samples` event
 * with every row and group. A step that fails on a lost device drops its
 * rows, groups and fault markers (they are made again when the step is
 * trained again).
 */
import type { ControllerEvent } from "./controller-types";

/** Events held back between `hold` and `release` (see the file comment). */
export class HeldEvents {
  private holding = false;
  private readonly held: ControllerEvent[] = [];

  /** @param post where events go out. */
  constructor(private readonly post: (ev: ControllerEvent) => void) {}

  /** Posts `ev` now, or holds it while a unit of work runs. */
  emit(ev: ControllerEvent): void {
    if (this.holding) this.held.push(ev);
    else this.post(ev);
  }

  /** Holds every event from now until `release`. */
  hold(): void {
    this.holding = true;
  }

  /** Ends a unit of work: its events in order, then one `metrics` and one `samples` event. */
  release(): void {
    this.holding = false;
    const held = this.held.splice(0);
    const rows = held.flatMap((e) => (e.type === "metrics" ? e.rows : []));
    const groups = held.flatMap((e) => (e.type === "samples" ? e.groups : []));
    for (const e of held) if (e.type !== "metrics" && e.type !== "samples") this.post(e);
    if (rows.length) this.post({ type: "metrics", rows });
    if (groups.length) this.post({ type: "samples", groups });
  }

  /** Drops the held rows, groups and fault markers (a failed step's; see the file comment). */
  dropStepOutput(): void {
    const keep = this.held.filter(
      (e) =>
        e.type !== "metrics" && e.type !== "samples" && !(e.type === "marker" && e.marker.fault),
    );
    this.held.splice(0, this.held.length, ...keep);
  }
}
