/**
 * A claim repeated over one setting, each value its own row (a size's
 * `levels`, src/cli/claims.ts CLAIM_SIZES): `grr-rcacc` over the judge's
 * per-call offset σ_b, `prm-shift` over the PRM its `prm` arm reads
 * (docs/results/horizon/PLAN.md). At the run's own value (the judge's σ_b,
 * the shipped PRM) the claim is the table's; at another, the arms that the
 * setting touches are trained again as arms of their own (their key says
 * the value) and the claim's comparisons, curves and plot read those arms.
 * The arms the setting does not touch (RLVR) are shared by every value, so
 * the rows are paired on the same seeds and the same RLVR runs.
 */
import { paired, type Comparison } from "./claim-values";
import type { ClaimArm, ClaimSpec } from "./claims";
import type { JudgeSettings } from "../rewards/judges";
import type { VariantName } from "../settings/experiment";
import { variantEntry } from "../settings/variant-table";
import { PRM_SOURCES, type PrmSource } from "../prm/file";

/** The values a size repeats claims over (absent: each claim once, as in the table). */
export interface ClaimLevels {
  /** σ_b values of the judge arms, for claims `across: "judgeSigmaB"`. */
  judgeSigmaB?: readonly number[];
  /** The PRMs of the `prm` arm, for claims `across: "prm"`. */
  prm?: readonly PrmSource[];
}

/** The default PRM (the run's own): the shipped one. */
const SHIPPED_PRM: PrmSource = "shipped";

/** One value of a claim's setting: its label, what the arms it touches get, and their key suffix. */
interface Level {
  label: string;
  /** True at the run's own value: the claim as the table has it. */
  own: boolean;
  touches: (v: VariantName) => boolean;
  arm: (v: VariantName) => ClaimArm;
}

function levelsOf(c: ClaimSpec, levels: ClaimLevels, judge: JudgeSettings): Level[] | null {
  if (c.across === "judgeSigmaB" && levels.judgeSigmaB)
    return levels.judgeSigmaB.map((sigmaB) => ({
      label: `σ_b ${sigmaB}`,
      own: sigmaB === judge.sigmaB,
      touches: (v) => variantEntry(v).judge !== "none",
      arm: (v) => ({ key: `${v} sigma_b ${sigmaB}`, variant: v, weights: {}, sigmaB }),
    }));
  if (c.across === "prm" && levels.prm)
    return levels.prm.map((prm) => ({
      label: `PRM ${prm}`,
      own: prm === SHIPPED_PRM,
      touches: (v) => variantEntry(v).prm === true,
      arm: (v) => ({ key: `${v} ${prm}`, variant: v, weights: {}, prm }),
    }));
  return null;
}

/** A claim's comparison with its arms renamed. @throws Error when it was not built by `paired`. */
function renamed(k: Comparison, key: (arm: string) => string, label: string): Comparison {
  if (!k.spec) throw new Error(`claims: comparison '${k.label}' cannot be repeated over a setting`);
  return paired({
    ...k.spec,
    a: key(k.spec.a),
    b: key(k.spec.b),
    label: `${k.spec.label} (${label})`,
  });
}

/**
 * The claims at a size's levels: each claim whose `across` setting the size
 * lists becomes one claim per value (in the size's order, `level` set),
 * every other claim as it is.
 * @param judge the run's judge (its σ_b is the default level's).
 * @throws Error when a PRM name is not in PRM_SOURCES, or a repeated claim
 *   has a comparison not built by `paired`.
 */
export function claimsAtLevels(
  claims: readonly ClaimSpec[],
  levels: ClaimLevels,
  judge: JudgeSettings,
): ClaimSpec[] {
  for (const p of levels.prm ?? [])
    if (!(p in PRM_SOURCES))
      throw new Error(`claims: unknown PRM '${p}'; known: ${Object.keys(PRM_SOURCES).join(", ")}`);
  return claims.flatMap((c) => {
    const list = levelsOf(c, levels, judge);
    if (!list) return [c];
    return list.map((lv): ClaimSpec => {
      if (lv.own) return { ...c, level: lv.label };
      const moved = c.variants.filter(lv.touches);
      const keyOf = new Map<string, string>(moved.map((v) => [v, lv.arm(v).key]));
      const key = (arm: string) => keyOf.get(arm) ?? arm;
      return {
        ...c,
        level: lv.label,
        variants: c.variants.filter((v) => !lv.touches(v)),
        arms: [...(c.arms ?? []), ...moved.map(lv.arm)],
        comparisons: (c.comparisons ?? []).map((k) => renamed(k, key, lv.label)),
        ...(c.curves ? { curves: c.curves.map((cv) => ({ ...cv, arms: cv.arms.map(key) })) } : {}),
        ...(c.plot ? { plot: { ...c.plot, variants: c.plot.variants.map(key) } } : {}),
      };
    });
  });
}
