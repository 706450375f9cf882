/**
 * How the credit chart tells rollout classes apart without colour (colour is
 * the variant's): a marker shape and a dash pattern per class, so a class
 * reads the same in every variant's colour and in grey. Keys are the
 * rollout classes (src/settings/credit-table.ts); a key not listed
 * here (a class added later) gets the last fallback mark. Lab choice.
 */

/** Marker shapes the chart draws (./CreditChart's dot renderer). */
export type MarkShape = "circle" | "triangle" | "square" | "diamond" | "cross" | "ring";

export interface ClassMark {
  shape: MarkShape;
  /** SVG stroke-dasharray of the class's lines; undefined = solid. */
  dash?: string;
}

const MARKS: Record<string, ClassMark> = {
  "faithful-right": { shape: "circle" },
  "flawed-right": { shape: "triangle", dash: "7 3" },
  unsupported: { shape: "square", dash: "2 3" },
  "index-bound": { shape: "diamond", dash: "9 3 2 3" },
  "faithful-wrong": { shape: "cross", dash: "4 4" },
  "no-answer": { shape: "ring", dash: "1 4" },
};

const FALLBACK: ClassMark = { shape: "ring", dash: "12 4" };

/** The mark of a rollout class key. */
export function classMark(cls: string): ClassMark {
  return MARKS[cls] ?? FALLBACK;
}

/**
 * SVG path of a marker shape centred on (x, y) with half-size r (px).
 * "circle" and "ring" are drawn as two arcs (a ring is stroked, not filled).
 */
export function markPath(shape: MarkShape, x: number, y: number, r: number): string {
  switch (shape) {
    case "triangle":
      return `M${x},${y - r}L${x + r},${y + r * 0.8}L${x - r},${y + r * 0.8}Z`;
    case "square":
      return `M${x - r * 0.85},${y - r * 0.85}h${r * 1.7}v${r * 1.7}h${-r * 1.7}Z`;
    case "diamond":
      return `M${x},${y - r * 1.1}L${x + r},${y}L${x},${y + r * 1.1}L${x - r},${y}Z`;
    case "cross":
      return `M${x - r},${y - r}L${x + r},${y + r}M${x - r},${y + r}L${x + r},${y - r}`;
    default:
      return `M${x - r},${y}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }
}

/** True for shapes drawn by their outline only (no fill). */
export function isOutline(shape: MarkShape): boolean {
  return shape === "cross" || shape === "ring";
}
