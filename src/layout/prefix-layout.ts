/**
 * The prefix layout of a shared-prefix training step (issue 29 item 2;
 * TrainGraphOptions.sharedPrefix): B = nG·G sequences of T positions in nG
 * groups of G whose first S positions are equal within each group (the
 * group's image patches and prompt), laid out as
 *   rows [0, nG·S)        prefix row g·S + t: position t < S of group g,
 *                         computed once for the G sequences of the group;
 *   rows [nG·S, rows)     suffix row nG·S + b·Rs + (t − S): position t ≥ S of
 *                         sequence b (Rs = T − S positions each);
 * rows = nG·S + B·Rs instead of B·T. S = 0 is the plain layout [B, T].
 * Causal attention makes every prefix position's activations the same in
 * the G sequences, so the forward of the prefix runs once; in the backward
 * the gradient reaching a prefix row is the sum over the group's sequences
 * (the keys and values of the prefix are read by all of their suffix
 * queries), which is the gradient of the G copies summed (PrefixGrouper,
 * "the shared prefix contributes the same gradient as the sum of the G
 * repeats"). The WGSL mirror of rowSeq is prefix_row_seq in
 * shaders/prelude.wgsl.
 */

/** Sizes of a prefix layout (see the file header). */
export interface PrefixLayout {
  /** Sequences B = nG·G. */
  B: number;
  /** Sequences per group G. */
  G: number;
  /** Groups nG. */
  nG: number;
  /** Positions per sequence T = S + Rs. */
  T: number;
  /** Shared positions per group S (0: none). */
  S: number;
  /** Own positions per sequence Rs = T − S. */
  Rs: number;
  /** Rows of the layout: nG·S + B·Rs. */
  rows: number;
}

/**
 * The layout of B sequences of T positions in groups of G sharing their first S.
 * @throws Error when G does not divide B or S is not an integer in [0, T).
 */
export function prefixLayout(B: number, G: number, T: number, S: number): PrefixLayout {
  const int = (n: number, min: number) => Number.isInteger(n) && n >= min;
  if (!int(B, 1) || !int(G, 1) || B % G !== 0 || !int(T, 1))
    throw new Error(
      `prefixLayout: B ${B}, G ${G}, T ${T} must be positive integers with G dividing B`,
    );
  if (!int(S, 0) || S >= T)
    throw new Error(`prefixLayout: S = ${S} must be an integer in [0, T = ${T})`);
  const nG = B / G;
  const Rs = T - S;
  return { B, G, nG, T, S, Rs, rows: nG * S + B * Rs };
}

/** Sequence and position of row r; a prefix row names its group's first sequence. */
export function rowSeq(l: PrefixLayout, r: number): { b: number; t: number } {
  const pre = l.nG * l.S;
  if (r < pre) return { b: Math.floor(r / l.S) * l.G, t: r % l.S };
  const q = r - pre;
  return { b: Math.floor(q / l.Rs), t: l.S + (q % l.Rs) };
}

/** Row of position t of sequence b. */
export function physRow(l: PrefixLayout, b: number, t: number): number {
  if (t < l.S) return Math.floor(b / l.G) * l.S + t;
  return l.nG * l.S + b * l.Rs + (t - l.S);
}

/**
 * The shared positions S of a batch in groups of G (setBatch of a
 * shared-prefix graph): 0 when some group's images differ, else P + c with c
 * the text columns every group holds equal in its G rows and that no loss
 * row reads: c ≤ the first differing column, c ≤ s − 1 for every masked
 * column s ≥ 1 (token s is predicted at position P + s − 1, which must be a
 * rollout's own row), c ≤ L − 1. Linear in the batch size.
 * @param images [B, pixels]; @param tokens, mask [B, L].
 */
export function sharedPositions(
  images: Float32Array,
  tokens: Int32Array,
  mask: Float32Array,
  dims: { B: number; G: number; L: number; P: number; pixels: number },
): number {
  const { B, G, L, P, pixels } = dims;
  let c = L - 1;
  for (let b = 0; b < B; b++) {
    const first = b - (b % G);
    if (first !== b) {
      for (let i = 0; i < pixels; i++)
        if (images[b * pixels + i] !== images[first * pixels + i]) return 0;
      for (let s = 0; s < c; s++)
        if (tokens[b * L + s] !== tokens[first * L + s]) {
          c = s;
          break;
        }
    }
    for (let s = 1; s <= c; s++)
      if (mask[b * L + s] !== 0) {
        c = s - 1;
        break;
      }
  }
  return P + c;
}
