/**
 * Reads the experiment from the URL hash at start-up, keeps the hash equal
 * to the edited experiment (non-default settings + v + seed), and applies a
 * hash the user edits or pastes, as on load: a bad setting is ignored and
 * named in the message, the rest applied (decodeExperiment).
 */
import type { StoreApi } from "zustand/vanilla";
import type { LabState } from "../store/lab-store";
import { decodeExperiment, encodeExperiment } from "./lib/url-state";

/**
 * Applies the URL hash to the store (its experiment, and the message when
 * settings were ignored), then keeps the two in step.
 * @returns a function that stops the syncing.
 */
export function syncUrl(store: StoreApi<LabState>): () => void {
  const fromUrl = decodeExperiment(location.hash);
  store.setState({ experiment: fromUrl.experiment, urlError: fromUrl.error });
  const write = (s: LabState) => {
    const hash = `#${encodeExperiment(s.experiment)}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  };
  // Keep a bad link visible until the user edits something.
  if (!store.getState().urlError) write(store.getState());
  const unsub = store.subscribe((s, prev) => {
    if (s.experiment !== prev.experiment) write(s);
  });
  // replaceState does not fire hashchange: this only sees the user's own edits.
  const onHash = () => {
    const { experiment, error } = decodeExperiment(location.hash);
    store.setState({ urlError: error });
    store.getState().updateExperiment(() => experiment);
  };
  window.addEventListener("hashchange", onHash);
  return () => {
    unsub();
    window.removeEventListener("hashchange", onHash);
  };
}
