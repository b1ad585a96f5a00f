import { describe, expect, it } from 'vitest';
import { FILE_RETENTION, LOG_RETENTION, parseInterval, retentionConfiguration, tableRetention } from '../../../src/export/delta/retention.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const configured = { retainDays: 7, logRetainDays: 30 };

describe('Delta retention properties', () => {
  it('reads Spark\'s interval syntax as DeltaConfigs takes it, and nothing else', () => {
    expect(parseInterval('interval 7 days')).toBe(7 * DAY_MS);
    expect(parseInterval('INTERVAL 1 WEEK')).toBe(7 * DAY_MS);
    expect(parseInterval('2 weeks')).toBe(14 * DAY_MS);
    expect(parseInterval('interval 1 day 12 hours')).toBe(36 * HOUR_MS);
    expect(parseInterval('interval 90 minutes')).toBe(90 * 60_000);
    expect(parseInterval('interval 0 days')).toBe(0);
    for (const text of ['interval 1 month', 'interval 1 year', 'interval -1 days', 'seven days', 'interval', '', 'interval 7']) expect(parseInterval(text), text).toBeNull();
  });

  it('a new table carries the configured windows in the form every engine parses', () => {
    expect(retentionConfiguration({ 'delta.checkpointInterval': '10' }, configured)).toEqual({
      'delta.checkpointInterval': '10',
      [FILE_RETENTION]: 'interval 7 days',
      [LOG_RETENTION]: 'interval 30 days',
      'loyalty_sync.deletedFileRetentionDuration': 'interval 7 days',
      'loyalty_sync.logRetentionDuration': 'interval 30 days',
    });
  });

  it('a table loyalty-sync wrote follows a changed config, and needs no change when it already says so', () => {
    const written = retentionConfiguration({}, configured)!;
    expect(retentionConfiguration(written, configured)).toBeNull();
    const next = retentionConfiguration(written, { retainDays: 14, logRetainDays: 30 });
    expect(next).toMatchObject({ [FILE_RETENTION]: 'interval 14 days', [LOG_RETENTION]: 'interval 30 days' });
    expect(tableRetention(next!, { retainDays: 14, logRetainDays: 30 }, 'here')).toEqual({ fileMs: 14 * DAY_MS, logMs: 30 * DAY_MS, unreadable: [] });
  });

  it('a window another engine set stays in the table and wins over the config; the other follows the config', () => {
    const altered = { ...retentionConfiguration({}, configured)!, [FILE_RETENTION]: 'interval 2 weeks' };
    const next = retentionConfiguration(altered, { retainDays: 0, logRetainDays: 60 });
    expect(next).toMatchObject({ [FILE_RETENTION]: 'interval 2 weeks', [LOG_RETENTION]: 'interval 60 days' });
    expect(tableRetention(next!, { retainDays: 0, logRetainDays: 60 }, 'here')).toEqual({ fileMs: 14 * DAY_MS, logMs: 60 * DAY_MS, unreadable: [] });
    // Set by another engine on a table written before loyalty-sync kept its note: still the table's.
    expect(tableRetention({ [LOG_RETENTION]: 'interval 3 days' }, configured, 'here').logMs).toBe(3 * DAY_MS);
  });

  it('a window another engine set that cannot be read deletes nothing, with one sentence naming the table, the property and the value', () => {
    const retention = tableRetention({ [FILE_RETENTION]: 'interval 1 month' }, configured, '/exports/delta/orders');
    expect(retention.fileMs).toBe(Number.POSITIVE_INFINITY);
    expect(retention.logMs).toBe(30 * DAY_MS);
    expect(retention.unreadable).toEqual([
      'The Delta table at /exports/delta/orders has delta.deletedFileRetentionDuration "interval 1 month"; expected an interval such as "interval 7 days" (weeks, days, hours, minutes, seconds), so nothing it governs is deleted until it is fixed.',
    ]);
  });
});
