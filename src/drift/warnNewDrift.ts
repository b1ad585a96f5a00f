import type { Logger } from '../log.js';
import type { DriftFinding } from './types.js';

/** One warning per finding that `recordDrift` saw for the first time; later sightings only count. */
export function warnNewDrift(logger: Logger, findings: readonly DriftFinding[]): void {
  for (const { stream, kind, path, example } of findings) {
    const what = kind === 'field' ? `a field the spec does not list: ${path}` : `a ${path} value the spec does not list: ${example}`;
    logger.warn({ drift: { stream, kind, path, example } }, `schema drift: ${stream} records carry ${what}`);
  }
}
