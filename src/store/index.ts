/**
 * The page's store instance and its React hook. It starts from the default
 * experiment; the page's start-up applies the URL's (src/ui/url-sync.ts)
 * before the first init.
 */
import { useStore } from "zustand";
import { createLabStore, type LabState } from "./lab-store";

export const labStore = createLabStore();

export function useLab<T>(selector: (s: LabState) => T): T {
  return useStore(labStore, selector);
}

export * from "./lab-store";
