export { createDriftDetector, type DriftDetector } from './detectDrift.js';
export { listDrift } from './listDrift.js';
export { recordDrift } from './recordDrift.js';
export type { DriftEntry, DriftFinding, DriftKind } from './types.js';
export { warnMistyped, warnNewDrift } from './warnNewDrift.js';
