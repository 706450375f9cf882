/**
 * True while the element is on screen (or within 300 px of it). Charts off
 * screen skip their SVG work: drawing 20 charts on every refresh is what
 * would otherwise keep the page's thread busy while the GPU trains.
 */
import { useEffect, useState, type RefObject } from "react";

export function useInView(ref: RefObject<Element | null>): boolean {
  const [inView, setInView] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === "undefined") {
      setInView(true);
      return;
    }
    const io = new IntersectionObserver(
      (entries) => setInView(entries.some((e) => e.isIntersecting)),
      { rootMargin: "300px 0px" },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [ref]);
  return inView;
}
