/** The page's store instance and its React hook. */
import { useStore } from "zustand";
import { createLabStore, type LabState } from "./lab-store";
import { decodeExperiment } from "../ui/lib/url-state";

const fromUrl =
  typeof location !== "undefined"
    ? decodeExperiment(location.hash)
    : { experiment: undefined, error: null };

export const labStore = createLabStore({ experiment: fromUrl.experiment, urlError: fromUrl.error });

export function useLab<T>(selector: (s: LabState) => T): T {
  return useStore(labStore, selector);
}

export * from "./lab-store";
