/**
 * Seeded randomness for judges, builders and studies. Every stochastic
 * function takes an `Rng` argument so a run is reproducible from its seed.
 */

/** Uniform [0, 1). */
export type Rng = () => number;

/** mulberry32: small, fast, seeded 32-bit generator (lab choice). */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draw (Box–Muller). */
export function gaussian(rng: Rng): number {
  let u = rng();
  while (u <= 1e-300) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** Fisher–Yates shuffle of a copy. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
