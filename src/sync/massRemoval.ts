/**
 * Whether marking `removing` of the `present` rows of a table removed needs an operator's confirmation,
 * and why, as the middle of a sentence ("would mark 600 of 600 stored addresses removed …"); null when it
 * does not. One bad answer (an empty list from a misconfigured gateway, a list cut short) must not rewrite
 * the mirror wholesale: an empty list with rows stored, or a share above `maxShare`, is not believed
 * without `--accept-removals`.
 */
export function massRemovalProblem(removing: number, present: number, maxShare: number, rows: string): string | null {
  if (removing === 0 || present === 0) return null;
  const share = removing / present;
  const what = `would mark ${removing} of ${present} ${rows} removed (${percent(share)})`;
  if (removing === present) return `${what}, as if the API had none`;
  if (share > maxShare) return `${what}, more than sync.maxRemovedShare (${maxShare}) allows`;
  return null;
}

/** Removals a run may make without asking, and whether its operator confirmed more. */
export interface RemovalRule {
  /** `sync.maxRemovedShare`. */
  maxShare: number;
  /** `--accept-removals`: the operator confirmed that a mass removal is real. */
  accepted: boolean;
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

/**
 * A walk that would mark too much removed. Its plan is dropped as the stream fails: resumed in a later
 * run, a walk of a list that changed in between would start at a page whose earlier rows it never saw
 * again, so the next run walks the whole list afresh.
 */
export class MassRemovalRefusedError extends Error {
  override name = 'MassRemovalRefusedError';
}

