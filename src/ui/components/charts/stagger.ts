/**
 * Staggered chart refresh: when new data arrives, each chart waits for its
 * turn, and only one chart redraws per turn (every STAGGER_MS). Drawing every
 * chart in the same frame would block the page's thread for the sum of them,
 * which on a CPU WebGPU adapter (training on the same cores) means seconds.
 */
import { startTransition, useEffect, useRef, useState } from "react";

export const STAGGER_MS = 60;

const queue: Array<() => void> = [];
let timer: ReturnType<typeof setTimeout> | null = null;

function pump(): void {
  timer = null;
  const next = queue.shift();
  if (next) next();
  if (queue.length) timer = setTimeout(pump, STAGGER_MS);
}

function enqueue(turn: () => void): () => void {
  queue.push(turn);
  if (!timer) timer = setTimeout(pump, queue.length === 1 ? 0 : STAGGER_MS);
  return () => {
    const i = queue.indexOf(turn);
    if (i >= 0) queue.splice(i, 1);
  };
}

/** Returns `value`, updated to the latest one at this component's next turn. */
export function useStaggered<T>(value: T): T {
  const [shown, setShown] = useState(value);
  const latest = useRef(value);
  latest.current = value;
  useEffect(() => {
    if (Object.is(shown, value)) return;
    return enqueue(() => startTransition(() => setShown(latest.current)));
  }, [value, shown]);
  return shown;
}
