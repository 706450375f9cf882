/**
 * Minimal types for the parts of `jstat` (1.9.6, no bundled types) that the
 * lab uses: the Student-t quantile function. The package's CommonJS export is
 * the jStat object itself, so it is the default import.
 */
declare module "jstat" {
  const jStat: {
    studentt: {
      /**
       * Quantile (inverse CDF) of Student's t with `dof` degrees of freedom:
       * the t with P(T ≤ t) = p, for p in (0, 1).
       */
      inv(p: number, dof: number): number;
    };
  };
  export default jStat;
}
