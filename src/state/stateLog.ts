import { appendStands, LOG_FOLDER, logPath, parseEntry, seqOfLogPath, type EntryIdentity, type LogEntry } from './leaseLog.js';
import { StateError } from './errors.js';
import type { StateStore } from './store/stateStore.js';

export type AppendResult = { written: true; entry: LogEntry } | { written: false; found: LogEntry | null };

/** A state whose `state.json` exists yet shows no log entry: the listing lags, or its creator is writing entry 1 right now. */
export class LogNotFoundError extends StateError {
  override readonly name = 'LogNotFoundError';
}

/** The log's I/O: finding the newest entry, and appending one create-only after a known entry. */
export class StateLog {
  constructor(private readonly objects: StateStore) {}

  /**
   * The newest entry. The listing finds the highest number; entries above it are then looked for
   * one by one, since a listing may lag behind the writes or be cut short. An empty listing is never
   * taken for an empty log of a state that exists (`stateExists`): the entries are then looked for by
   * number, from `from` (the entry a local mirror last saw) or entry 1.
   */
  async head(stateExists: boolean, from = 0): Promise<LogEntry | null> {
    const listed = (await this.objects.list(LOG_FOLDER)).map((object) => seqOfLogPath(object.path)).filter((seq): seq is number => seq !== null);
    let seq = listed.length === 0 ? Math.max(0, from - 1) : Math.max(...listed);
    let head: LogEntry | null = seq === 0 ? null : await this.read(seq);
    for (;;) {
      const next = await this.read(seq + 1);
      if (next === null) break;
      head = next;
      seq += 1;
    }
    if (head === null && listed.length > 0) {
      // Listed, yet gone, and nothing after it: a listing that lags behind the deletes of pruning. Taking
      // this for an empty log would start the state over at entry 1.
      throw new StateError(
        `The state's log in ${this.objects.label} lists entry ${seq} at ${this.objects.where(logPath(seq))}, which cannot be read; the store's listing lags behind its deletes, so try again shortly.`,
      );
    }
    if (head === null && stateExists) {
      throw new LogNotFoundError(
        `The state at ${this.objects.where('state/state.json')} in ${this.objects.label} exists, but no entry of its log is listed under ${this.objects.where(LOG_FOLDER)} nor found by number; the store's listing lags behind its writes (or the state is being created right now), so try again shortly.`,
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
   * Writes `entry` as number `after.seq + 1`, create-only, naming `after` as the entry it follows. When
   * that number is taken, the entry there is returned: another writer's, or this writer's own whose
   * answer was lost (same writeId), which counts as written. An earlier entry of the same holder there
   * (one whose every try went unanswered or failed after the store applied it) is this writer's too:
   * `entry` goes after it. A created entry counts only while the entries it was written after are still
   * the ones this writer read, and none follows it (appendStands).
   */
  async append(entry: Omit<LogEntry, 'seq' | 'previous'>, after: LogEntry | null): Promise<AppendResult> {
    const chain: EntryIdentity[] = after === null ? [] : [after];
    for (let previous = after; ; ) {
      const seq = (previous?.seq ?? 0) + 1;
      const full: LogEntry = { ...entry, seq, previous: previous?.writeId ?? null };
      const outcome = await this.objects.putCreateOnly(logPath(seq), Buffer.from(`${JSON.stringify(full, null, 1)}\n`), 'application/json');
      if (outcome === 'refused') {
        throw new StateError(`The store behind ${this.objects.label} refused a create-only write of the state's log; state.url needs a store that honours it.`);
      }
      if (outcome === 'exists') {
        const found = await this.read(seq);
        // There, then pruned: the log moved on past it while this writer was held up.
        if (found === null) return { written: false, found: await this.newestOther(full) };
        if (found.writeId !== full.writeId) {
          if (found.holder.id !== full.holder.id) return { written: false, found };
          previous = found;
          chain.push(found);
          continue;
        }
      }
      return (await this.stands(chain, full)) ? { written: true, entry: full } : { written: false, found: await this.newestOther(full) };
    }
  }

  /** Reads back what `appendStands` judges: the entries written after, and the number after the new one. */
  private async stands(chain: EntryIdentity[], written: LogEntry): Promise<boolean> {
    const now = new Map<number, string | null>([[written.seq, written.writeId]]);
    for (const entry of chain) now.set(entry.seq, (await this.read(entry.seq))?.writeId ?? null);
    now.set(written.seq + 1, (await this.read(written.seq + 1))?.writeId ?? null);
    return appendStands(chain, written, now);
  }

  /** The newest entry, for saying who overtook `mine`; null when it cannot be told. */
  private async newestOther(mine: LogEntry): Promise<LogEntry | null> {
    const newest = await this.head(true, mine.seq).catch(() => null);
    return newest === null || newest.writeId === mine.writeId ? null : newest;
  }
}
