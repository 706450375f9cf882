/**
 * The bound on concurrent scoring: at most `maxConcurrent` requests are
 * scored at once, at most `maxQueued` more wait (FIFO), and a request past
 * that is refused at once with a suggested wait (HTTP 503 + Retry-After).
 */

/** A request refused because the queue is full. */
export class QueueFull extends Error {
  readonly statusCode = 503;
  constructor(
    message: string,
    /** Suggested wait before retrying, in whole seconds (≥ 1). */
    readonly retryAfterS: number,
  ) {
    super(message);
  }
}

/** Counts of the queue at one moment. */
export interface QueueState {
  active: number;
  queued: number;
  maxConcurrent: number;
  maxQueued: number;
  /** Requests refused because the queue was full, since start. */
  rejected: number;
}

/** A FIFO queue in front of the scorer (see the module comment). */
export class RequestQueue {
  private active = 0;
  private rejected = 0;
  private readonly waiting: Array<() => void> = [];
  /** Mean service time of recent requests, in milliseconds (exponential average, weight 0.2). */
  private meanMs = 0;

  /** @throws Error naming the field when a bound is not an integer (maxConcurrent ≥ 1, maxQueued ≥ 0). */
  constructor(
    readonly maxConcurrent: number,
    readonly maxQueued: number,
  ) {
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1)
      throw new Error(`limits.maxConcurrent must be an integer >= 1 (got ${maxConcurrent})`);
    if (!Number.isInteger(maxQueued) || maxQueued < 0)
      throw new Error(`limits.maxQueued must be an integer >= 0 (got ${maxQueued})`);
  }

  /** The queue's counts now. */
  state(): QueueState {
    return {
      active: this.active,
      queued: this.waiting.length,
      maxConcurrent: this.maxConcurrent,
      maxQueued: this.maxQueued,
      rejected: this.rejected,
    };
  }

  /**
   * Runs `task` when a slot is free (waiting in line for one).
   * @throws QueueFull at once when `maxConcurrent` run and `maxQueued` wait.
   */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.maxConcurrent) {
      if (this.waiting.length >= this.maxQueued) {
        this.rejected++;
        // Time until this request would have started: the line ahead of it, served maxConcurrent at a time.
        const waitMs =
          ((this.waiting.length + 1) * Math.max(this.meanMs, 100)) / this.maxConcurrent;
        const retryAfterS = Math.min(60, Math.max(1, Math.ceil(waitMs / 1000)));
        throw new QueueFull(
          `server busy: ${this.active} requests scoring and ${this.waiting.length} waiting (limits.maxConcurrent ${this.maxConcurrent}, limits.maxQueued ${this.maxQueued}); retry after ${retryAfterS} s`,
          retryAfterS,
        );
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.active++;
    const start = performance.now();
    try {
      return await task();
    } finally {
      const ms = performance.now() - start;
      this.meanMs = this.meanMs === 0 ? ms : 0.8 * this.meanMs + 0.2 * ms;
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes to the next in line
      else this.active--;
    }
  }
}
