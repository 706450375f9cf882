/**
 * GPU contexts watched for a lost device: the run controller and the CLIs'
 * recovering run (./recovering-run.ts) get their contexts here, so both
 * tell a lost device from an ordinary failure the same way. A loss the
 * holder caused itself (`disposing`) is not one.
 */
import type { GpuContext } from "../gpu/context";

/** How long a failed step waits for the device's `lost` promise before counting as an ordinary failure (lab choice). */
const LOSS_GRACE_MS = 200;

/** Contexts from one source, each watched for a lost device (see the file comment). */
export class DeviceWatch {
  private readonly lost = new WeakMap<GpuContext, string>();
  /** Set while the holder destroys its own device (not a loss). */
  disposing = false;

  /**
   * @param create where a new context comes from (the host's device request).
   * @param onLost called once per context whose device is lost, with the message.
   */
  constructor(
    private readonly create: () => Promise<GpuContext>,
    private readonly onLost: (ctx: GpuContext, message: string) => void = () => {},
  ) {}

  /** A new context, watched. @throws the host's error when no device can be had. */
  async acquire(): Promise<GpuContext> {
    const ctx = await this.create();
    ctx.device.lost.then((info) => {
      if (this.disposing) return;
      const message = `GPU device lost (${info.reason}${info.message ? `: ${info.message}` : ""})`;
      this.lost.set(ctx, message);
      this.onLost(ctx, message);
    });
    return ctx;
  }

  /** The loss message of `ctx`'s device, or undefined while it is not (known to be) lost. */
  lossOf(ctx: GpuContext | null): string | undefined {
    return ctx ? this.lost.get(ctx) : undefined;
  }

  /**
   * True when the device of `ctx` (the one a failed step ran on) is lost;
   * waits up to LOSS_GRACE_MS for its `lost` promise.
   */
  async isLost(ctx: GpuContext | null): Promise<boolean> {
    if (!ctx) return false;
    if (!this.lost.has(ctx))
      await Promise.race([
        ctx.device.lost,
        new Promise((resolve) => setTimeout(resolve, LOSS_GRACE_MS)),
      ]);
    return this.lost.has(ctx);
  }
}
