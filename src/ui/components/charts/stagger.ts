/**
 * Staggered chart refresh: when new data arrives, each chart waits for its
 * turn, and only one chart redraws per turn. A turn ends when that chart has
 * committed its redraw (or after TURN_MAX_MS), so two charts' DOM updates
 * never land in the same task. Drawing every chart at once would block the
 * page's thread for the sum of them, which on a CPU WebGPU adapter (training
 * on the same cores) means seconds.
 */
import { startTransition, useEffect, useLayoutEffect, useRef, useState } from "react";

/** Pause between turns while the trainer runs on the GPU (ms). */
const STAGGER_MS = 60;
/** A turn that never reports its commit ends after this long (ms). */
const TURN_MAX_MS = 250;

type Turn = (done: () => void) => void;

const queue: Turn[] = [];
let timer: ReturnType<typeof setTimeout> | null = null;
let inTurn = false;
// In a render window (the trainer paused its GPU work) turns follow each other at once.
let fast = false;

/** Turns follow each other without a pause (each still in its own task). */
export function setFastStagger(on: boolean): void {
  fast = on;
  if (on && timer && !inTurn && queue.length) {
    clearTimeout(timer);
    timer = setTimeout(pump, 0);
  }
}

/** True when no chart is waiting for its turn or drawing. */
export function staggerIdle(): boolean {
  return queue.length === 0 && timer === null && !inTurn;
}

const idleWaiters: Array<() => void> = [];

/** Resolves once no chart is waiting for its turn or drawing (at once when none is). */
export function whenStaggerIdle(): Promise<void> {
  if (staggerIdle()) return Promise.resolve();
  return new Promise((resolve) => idleWaiters.push(resolve));
}

function wakeIdle(): void {
  if (staggerIdle()) for (const resolve of idleWaiters.splice(0)) resolve();
}

function schedule(): void {
  if (timer || inTurn || !queue.length) {
    wakeIdle();
    return;
  }
  timer = setTimeout(pump, fast ? 0 : STAGGER_MS);
}

function pump(): void {
  timer = null;
  const next = queue.shift();
  if (!next) {
    wakeIdle();
    return;
  }
  inTurn = true;
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    clearTimeout(guard);
    inTurn = false;
    schedule();
  };
  const guard = setTimeout(done, TURN_MAX_MS);
  next(done);
}

/**
 * Queues a chart's turn: `turn(done)` runs when the charts before it are
 * done, and must call `done` once its redraw is committed (or TURN_MAX_MS
 * ends it). Returns a function that takes the turn off the queue.
 */
export function enqueue(turn: Turn): () => void {
  queue.push(turn);
  if (!timer && !inTurn) timer = setTimeout(pump, 0);
  return () => {
    const i = queue.indexOf(turn);
    if (i >= 0) queue.splice(i, 1);
    wakeIdle();
  };
}

/** Returns `value`, updated to the latest one at this component's next turn. */
export function useStaggered<T>(value: T): T {
  const [shown, setShown] = useState(value);
  const latest = useRef(value);
  const finishTurn = useRef<(() => void) | null>(null);
  latest.current = value;
  useEffect(() => {
    if (Object.is(shown, value)) return;
    return enqueue((done) => {
      finishTurn.current = done;
      startTransition(() => setShown(latest.current));
    });
  }, [value, shown]);
  // The redraw is committed: the next chart may go.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per committed value on purpose
  useLayoutEffect(() => {
    const done = finishTurn.current;
    finishTurn.current = null;
    if (done) setTimeout(done, 0);
  }, [shown]);
  return shown;
}

/** False until this component's first turn: a new chart's DOM arrives in its own task. */
export function useFirstTurn(): boolean {
  const [ready, setReady] = useState(false);
  const finishTurn = useRef<(() => void) | null>(null);
  useEffect(
    () =>
      enqueue((done) => {
        finishTurn.current = done;
        startTransition(() => setReady(true));
      }),
    [],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once the first turn is committed
  useLayoutEffect(() => {
    const done = finishTurn.current;
    finishTurn.current = null;
    if (done) setTimeout(done, 0);
  }, [ready]);
  return ready;
}
