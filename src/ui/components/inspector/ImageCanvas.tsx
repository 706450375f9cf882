/** Draws a task image (H×W×C floats in [0, 1]) on a canvas, scaled up with crisp pixels. */
import { useEffect, useRef } from "react";
import { imageToRgba } from "../../lib/image";
import type { GroupView } from "../../../rl/step-types";

export function ImageCanvas({ image, scale = 6 }: { image: GroupView["image"]; scale?: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const c = ref.current;
    const ctx = c?.getContext("2d");
    if (!c || !ctx) return;
    try {
      const rgba = imageToRgba(image.data, image.height, image.width, image.channels);
      const img = new ImageData(new Uint8ClampedArray(rgba), image.width, image.height);
      c.width = image.width;
      c.height = image.height;
      ctx.putImageData(img, 0, 0);
    } catch {
      c.width = 1;
      c.height = 1;
    }
  }, [image]);
  return (
    <canvas
      ref={ref}
      className="task-image"
      data-testid="inspector-image"
      style={{ width: image.width * scale, height: image.height * scale }}
      aria-label={`Task image, ${image.width}×${image.height}, ${image.channels === 1 ? "grayscale" : "colour"}`}
      role="img"
    />
  );
}
