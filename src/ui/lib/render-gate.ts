/**
 * The page's side of a render window (see the `renderWindow` event): on a CPU
 * WebGPU adapter the trainer pauses between steps; the page draws everything
 * pending, chart by chart, each in its own short task, then answers.
 */
import { setFastStagger, staggerIdle, whenStaggerIdle } from "../components/charts/stagger";

const flushers = new Set<() => Promise<void>>();

/** Registers a function that pushes pending chart data into React at once; it resolves once React has committed it. */
export function registerFlusher(f: () => Promise<void>): () => void {
  flushers.add(f);
  return () => flushers.delete(f);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const frame = () =>
  new Promise<void>((r) =>
    typeof requestAnimationFrame === "function"
      ? requestAnimationFrame(() => r())
      : setTimeout(r, 16),
  );

/**
 * Short wait after a commit for the charts' effects to queue their turns (ms,
 * lab choice): React runs them in a task after the commit.
 */
const EFFECTS_MS = 10;

/**
 * Draws what is pending and resolves when the charts are idle (or after
 * `maxMs`). Each chart still redraws in its own task. The trainer waits for
 * this on a CPU adapter, so it returns as soon as the last turn is done
 * (the stagger says so) instead of polling.
 */
export async function drawNow(maxMs = 2500): Promise<void> {
  const end = Date.now() + maxMs;
  const left = () => Math.max(0, end - Date.now());
  setFastStagger(true);
  try {
    await Promise.race([Promise.all([...flushers].map((f) => f())), sleep(maxMs)]);
    for (;;) {
      await sleep(EFFECTS_MS);
      if (staggerIdle() || left() === 0) break;
      await Promise.race([whenStaggerIdle(), sleep(left())]);
    }
    await frame(); // let the last chart paint
  } finally {
    setFastStagger(false);
  }
}
