/**
 * The ArrayBuffer behind `view` when the view spans all of it, so it can move to another thread
 * with postMessage instead of being copied; null when the view shares its buffer with other data.
 */
export function wholeBuffer(view: ArrayBufferView): ArrayBuffer | null {
  const { buffer } = view;
  return buffer instanceof ArrayBuffer && view.byteOffset === 0 && view.byteLength === buffer.byteLength ? buffer : null;
}
