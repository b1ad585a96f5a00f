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

/**
 * Compared with a stack of its own rather than by recursion: JSON.parse reads any depth, and a record
 * nested thousands of levels deep must not overflow the call stack here.
 */
function sameValue(leftRoot: unknown, rightRoot: unknown): boolean {
  const lefts: unknown[] = [leftRoot];
  const rights: unknown[] = [rightRoot];
  while (lefts.length > 0) {
    const left = lefts.pop();
    const right = rights.pop();
    if (left === right) continue;
    if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
    if (Array.isArray(left) || Array.isArray(right)) {
      if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
      // A loop, not push(...left): spreading a long array would exceed the argument limit.
      for (let i = 0; i < left.length; i++) {
        lefts.push(left[i]);
        rights.push(right[i]);
      }
      continue;
    }
    const leftKeys = Object.keys(left);
    if (leftKeys.length !== Object.keys(right).length) return false;
    const leftRecord = left as Record<string, unknown>;
    const rightRecord = right as Record<string, unknown>;
    for (const key of leftKeys) {
      if (!Object.hasOwn(rightRecord, key)) return false;
      lefts.push(leftRecord[key]);
      rights.push(rightRecord[key]);
    }
  }
  return true;
}
