/**
 * Whether this browser has opened the lab before (localStorage): a first
 * visit opens the guided view. Storage that cannot be read (private mode,
 * blocked) counts as a first visit.
 */
const VISITED_KEY = "reward-lab.visited";

/** True on a first visit (and remembers this one); never throws. */
export function firstVisit(): boolean {
  try {
    const seen = localStorage.getItem(VISITED_KEY) !== null;
    localStorage.setItem(VISITED_KEY, String(Date.now()));
    return !seen;
  } catch {
    return true;
  }
}
