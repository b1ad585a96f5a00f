import { describeHolder, leaseVerdict, type LogEntry } from './leaseLog.js';

/** The state in the bucket as `status` shows it: where it is, its last save and size, and who holds its lease. */
export interface StateStatus {
  url: string;
  /** When the newest save was made (ISO 8601); null before the first. */
  lastSave: string | null;
  /** The epoch of that save; null before the first. */
  epoch: number | null;
  /** What a restore fetches: the base and its segments, compressed. */
  bytes: number;
  /** How many dumps that is (the base and its segments). */
  dumps: number;
  /** The saving mirror file's size at that save; null before the first. */
  mirrorBytes: number | null;
  lease: StateLease;
}

export interface StateLease {
  /** The run holding it, or that held it last when it is free (`once on host-a (pid 7)`); null when none ever did. */
  holder: string | null;
  /** When it ends unless renewed, or ended (ISO 8601); null when none ever held it. */
  until: string | null;
  /** Whether a run may take it now: released, or run out. */
  free: boolean;
  /** Whether its last holder gave it back (a run that ended), rather than let it run out (a run killed or cut off). */
  released: boolean;
}

/** The status of the state whose newest log entry is `newest` (null: nothing was ever written there), at `now`. */
export function stateStatus(url: string, newest: LogEntry | null, now: Date): StateStatus {
  const manifest = newest?.manifest ?? null;
  const dumps = manifest === null ? [] : [manifest.base, ...manifest.segments];
  // No run of this process holds it: status only reads.
  const verdict = leaseVerdict(newest, now.getTime(), '');
  return {
    url,
    lastSave: manifest?.savedAt ?? null,
    epoch: manifest?.epoch ?? null,
    bytes: dumps.reduce((sum, dump) => sum + dump.bytes, 0),
    dumps: dumps.length,
    mirrorBytes: manifest?.mirrorBytes ?? null,
    lease: {
      holder: newest === null ? null : describeHolder(newest.holder),
      until: newest?.leaseUntil ?? null,
      free: verdict.kind !== 'held',
      released: newest?.kind === 'release',
    },
  };
}

/** The `State` section of `status`. */
export function renderStateStatus(status: StateStatus): string {
  const saved =
    status.lastSave === null
      ? 'not saved yet'
      : `last save ${status.lastSave} (epoch ${status.epoch}): ${status.bytes} bytes in ${status.dumps} dumps, restoring a mirror of ${status.mirrorBytes} bytes`;
  return `State\n${status.url}\n${saved}\nlease: ${leaseText(status.lease)}`;
}

function leaseText(lease: StateLease): string {
  if (lease.holder === null) return 'free';
  if (!lease.free) return `held by ${lease.holder} until ${lease.until}`;
  return lease.released ? `free (released by ${lease.holder} at ${lease.until})` : `free (the lease of ${lease.holder} ran out at ${lease.until})`;
}
