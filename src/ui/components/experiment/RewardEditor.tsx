/**
 * The Your reward card's editor: CodeMirror 6 with JavaScript support over
 * the variant's `code` weight, the shipped examples one click away, and the
 * Run gate for code that came with a link (src/store/reward-code.ts). The
 * code itself never runs here: the reward worker runs it in its sandbox.
 * An edit applies like a slider (debounced, live from the next step).
 */
import { useEffect, useRef } from "react";
import { EditorView, basicSetup } from "codemirror";
import { javascript } from "@codemirror/lang-javascript";
import { labStore, useLab } from "../../../store";
import type { LabState } from "../../../store/lab-store";
import { findVariant } from "../../../settings/experiment";
import type { VariantName, WeightKey } from "../../../settings/variant-table";
import { weightPatch } from "../../../settings/weight-controls";
import { REWARD_EXAMPLES } from "../../lib/reward-examples";

/** Variant `name`'s code weight `weight` in the store ("" when the experiment lacks the variant). */
function codeOf<N extends VariantName>(s: LabState, name: N, weight: WeightKey<N>): string {
  const w = findVariant(s.experiment, name)?.weights;
  const code = w ? (w[weight] as unknown) : undefined;
  return typeof code === "string" ? code : "";
}

/** The editor of variant `name`'s code weight `weight` (the table's `kind: "code"`). */
export function RewardEditor<N extends VariantName>({
  name,
  weight,
}: {
  name: N;
  weight: WeightKey<N>;
}) {
  const text = useLab((s) => codeOf(s, name, weight));
  const held = useLab((s) => s.rewardCodeHeld);
  const host = useRef<HTMLElement>(null);
  const view = useRef<EditorView | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once; later code arrives through the effect below.
  useEffect(() => {
    if (!host.current) return;
    const v = new EditorView({
      doc: text,
      parent: host.current,
      extensions: [
        basicSetup,
        javascript(),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          // Only the user's own typing is a change: code set from outside (a link, an
          // example) is in the store already, and a link's code must not reach a running
          // trainer before Run.
          const next = u.state.doc.toString();
          if (next !== codeOf(labStore.getState(), name, weight))
            labStore.getState().setVariantWeights(name, weightPatch(name, weight, next));
        }),
      ],
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
  }, [name, weight]);
  // Code set from outside (an example, a link, a saved run) replaces the editor's text.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== text)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
  }, [text]);
  return (
    <div className="reward-editor" data-testid="reward-editor">
      <div className="reward-examples">
        Examples:{" "}
        {REWARD_EXAMPLES.map((e) => (
          <button
            key={e.key}
            type="button"
            className="small-btn"
            data-testid={`reward-example-${e.key}`}
            onClick={() => {
              // A shipped example is the lab's own code: it may run at once.
              labStore.getState().setVariantWeights(name, weightPatch(name, weight, e.code));
              labStore.getState().runRewardCode();
            }}
          >
            {e.label}
          </button>
        ))}
      </div>
      {held && (
        <p className="banner" role="alert" data-testid="reward-held">
          This reward came with the link and has not run. Read it, then press{" "}
          <button
            type="button"
            className="small-btn"
            data-testid="reward-run"
            onClick={() => labStore.getState().runRewardCode()}
          >
            Run
          </button>{" "}
          to let training call it.
        </p>
      )}
      <section ref={host} className="reward-code" aria-label={`${name} code`} />
    </div>
  );
}
