/** Keeps the URL hash equal to the edited experiment (non-default settings + v + seed). */
import type { StoreApi } from "zustand/vanilla";
import type { LabState } from "../store/lab-store";
import { encodeExperiment } from "./lib/url-state";

export function syncUrl(store: StoreApi<LabState>): () => void {
  const write = (s: LabState) => {
    const hash = `#${encodeExperiment(s.experiment)}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  };
  // Keep a bad link visible until the user edits something.
  if (!store.getState().urlError) write(store.getState());
  return store.subscribe((s, prev) => {
    if (s.experiment !== prev.experiment) write(s);
  });
}
