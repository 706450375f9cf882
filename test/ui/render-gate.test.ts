/**
 * The page's side of a render window (src/ui/lib/render-gate.ts) and the
 * chart stagger's idle signal (src/ui/components/charts/stagger.ts): drawNow
 * resolves only after every chart turn its flush queued (also one queued a
 * task after the commit, as React's effects are) is done, and
 * whenStaggerIdle resolves once the queue has drained, not before.
 */
import { afterEach, describe, expect, it } from "vitest";
import { drawNow, registerFlusher } from "../../src/ui/lib/render-gate";
import { enqueue, staggerIdle, whenStaggerIdle } from "../../src/ui/components/charts/stagger";

const tick = (ms = 0) => new Promise<void>((r) => setTimeout(r, ms));

describe("render window and chart stagger", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("whenStaggerIdle resolves at once when idle, and after the last turn otherwise", async () => {
    expect(staggerIdle()).toBe(true);
    await whenStaggerIdle();
    const log: string[] = [];
    const turn = (name: string) => (done: () => void) => {
      log.push(`start ${name}`);
      setTimeout(() => {
        log.push(`done ${name}`);
        done();
      }, 5);
    };
    enqueue(turn("a"));
    enqueue(turn("b"));
    expect(staggerIdle()).toBe(false);
    await whenStaggerIdle().then(() => log.push("idle"));
    expect(log).toEqual(["start a", "done a", "start b", "done b", "idle"]);
    expect(staggerIdle()).toBe(true);
  });

  it("a turn taken off the queue wakes the waiters when it was the last", async () => {
    let ran = false;
    // Keep the queue busy with a turn that is ended by hand.
    let finish: () => void = () => {};
    enqueue((done) => {
      finish = done;
    });
    const cancel = enqueue(() => {
      ran = true;
    });
    await tick();
    const idle = whenStaggerIdle();
    cancel();
    finish();
    await idle;
    expect(ran).toBe(false);
    expect(staggerIdle()).toBe(true);
  });

  it("drawNow waits for the turns its flush queued a task after the commit", async () => {
    const log: string[] = [];
    cleanups.push(
      registerFlusher(async () => {
        log.push("commit");
        // As React's effects: the chart queues its turn in a task after the commit.
        setTimeout(
          () =>
            enqueue((done) => {
              log.push("chart drawn");
              done();
            }),
          0,
        );
      }),
    );
    await drawNow(2000);
    log.push("window closed");
    expect(log).toEqual(["commit", "chart drawn", "window closed"]);
    expect(staggerIdle()).toBe(true);
  });
});
