/**
 * A run sink whose output can be held back for the length of a step and
 * then passed on, or dropped when the step is trained again (a lost device):
 * what the CLIs give RunTraining (./run-training.ts), so a step's rows reach
 * their files once, whatever happened to the device. Log lines and markers
 * without a fault pass at once.
 */
import type { StepOutput } from "./run-training";
import type { Marker, MetricRow, RunSink } from "../run/run-types";
import type { GroupView } from "../rl/step-types";

type Held =
  | { kind: "metrics"; rows: MetricRow[] }
  | { kind: "samples"; groups: GroupView[] }
  | { kind: "marker"; marker: Marker };

/** A holding sink in front of `target` (see the file comment). */
export class HeldSink implements RunSink, StepOutput {
  private holding = false;
  private held: Held[] = [];

  constructor(private readonly target: RunSink) {}

  metrics(rows: MetricRow[]): void {
    if (this.holding) this.held.push({ kind: "metrics", rows });
    else this.target.metrics(rows);
  }

  samples(groups: GroupView[]): void {
    if (this.holding) this.held.push({ kind: "samples", groups });
    else this.target.samples(groups);
  }

  marker(marker: Marker): void {
    if (this.holding && marker.fault) this.held.push({ kind: "marker", marker });
    else this.target.marker(marker);
  }

  log(message: string): void {
    this.target.log(message);
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    const held = this.held;
    this.held = [];
    for (const h of held) {
      if (h.kind === "metrics") this.target.metrics(h.rows);
      else if (h.kind === "samples") this.target.samples(h.groups);
      else this.target.marker(h.marker);
    }
  }

  dropStepOutput(): void {
    this.held = [];
  }
}
