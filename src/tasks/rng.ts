/**
 * Small seeded PRNG for the task generators (lab choice: mulberry32 for the
 * stream, a splitmix32-style finalizer for deriving child seeds). Pure
 * TypeScript, no global state: the same seed always gives the same stream on
 * every platform (all arithmetic is 32-bit integer via Math.imul / >>> 0).
 */

/** Mixes a 32-bit integer (splitmix32-style finalizer). Returns an unsigned 32-bit integer. */
function mix32(x: number): number {
  let z = (x + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/**
 * Derives a child seed from a seed and any number of integer or string parts
 * (e.g. `deriveSeed(seed, "eval", 17)`), so that prompt i of a set can be
 * generated independently of the others. Returns an unsigned 32-bit integer.
 */
export function deriveSeed(seed: number, ...parts: (number | string)[]): number {
  let h = mix32(seed >>> 0);
  for (const p of parts) {
    if (typeof p === "number") {
      h = mix32(h ^ mix32(p >>> 0));
    } else {
      for (let i = 0; i < p.length; i++) h = mix32(h ^ p.charCodeAt(i));
      h = mix32(h ^ p.length);
    }
  }
  return h;
}

/** Seeded random number generator (mulberry32). */
export class Rng {
  private state: number;

  /** @param seed any number; it is reduced to an unsigned 32-bit integer. Throws on a non-finite seed. */
  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new Error(`Rng seed must be a finite number, got ${seed}`);
    this.state = Math.trunc(seed) >>> 0;
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [lo, hi] (both inclusive). Throws if hi < lo. */
  int(lo: number, hi: number): number {
    if (!(hi >= lo)) throw new Error(`Rng.int: empty range [${lo}, ${hi}]`);
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A uniformly chosen element. Throws on an empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Rng.pick: empty array");
    return items[this.int(0, items.length - 1)];
  }

  /** Fisher–Yates shuffle of a copy; the input is not modified. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
    return out;
  }

  /** k distinct elements in random order. Throws if k > items.length. */
  sample<T>(items: readonly T[], k: number): T[] {
    if (k > items.length) throw new Error(`Rng.sample: k = ${k} > ${items.length} items`);
    return this.shuffle(items).slice(0, k);
  }

  /** A child generator seeded from this one's stream (advances this one by one draw). */
  fork(): Rng {
    return new Rng(mix32(this.nextU32()));
  }
}
