/**
 * The one tolerance checker of the kernel tests (llm.c dev/cuda
 * validate_result): |got − ref| ≤ atol + rtol·|ref| elementwise, a
 * non-finite `got` always a mismatch. On failure it throws with the number of
 * mismatches, the largest error and the first mismatches side by side.
 */

/** How many mismatches the error message lists. */
const SHOWN = 10;

/**
 * Asserts got ≈ ref elementwise (see the file header).
 * @param name what is compared (first word of the error message).
 * @throws Error on a length mismatch or any element out of tolerance.
 */
export function expectClose(
  name: string,
  got: ArrayLike<number>,
  ref: ArrayLike<number>,
  atol = 1e-5,
  rtol = 1e-4,
): void {
  if (got.length !== ref.length)
    throw new Error(`${name}: length ${got.length}, expected ${ref.length}`);
  const shown: string[] = [];
  let count = 0;
  let maxErr = 0;
  for (let i = 0; i < ref.length; i++) {
    const err = Math.abs(got[i] - ref[i]);
    if (!(Number.isFinite(got[i]) && err <= atol + rtol * Math.abs(ref[i]))) {
      count++;
      if (shown.length < SHOWN) shown.push(`  [${i}] got ${got[i]} ref ${ref[i]}`);
    }
    if (err > maxErr) maxErr = err;
  }
  if (count)
    throw new Error(
      `${name}: ${count} of ${ref.length} out of tolerance (max |err| ${maxErr.toExponential(2)}, atol ${atol}, rtol ${rtol}); first:\n${shown.join("\n")}`,
    );
}
