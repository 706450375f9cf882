/** Small labelled form controls with a teaching tooltip (title + ⓘ). */
import { useId, type ReactNode } from "react";

export function Tip({ text }: { text: string }) {
  return (
    // A span, not a button: a tip sits inside form labels, where a button would take the label's click.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so keyboard users can read the tip
    <span className="tip" title={text} aria-label={text} role="img" tabIndex={0}>
      i
    </span>
  );
}

function LabChoice({ on }: { on?: boolean }) {
  return on ? (
    <span
      className="lab-choice"
      title="The papers do not fix this value; the lab chose it. Change it freely."
    >
      lab choice
    </span>
  ) : null;
}

interface SliderProps {
  label: ReactNode;
  /** Accessible name (defaults to the label text when it is a string). */
  name?: string;
  value: number;
  min: number;
  max: number;
  step: number;
  onChange(v: number): void;
  tip?: string;
  labChoice?: boolean;
  format?(v: number): string;
  disabled?: boolean;
}

export function Slider({
  label,
  name,
  value,
  min,
  max,
  step,
  onChange,
  tip,
  labChoice,
  format,
  disabled,
}: SliderProps) {
  const id = useId();
  return (
    <div className="field slider">
      <label htmlFor={id}>
        {label} {tip && <Tip text={tip} />} <LabChoice on={labChoice} />
      </label>
      <div className="slider-row">
        <input
          id={id}
          type="range"
          aria-label={name ?? (typeof label === "string" ? label : undefined)}
          min={min}
          max={max}
          step={step}
          value={value}
          disabled={disabled}
          onChange={(e) => onChange(Number(e.target.value))}
        />
        <output htmlFor={id}>{format ? format(value) : String(value)}</output>
      </div>
    </div>
  );
}

interface NumberProps {
  label: ReactNode;
  name?: string;
  value: number;
  min?: number;
  max?: number;
  step?: number | "any";
  integer?: boolean;
  onChange(v: number): void;
  tip?: string;
  labChoice?: boolean;
}

export function NumberInput({
  label,
  name,
  value,
  min,
  max,
  step = "any",
  integer,
  onChange,
  tip,
  labChoice,
}: NumberProps) {
  const id = useId();
  return (
    <div className="field number">
      <label htmlFor={id}>
        {label} {tip && <Tip text={tip} />} <LabChoice on={labChoice} />
      </label>
      <input
        id={id}
        type="number"
        aria-label={name ?? (typeof label === "string" ? label : undefined)}
        value={value}
        min={min}
        max={max}
        step={step}
        onChange={(e) => {
          const n = Number(e.target.value);
          if (e.target.value === "" || !Number.isFinite(n)) return;
          if (min !== undefined && n < min) return;
          if (max !== undefined && n > max) return;
          onChange(integer ? Math.round(n) : n);
        }}
      />
    </div>
  );
}

interface SelectProps<T extends string> {
  label: ReactNode;
  name?: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange(v: T): void;
  tip?: string;
  labChoice?: boolean;
}

export function Select<T extends string>({
  label,
  name,
  value,
  options,
  onChange,
  tip,
  labChoice,
}: SelectProps<T>) {
  const id = useId();
  return (
    <div className="field select">
      <label htmlFor={id}>
        {label} {tip && <Tip text={tip} />} <LabChoice on={labChoice} />
      </label>
      <select
        id={id}
        aria-label={name ?? (typeof label === "string" ? label : undefined)}
        value={value}
        onChange={(e) => onChange(e.target.value as T)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Section({
  title,
  children,
  tip,
}: {
  title: string;
  children: ReactNode;
  tip?: string;
}) {
  return (
    <section className="panel-section">
      <h3>
        {title} {tip && <Tip text={tip} />}
      </h3>
      {children}
    </section>
  );
}
