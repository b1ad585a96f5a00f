/**
 * JSON text of a value, at any nesting depth. JSON.parse reads any depth, but V8's JSON.stringify recurses
 * and throws "Maximum call stack size exceeded" a few thousand levels down (about 5,000 on Node 20): one
 * such record from the API would fail every page that holds it. The native call stays the fast path; only
 * a value it cannot write is written again by a loop with a stack of its own, to the same text.
 * A value JSON cannot hold at the top (undefined) gives `null`, as it would inside an array.
 */
export function toJsonText(value: unknown): string {
  try {
    return (JSON.stringify(value) as string | undefined) ?? 'null';
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyWithoutRecursion(value);
  }
}

/** An array or object being written: its members so far, and where to go on. */
type Frame = { array: readonly unknown[]; index: number } | { object: Record<string, unknown>; keys: string[]; index: number; written: boolean };

/** JSON.stringify's output for values JSON.parse makes (no toJSON, no cycles), without recursion. */
function stringifyWithoutRecursion(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const write = (value: unknown): void => {
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ array: value, index: 0 });
    } else if (typeof value === 'object' && value !== null) {
      out.push('{');
      stack.push({ object: value as Record<string, unknown>, keys: Object.keys(value), index: 0, written: false });
    } else {
      out.push((JSON.stringify(value) as string | undefined) ?? 'null');
    }
  };
  write(root);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if ('array' in frame) {
      if (frame.index === frame.array.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (frame.index > 0) out.push(',');
      write(frame.array[frame.index++]);
      continue;
    }
    // As JSON.stringify does, members JSON cannot hold (undefined, functions) are left out of objects.
    while (frame.index < frame.keys.length && !representable(frame.object[frame.keys[frame.index]])) frame.index++;
    if (frame.index === frame.keys.length) {
      out.push('}');
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.index++];
    if (frame.written) out.push(',');
    frame.written = true;
    out.push(JSON.stringify(key), ':');
    write(frame.object[key]);
  }
  return out.join('');
}

function representable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}
