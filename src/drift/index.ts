export { countDrift } from './countDrift.js';
export { createDriftDetector, type DriftDetector } from './detectDrift.js';
export { listDrift } from './listDrift.js';
export { recordDrift } from './recordDrift.js';
export { DRIFT_KINDS, type DriftEntry, type DriftFinding, type DriftKind } from './types.js';
export { warnMistyped, warnNewDrift } from './warnNewDrift.js';
