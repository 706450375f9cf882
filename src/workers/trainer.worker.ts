/// <reference lib="webworker" />
/**
 * Trainer worker: owns the WebGPU device and the LabRun (all model math), and
 * a nested reward worker (all reward math), so the page only renders.
 * Commands and events are the typed messages of ./protocol.ts; an unknown
 * command type is answered with an error event.
 */
import { GpuContext } from "../gpu/context";
import { requestLabDevice } from "../gpu/device";
import { loadCheckpoint } from "../model/checkpoint";
import { parseMnistSubset } from "../tasks/mnist-data";
import { checkpointPath } from "../rl/checkpoints";
import { parseExperiment, type Experiment } from "../rl/experiment";
import { LabRun, type RunSink } from "../rl/runner";
import { stabilityReport } from "../rl/stability-run";
import {
  asTrainerCommand,
  type MetricRow,
  type TrainerCommand,
  type TrainerEvent,
  type TrainerPhase,
} from "./protocol";
import { createRewardWorkerScorer } from "./reward-worker-client";
import type { RewardScorer } from "../rl/reward-client";

declare const self: DedicatedWorkerGlobalScope;

function post(ev: TrainerEvent): void {
  self.postMessage(ev);
}

// Run output is held back while a step runs and sent at its end in one batch,
// so the page draws once per step (inside the render window below).
let holding = false;
const held: TrainerEvent[] = [];

function emit(ev: TrainerEvent): void {
  if (holding) held.push(ev);
  else post(ev);
}

function release(): void {
  holding = false;
  const rows = held.flatMap((e) => (e.type === "metrics" ? e.rows : []));
  const groups = held.flatMap((e) => (e.type === "samples" ? e.groups : []));
  for (const e of held) if (e.type !== "metrics" && e.type !== "samples") post(e);
  if (rows.length) post({ type: "metrics", rows });
  if (groups.length) post({ type: "samples", groups });
  held.length = 0;
}

// The latest eval row per variant (and seed): a fork's first row copies its parent's.
const lastEval = new Map<string, MetricRow>();
const evalKey = (variant: string, seed: number | undefined) => `${variant}|${seed ?? ""}`;

const sink: RunSink = {
  metrics: (rows) => {
    for (const r of rows) if (r.kind === "eval") lastEval.set(evalKey(r.variant, r.seed), r);
    emit({ type: "metrics", rows });
  },
  samples: (groups) => emit({ type: "samples", groups }),
  marker: (marker) => emit({ type: "marker", marker }),
  log: (message) => emit({ type: "log", message }),
};

/** Longest the trainer waits for the page to draw (lab choice). */
const RENDER_WINDOW_MAX_MS = 3000;
let renderId = 0;
const renderWaiters = new Map<number, () => void>();

/**
 * On a CPU adapter, pause the GPU work until the page has drawn (or
 * RENDER_WINDOW_MAX_MS passed): the page's thread then has the cores to itself.
 */
async function renderWindow(): Promise<void> {
  if (!ctx?.adapter.isFallback) return;
  const id = ++renderId;
  post({ type: "renderWindow", id });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      renderWaiters.delete(id);
      resolve();
    }, RENDER_WINDOW_MAX_MS);
    renderWaiters.set(id, () => {
      clearTimeout(timer);
      renderWaiters.delete(id);
      resolve();
    });
  });
}

/** Runs one unit of GPU work with its output held back, then lets the page draw. */
async function stepThenDraw<T>(work: () => Promise<T>): Promise<T> {
  holding = true;
  try {
    return await work();
  } finally {
    release();
    await renderWindow();
  }
}

let ctx: GpuContext | null = null;
let scorer: RewardScorer | null = null;
let run: LabRun | null = null;
let phase: TrainerPhase = "loading";
let running = false;
let loop: Promise<void> | null = null;
let assetBase = new URL("/", self.location.href).href;
let pendingCheckpoint: Float32Array | null = null;
/** True while SFT runs; cleared by pause and by every command that reshapes the run. */
let sftRunning = false;

function status(next: TrainerPhase, message?: string): void {
  phase = next;
  post({ type: "status", phase, step: run?.step ?? 0, message });
}

/** Fetches a binary asset; null when it is missing (404, or an HTML fallback page from a dev server). */
async function fetchBytes(url: string): Promise<Uint8Array | null> {
  const res = await fetch(url);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`fetching ${url} failed: HTTP ${res.status}`);
  if ((res.headers.get("content-type") ?? "").includes("text/html")) return null;
  return new Uint8Array(await res.arrayBuffer());
}

/** Builds the run for an experiment: device, data, checkpoint, variants. */
async function init(cmd: Extract<TrainerCommand, { type: "init" }>): Promise<void> {
  await stopLoop();
  // A failed init must not leave the previous experiment to be trained by a queued Start.
  run = null;
  pendingCheckpoint = null;
  lastEval.clear();
  status("loading", "starting WebGPU");
  if (cmd.assetBase) assetBase = cmd.assetBase;
  let exp: Experiment = parseExperiment(cmd.experiment);
  if (!ctx) {
    ctx = new GpuContext(await requestLabDevice(navigator.gpu));
    ctx.device.lost.then((info) => {
      running = false;
      post({
        type: "error",
        message: `GPU device lost (${info.reason}): ${info.message}. Reload the page to start again.`,
        fatal: true,
      });
      status("error");
    });
  }
  let note: string | undefined;
  if (ctx.adapter.isFallback && exp.modelSize === "default") {
    exp = parseExperiment({ ...exp, modelSize: "small" });
    note = `This adapter (${ctx.adapter.description}) runs WebGPU on the CPU, so the lab picked the small model (d = 64, 2 layers).`;
  }
  scorer ??= createRewardWorkerScorer();
  const mnist =
    exp.task.family === "digits"
      ? await fetchBytes(new URL("data/mnist-subset.bin", assetBase).href)
      : null;
  if (exp.task.family === "digits" && !mnist)
    throw new Error("the MNIST subset (data/mnist-subset.bin) is missing from the site");
  const ckptBytes = await fetchBytes(
    cmd.checkpointUrl ?? new URL(checkpointPath(exp), assetBase).href,
  );
  const ckpt = ckptBytes ? loadCheckpoint(ckptBytes) : null;
  if (ckpt?.warning) post({ type: "log", message: `cold start: ${ckpt.warning}` });
  run = new LabRun(
    ctx,
    exp,
    sink,
    scorer,
    mnist ? parseMnistSubset(mnist) : undefined,
    ckpt ? { config: ckpt.config, params: ckpt.params } : null,
  );
  pendingCheckpoint = null;
  post({
    type: "ready",
    adapter: ctx.adapter.description,
    isFallback: ctx.adapter.isFallback,
    modelSize: exp.modelSize,
    params: run.paramCount,
    note:
      [
        note,
        ckpt
          ? undefined
          : "No shipped cold-start checkpoint for this task and size: Train runs SFT from scratch first.",
      ]
        .filter(Boolean)
        .join(" ") || undefined,
  });
  if (ckpt) {
    // Say which cold start this is: the task's answer form and the model size pick the file.
    const source = cmd.checkpointUrl ?? checkpointPath(exp);
    sink.log(
      `cold start: ${source} (SFT step ${String(ckpt.meta?.step ?? "?")}, seed ${String(ckpt.meta?.seed ?? "?")})`,
    );
    status("idle", "evaluating the cold-start checkpoint");
    const r = run;
    await stepThenDraw(() => r.evalStart());
  } else pendingCheckpoint = run.initialParams;
  status("idle");
}

/**
 * SFT (phase "sft"), then the start eval. Pause, Reset and the like stop it
 * without committing: the previous cold start stays and SFT runs again later.
 */
async function sftFromScratch(fromScratch = false): Promise<void> {
  const r = requireRun();
  sftRunning = true;
  status("sft", `cold-start SFT, ${r.experiment.sftSteps} steps`);
  try {
    holding = true;
    const done = await r.sft(
      r.experiment.sftSteps,
      Math.max(10, Math.round(r.experiment.sftSteps / 10)),
      () => !sftRunning,
      {
        fromScratch,
        afterStep: async () => {
          release();
          await renderWindow();
          holding = true;
        },
      },
    );
    release();
    if (!done) return;
    pendingCheckpoint = null;
    await stepThenDraw(() => r.evalStart());
  } finally {
    sftRunning = false;
    release();
  }
}

function requireRun(): LabRun {
  if (!run) throw new Error("the trainer has no experiment yet (send init first)");
  return run;
}

/** Trains until paused or the step budget is spent; yields between steps so commands get through. */
async function trainLoop(): Promise<void> {
  const r = requireRun();
  if (pendingCheckpoint) await sftFromScratch();
  if (pendingCheckpoint) {
    // SFT was stopped before it finished.
    running = false;
    return status("paused", "SFT stopped before the end; Train runs it again");
  }
  if (running) status("rl");
  while (running && r.step < r.experiment.algorithm.steps) {
    await stepThenDraw(async () => {
      await r.stepAll();
      emit({ type: "status", phase: "rl", step: r.step });
    });
    await new Promise((res) => setTimeout(res, 0));
  }
  const done = r.step >= r.experiment.algorithm.steps;
  running = false;
  status(done ? "done" : "paused");
}

function startLoop(): void {
  running = true;
  loop = trainLoop()
    .catch(report)
    .finally(() => {
      loop = null;
    });
}

/** Stops training (and SFT) at the next step boundary and waits for it. */
async function stopLoop(): Promise<void> {
  running = false;
  sftRunning = false;
  if (loop) await loop;
}

/**
 * Judge stability (GRR §4.3.4) on the current run, for the page's panel:
 * samples fixed groups from the chosen policy on the GPU and runs the
 * judge-noise sweep here, in the worker. Training pauses at the step boundary
 * while it runs and resumes after. Always answers with a `stability` event.
 */
async function stability(cmd: Extract<TrainerCommand, { type: "stability" }>): Promise<void> {
  const answer = (error: string) => post({ type: "stability", result: null, error });
  if (!run) return answer("No run is loaded yet: wait until the trainer is ready.");
  if (pendingCheckpoint)
    return answer("This run has no cold start yet: press Train (SFT runs first), then measure.");
  const r = run;
  const wasRunning = running;
  await stopLoop();
  status(phase, "measuring judge stability");
  try {
    const result = await stabilityReport(r, {
      prompts: cmd.prompts ?? 16,
      groupSize: cmd.groupSize ?? 8,
      repeats: cmd.repeats ?? 4,
      seed: cmd.seed ?? r.experiment.seed,
      policy: cmd.policy,
    });
    post({ type: "stability", result });
  } catch (e) {
    answer(e instanceof Error ? e.message : String(e));
  } finally {
    if (wasRunning && run === r) startLoop();
    else status(phase);
  }
}

/** A failed command or step: reported, training paused, the run kept (Train tries again). */
function report(e: unknown): void {
  running = false;
  const message = e instanceof Error ? e.message : String(e);
  post({ type: "error", message, fatal: false });
  status(run ? "paused" : "error", message);
}

/**
 * Forks a variant (LabRun.fork) at a step boundary: a running loop finishes
 * its step, the fork is made (its marker and first eval row go out in one
 * batch), and training resumes. A rejected fork is reported; the run goes on.
 */
async function forkRun(cmd: Extract<TrainerCommand, { type: "fork" }>): Promise<void> {
  const wasRunning = running && loop !== null;
  await stopLoop();
  try {
    const r = requireRun();
    if (pendingCheckpoint)
      throw new Error(
        "fork: there is no cold start yet; press Train (it runs SFT first), then fork",
      );
    const multiSeed = r.experiment.seeds !== undefined;
    const key = await stepThenDraw(() =>
      r.fork(cmd.variant, cmd.weights, cmd.judge, {
        parentEval: (seed) => lastEval.get(evalKey(cmd.variant, multiSeed ? seed : undefined)),
      }),
    );
    sink.log(`step ${r.step}: forked ${cmd.variant} as ${key}; it trains from step ${r.step + 1}`);
  } catch (e) {
    post({ type: "error", message: (e as Error).message, fatal: false });
  }
  if (wasRunning) startLoop();
}

async function handle(cmd: TrainerCommand): Promise<void> {
  switch (cmd.type) {
    case "init":
      return init(cmd);
    case "start":
      requireRun();
      if (loop && running) return; // already training
      // A loop that a Pause is ending finishes its step first; then training resumes.
      if (loop) await loop;
      return startLoop();
    case "pause":
      return stopLoop();
    case "step": {
      await stopLoop();
      const r = requireRun();
      if (pendingCheckpoint) {
        sftRunning = true;
        await sftFromScratch();
        if (pendingCheckpoint) return status("paused", "SFT stopped before the end");
      }
      status("rl");
      await stepThenDraw(() => r.stepAll());
      return status(r.step >= r.experiment.algorithm.steps ? "done" : "paused");
    }
    case "reset":
      await stopLoop();
      requireRun().clearForks();
      requireRun().reset();
      return status("idle", "reset to the cold-start weights");
    case "reseed":
      await stopLoop();
      requireRun().clearForks();
      requireRun().reseed(cmd.seed);
      return status(
        "idle",
        `re-seeded with ${cmd.seed}: new prompts and sampling, same cold-start weights`,
      );
    case "runSft": {
      await stopLoop();
      requireRun().clearForks();
      await sftFromScratch(true);
      return status(
        "idle",
        pendingCheckpoint ? "SFT stopped before the end" : "SFT from scratch done",
      );
    }
    case "stability":
      return stability(cmd);
    case "fork":
      return forkRun(cmd);
    case "renderDone":
      return; // answered in onmessage
    case "setWeights":
      try {
        requireRun().setWeights(cmd.variant, cmd.weights, cmd.judge);
      } catch (e) {
        // A rejected value is reported; training goes on.
        post({ type: "error", message: (e as Error).message, fatal: false });
      }
      return;
  }
}

// Every command runs in arrival order. Pause also stops the running loop at
// once (at the next step boundary), so it never waits behind a long step.
let queue: Promise<void> = Promise.resolve();

self.onmessage = (ev: MessageEvent) => {
  let cmd: TrainerCommand;
  try {
    cmd = asTrainerCommand(ev.data);
  } catch (e) {
    post({ type: "error", message: (e as Error).message, fatal: false });
    return;
  }
  if (cmd.type === "renderDone") {
    renderWaiters.get(cmd.id)?.();
    return;
  }
  if (cmd.type === "pause") {
    running = false;
    sftRunning = false;
  }
  queue = queue.then(() => handle(cmd)).catch(report);
};

status("loading");
