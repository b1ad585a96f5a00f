import { describe, expect, it } from 'vitest';
import { appendStands, LOG_FORMAT, leaseVerdict, logPath, parseEntry, safeLeaseMs, seqOfLogPath, type EntryKind, type LogEntry } from '../../src/state/leaseLog.js';
import { FANOUT, planSave } from '../../src/state/planSave.js';
import type { StateManifest } from '../../src/state/leaseLog.js';
import type { StoredSegment } from '../../src/state/dumpFormat.js';

const T0 = Date.parse('2026-11-26T06:00:00Z');

function entry(seq: number, kind: EntryKind, holder: string, leaseUntilMs: number): LogEntry {
  return { format: LOG_FORMAT, seq, kind, writeId: `w${seq}`, holder: { id: holder, host: 'h', pid: 1, command: 'once' }, leaseUntil: new Date(leaseUntilMs).toISOString(), writtenAt: new Date(T0).toISOString(), manifest: null };
}

describe('who may write the next log entry', () => {
  it('is anyone when there is no entry, the newest is a release, or its lease ran out by the store clock', () => {
    expect(leaseVerdict(null, T0, 'me')).toEqual({ kind: 'free' });
    expect(leaseVerdict(entry(3, 'release', 'other', T0 + 60_000), T0, 'me')).toEqual({ kind: 'free' });
    expect(leaseVerdict(entry(3, 'renew', 'other', T0), T0, 'me')).toEqual({ kind: 'free' });
    expect(leaseVerdict(entry(3, 'renew', 'other', T0 - 1), T0, 'me')).toEqual({ kind: 'free' });
  });

  it('is the holder alone while its lease lasts, whatever the local clock says', () => {
    const held = entry(3, 'save', 'other', T0 + 1);
    expect(leaseVerdict(held, T0, 'me')).toEqual({ kind: 'held', holder: held.holder, until: held.leaseUntil });
    expect(leaseVerdict(held, T0, 'other')).toEqual({ kind: 'mine' });
  });

  it('is nobody, without a usable store clock, when the lease only looks run out: the clock that says so may be the broken one', () => {
    const expired = entry(3, 'renew', 'other', T0 - 1);
    expect(leaseVerdict(expired, T0, 'me', false)).toEqual({ kind: 'unjudged', holder: expired.holder, until: expired.leaseUntil });
    // A released lease needs no clock; one that lasts is held either way.
    expect(leaseVerdict(entry(3, 'release', 'other', T0 - 1), T0, 'me', false)).toEqual({ kind: 'free' });
    expect(leaseVerdict(entry(3, 'renew', 'other', T0 + 1), T0, 'me', false).kind).toBe('held');
  });

  it("leaves unused at the end of a lease a sixth of it, or the store clock's uncertainty when that is more", () => {
    expect(safeLeaseMs(300_000, 1_200)).toBe(250_000);
    // A slow answer set the clock: its whole round trip is left unused too.
    expect(safeLeaseMs(30_000, 1_000 + 9_000)).toBe(30_000 - 11_000);
    expect(safeLeaseMs(30_000, 60_000)).toBe(0);
  });

  it('counts an entry only while the entries it was written after are still the ones its writer read, and none follows it', () => {
    const read = { seq: 40, writeId: 'w40' };
    const mine = { seq: 41, writeId: 'mine' };
    expect(appendStands([read], mine, new Map([[40, 'w40'], [41, 'mine'], [42, null]]))).toBe(true);
    // Finding 4: entry 40 was pruned and written again by another run held up as long; it exists, but is not the one read.
    expect(appendStands([read], mine, new Map([[40, 'stray'], [41, 'mine'], [42, null]]))).toBe(false);
    // Gone: pruned behind a writer held up past the retention.
    expect(appendStands([read], mine, new Map([[40, null], [41, 'mine'], [42, null]]))).toBe(false);
    // Followed: others wrote on after the number this writer took.
    expect(appendStands([read], mine, new Map([[40, 'w40'], [41, 'mine'], [42, 'other']]))).toBe(false);
    // A state's first entry follows nothing.
    expect(appendStands([], { seq: 1, writeId: 'first' }, new Map([[1, 'first'], [2, null]]))).toBe(true);
  });

  it('names entries so the store lists them in order, and reads back only its own', () => {
    expect(logPath(7)).toBe('state/log/000000000007.json');
    expect([logPath(10), logPath(9), logPath(100)].sort()).toEqual([logPath(9), logPath(10), logPath(100)]);
    expect(seqOfLogPath(logPath(123))).toBe(123);
    expect(seqOfLogPath('state/log/notes.txt')).toBeNull();
    const written = entry(5, 'take', 'me', T0);
    expect(parseEntry(JSON.stringify(written), 5)).toEqual(written);
    // An entry copied under another number, or a foreign object, is no lease.
    expect(parseEntry(JSON.stringify(written), 6)).toBeNull();
    expect(parseEntry('{"hello":1}', 5)).toBeNull();
    expect(parseEntry('not json', 5)).toBeNull();
  });
});

describe('what a save writes', () => {
  const dump = (bytes: number, epoch: number) => ({ path: `d${epoch}`, bytes, sha256: '', rows: 1, epoch });
  const manifest = (segments: StoredSegment[], baseBytes = 1_000_000, schemaVersion = 11): StateManifest => ({
    stateId: 's',
    epoch: segments.at(-1)?.epoch ?? 10,
    savedAt: '',
    schemaVersion,
    base: dump(baseBytes, 10),
    segments,
    mirrorBytes: 0,
  });
  const segment = (level: number, fromEpoch: number, epoch: number, bytes = 100): StoredSegment => ({ ...dump(bytes, epoch), fromEpoch, level });

  it('is a base first, and after a migration changed the schema', () => {
    expect(planSave(null, 11)).toEqual({ kind: 'base', reason: 'first' });
    expect(planSave(manifest([]), 12)).toEqual({ kind: 'base', reason: 'schema' });
  });

  it('is its own changes while fewer than FANOUT segments of a level would be kept', () => {
    expect(planSave(manifest([]), 11)).toEqual({ kind: 'segment', level: 0, fromEpoch: 10, keep: 0 });
    const six = Array.from({ length: FANOUT - 2 }, (_, i) => segment(0, 10 + i, 11 + i));
    expect(planSave(manifest(six), 11)).toEqual({ kind: 'segment', level: 0, fromEpoch: six.at(-1)!.epoch, keep: six.length });
  });

  it('merges the last FANOUT - 1 segments of a level with the new changes into one of the next level, and cascades', () => {
    const sevenL0 = Array.from({ length: FANOUT - 1 }, (_, i) => segment(0, 10 + i, 11 + i));
    expect(planSave(manifest(sevenL0), 11)).toEqual({ kind: 'segment', level: 1, fromEpoch: 10, keep: 0 });
    // Seven of level 1, then seven of level 0: the new one merges all fourteen into one of level 2.
    const sevenL1 = Array.from({ length: FANOUT - 1 }, (_, i) => segment(1, 10 + 8 * i, 18 + 8 * i));
    const last = sevenL1.at(-1)!.epoch;
    const then = Array.from({ length: FANOUT - 1 }, (_, i) => segment(0, last + i, last + 1 + i));
    expect(planSave(manifest([...sevenL1, ...then]), 11)).toEqual({ kind: 'segment', level: 2, fromEpoch: 10, keep: 0 });
    // A level-2 segment stays when lower ones merge after it.
    const kept = [segment(2, 10, 60), ...then.map((s) => ({ ...s, fromEpoch: s.fromEpoch + 100, epoch: s.epoch + 100 }))];
    expect(planSave(manifest(kept), 11)).toEqual({ kind: 'segment', level: 1, fromEpoch: kept[1].fromEpoch, keep: 1 });
  });

  it('writes a new base once the segments hold more than half the base', () => {
    expect(planSave(manifest([segment(0, 10, 11, 400_000)]), 11).kind).toBe('segment');
    expect(planSave(manifest([segment(1, 10, 18, 400_000), segment(0, 18, 19, 100_001)]), 11)).toEqual({ kind: 'base', reason: 'segments-outgrew-base' });
  });
});
