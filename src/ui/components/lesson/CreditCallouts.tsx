/**
 * The guided view's sentences on what each variant pays for (the run's own
 * mean advantages per rollout class, src/ui/lib/credit-callouts.ts), each
 * with a link to a rollout of that class in the inspector.
 */
import { useMemo } from "react";
import { labStore, useLab } from "../../../store";
import type { MetricsData } from "../../../store/run-data";
import { computeCreditCallouts, type CreditCallout } from "../../lib/credit-callouts";
import { findClassExample } from "../../lib/callout-examples";
import { variantLabel } from "../../../settings/variant-meta";

function CreditItem({ c }: { c: CreditCallout }) {
  const variant = c.figures[0].variant;
  const groups = useLab((s) => s.samples.byVariant[variant]);
  const example = useMemo(
    () => (groups ? findClassExample(groups, c.cls, c.step) : null),
    [groups, c.cls, c.step],
  );
  return (
    <li className="callout credit" data-testid="credit-callout" data-class={c.cls}>
      <p>{c.text}</p>
      <div className="callout-links">
        <button
          type="button"
          className="small-btn"
          disabled={!example}
          title={example ? undefined : "No kept rollout of this kind yet"}
          onClick={() => example && labStore.getState().focusRollout(example)}
        >
          Show one ({variantLabel(variant)})
        </button>
      </div>
    </li>
  );
}

/** The sentences for the run's own variants (`variants`, in the run's order). */
export function CreditCallouts({ m, variants }: { m: MetricsData; variants: readonly string[] }) {
  const key = variants.join(",");
  const callouts = useMemo(() => {
    const rows: Record<string, MetricsData["byVariant"][string]["train"]> = {};
    for (const v of key.split(",")) if (m.byVariant[v]) rows[v] = m.byVariant[v].train;
    return computeCreditCallouts(rows);
  }, [m, key]);
  if (callouts.length === 0) return null;
  return (
    <ul className="callouts" data-testid="credit-callouts">
      {callouts.map((c) => (
        <CreditItem key={c.id} c={c} />
      ))}
    </ul>
  );
}
