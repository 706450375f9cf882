/** Starts a browser download of binary `bytes` (UI only; no-op outside a DOM). */
export function downloadBytes(filename: string, bytes: Uint8Array, mime: string): void {
  if (typeof document === "undefined") return;
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
