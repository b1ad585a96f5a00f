export { runVerify } from './runVerify.js';
export { lastVerify, type LastVerify } from './verifyRuns.js';
export { missingBound } from './missingBound.js';
export type { StreamVerifyResult, VerifyMode, VerifyOptions, VerifyReport } from './types.js';
