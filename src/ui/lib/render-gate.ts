/**
 * The page's side of a render window (see the `renderWindow` event): on a CPU
 * WebGPU adapter the trainer pauses between steps; the page draws everything
 * pending, chart by chart, each in its own short task, then answers.
 */
import { setFastStagger, staggerIdle } from "../components/charts/stagger";

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
 * Draws what is pending and resolves when the charts are idle (or after
 * `maxMs`). Each chart still redraws in its own task.
 */
export async function drawNow(maxMs = 2500): Promise<void> {
  const end = Date.now() + maxMs;
  setFastStagger(true);
  try {
    await Promise.race([Promise.all([...flushers].map((f) => f())), sleep(maxMs)]);
    let quiet = 0;
    while (Date.now() < end && quiet < 2) {
      await sleep(30);
      quiet = staggerIdle() ? quiet + 1 : 0;
    }
    await frame(); // let the last chart paint
  } finally {
    setFastStagger(false);
  }
}
