/**
 * Reads the experiment (and the picker's preset) from the URL hash at
 * start-up, keeps the hash equal to the edited experiment (non-default
 * settings + v + seed, and `preset=<name>`), and applies a hash the user
 * edits or pastes, as on load: a bad setting is ignored and named in the
 * message, the rest applied (decodeExperiment).
 */
import type { StoreApi } from "zustand/vanilla";
import type { LabState } from "../store/lab-store";
import { presetOf } from "../store/lesson";
import { heldRewardCode } from "../store/reward-code";
import { decodeExperiment, decodePreset, encodeLink } from "./lib/url-state";

/** The experiment, preset and message of a hash. */
function read(hash: string) {
  const { experiment, error } = decodeExperiment(hash);
  const named = decodePreset(hash);
  const presetName = named.preset ?? presetOf(experiment);
  return { experiment, presetName, urlError: error ?? named.error };
}

/**
 * Applies the URL hash to the store (its experiment and preset, and the
 * message when settings were ignored), then keeps the two in step.
 * @returns a function that stops the syncing.
 */
export function syncUrl(store: StoreApi<LabState>): () => void {
  const first = read(location.hash);
  // A written reward in the link is shown, and runs only after the user presses Run.
  store.setState({ ...first, rewardCodeHeld: heldRewardCode(first.experiment) });
  const write = (s: LabState) => {
    const hash = `#${encodeLink(s.experiment, s.presetName)}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  };
  // Keep a bad link visible until the user edits something.
  if (!store.getState().urlError) write(store.getState());
  const unsub = store.subscribe((s, prev) => {
    if (s.experiment !== prev.experiment || s.presetName !== prev.presetName) write(s);
  });
  // replaceState does not fire hashchange: this only sees the user's own edits.
  const onHash = () => {
    const next = read(location.hash);
    store.setState({
      urlError: next.urlError,
      presetName: next.presetName,
      rewardCodeHeld: heldRewardCode(next.experiment),
    });
    store.getState().updateExperiment(() => next.experiment);
  };
  window.addEventListener("hashchange", onHash);
  return () => {
    unsub();
    window.removeEventListener("hashchange", onHash);
  };
}
