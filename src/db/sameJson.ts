/**
 * Whether two JSON texts hold the same value. Object members may come in any order (JSON objects
 * are unordered, and a server may write them differently on every response); array order counts.
 */
export function sameJson(left: string, right: string): boolean {
  try {
    return sameValue(JSON.parse(left), JSON.parse(right));
  } catch {
    return false;
  }
}

function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    return Array.isArray(left) && Array.isArray(right) && left.length === right.length && left.every((item, i) => sameValue(item, right[i]));
  }
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  const rightRecord = right as Record<string, unknown>;
  return leftKeys.every((key) => Object.hasOwn(rightRecord, key) && sameValue((left as Record<string, unknown>)[key], rightRecord[key]));
}
