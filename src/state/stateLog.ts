import { LOG_FOLDER, logPath, parseEntry, seqOfLogPath, type LogEntry } from './leaseLog.js';
import { StateError } from './errors.js';
import type { StateStore } from './store/stateStore.js';

export type AppendResult = { written: true; entry: LogEntry } | { written: false; found: LogEntry };

/** The log's I/O: finding the newest entry, and appending one create-only after a known entry. */
export class StateLog {
  constructor(private readonly objects: StateStore) {}

  /**
   * The newest entry. The listing finds the highest number; entries above it are then looked for
   * one by one, since a listing may lag behind the writes or be cut short.
   */
  async head(): Promise<LogEntry | null> {
    const listed = (await this.objects.list(LOG_FOLDER)).map((object) => seqOfLogPath(object.path)).filter((seq): seq is number => seq !== null);
    let seq = listed.length === 0 ? 0 : Math.max(...listed);
    let head: LogEntry | null = seq === 0 ? null : await this.read(seq);
    for (;;) {
      const next = await this.read(seq + 1);
      if (next === null) break;
      head = next;
      seq += 1;
    }
    if (head === null && seq > 0) {
      // Listed, yet gone, and nothing after it: a listing that lags behind the deletes of pruning. Taking
      // this for an empty log would start the state over at entry 1.
      throw new StateError(
        `The state's log in ${this.objects.label} lists entry ${seq} at ${this.objects.where(logPath(seq))}, which cannot be read; the store's listing lags behind its deletes, so try again shortly.`,
      );
    }
    return head;
  }

  async read(seq: number): Promise<LogEntry | null> {
    const text = await this.objects.readText(logPath(seq));
    if (text === null) return null;
    const entry = parseEntry(text, seq);
    if (entry === null) throw new StateError(`The state's log entry ${this.objects.where(logPath(seq))} in ${this.objects.label} is not a loyalty-sync entry; the prefix is used by something else.`);
    return entry;
  }

  /**
   * Writes `entry` as number `after.seq + 1`, create-only. When that number is taken, the entry
   * there is returned: another writer's, or this writer's own whose answer was lost (same writeId),
   * which counts as written. An earlier entry of the same holder there (one whose every try went
   * unanswered or failed after the store applied it) is this writer's too: `entry` goes after it.
   */
  async append(entry: Omit<LogEntry, 'seq'>, after: LogEntry | null): Promise<AppendResult> {
    for (let previous = after; ; ) {
      const seq = (previous?.seq ?? 0) + 1;
      const full: LogEntry = { ...entry, seq };
      const outcome = await this.objects.putCreateOnly(logPath(seq), Buffer.from(`${JSON.stringify(full, null, 1)}\n`), 'application/json');
      if (outcome === 'refused') {
        throw new StateError(`The store behind ${this.objects.label} refused a create-only write of the state's log; state.url needs a store that honours it.`);
      }
      if (outcome === 'created') {
        const newer = await this.overtaken(full);
        return newer === null ? { written: true, entry: full } : { written: false, found: newer };
      }
      const found = await this.read(seq);
      if (found === null) throw new StateError(`The store answered that ${this.objects.where(logPath(seq))} exists, then had no such object; it does not keep create-only writes consistent.`);
      if (found.writeId === full.writeId) return { written: true, entry: found };
      if (found.holder.id !== full.holder.id) return { written: false, found };
      previous = found;
    }
  }

  /**
   * The newest entry when `created` was written behind it, else null. Entries are pruned from the front,
   * so a writer held up past its lease while others wrote and pruned finds its next number free again:
   * the entry before its own is then gone (for a first entry, later ones are listed), and its create
   * proves nothing.
   */
  private async overtaken(created: LogEntry): Promise<LogEntry | null> {
    const stale =
      created.seq > 1
        ? (await this.objects.readText(logPath(created.seq - 1))) === null
        : (await this.objects.list(LOG_FOLDER)).some((object) => (seqOfLogPath(object.path) ?? 0) > created.seq);
    if (!stale) return null;
    const newest = await this.head();
    return newest === null || newest.writeId === created.writeId ? null : newest;
  }
}
