/** The API simulator: a seeded, faithful stand-in for the Admin API v2 on loopback. */
export { startSimulator } from './server.js';
export { SIZE_PRESETS } from './sizes.js';
export { PROFILE_NAMES, PROFILES } from './profiles.js';
export type { Profile, ProgramFeatures } from './profiles.js';
export { SIMULATED_EPOCH, currentHour } from './time.js';
export type {
  AgedPick,
  BackdatedTransaction,
  BalanceMove,
  DataSizes,
  FaultSpec,
  LedgerEntry,
  LedgerKind,
  OldRecordChangeRequest,
  OldRecordChanges,
  PageOrder,
  ProfileName,
  RateLimit,
  ServedDrift,
  SimulatorHandle,
  SimulatorOptions,
  SimulatorStats,
  SizePreset,
  StreamName,
} from './types.js';
