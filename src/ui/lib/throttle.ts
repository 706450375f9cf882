/**
 * Leading + trailing throttle: calls `fn` at once if the last call was at
 * least `ms` ago, otherwise once at the end of the interval (with the latest
 * state, which `fn` reads itself). Used so charts re-render at most 4×/s.
 */
export interface Throttled {
  (): void;
  cancel(): void;
}

export function throttle(
  fn: () => void,
  ms: number,
  now: () => number = () => Date.now(),
): Throttled {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const run = () => {
    timer = null;
    last = now();
    fn();
  };
  const t = (() => {
    if (timer) return;
    const wait = ms - (now() - last);
    if (wait <= 0) run();
    else timer = setTimeout(run, wait);
  }) as Throttled;
  t.cancel = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  return t;
}
