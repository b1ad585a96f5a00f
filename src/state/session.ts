import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { openDatabase, type Db } from '../db/open.js';
import type { Logger } from '../log.js';
import { changedSince, createStateTables, installChangeTracking, readLocalMark, writeLocalMark } from './changeTracking.js';
import { DumpMissingError, LeaseHeldError, LeaseLostError, StateError } from './errors.js';
import { describeHolder, leaseVerdict, LOG_FORMAT, safeLeaseMs, type EntryKind, type LeaseHolder, type LogEntry, type StateManifest } from './leaseLog.js';
import { restoreMirror, type RestoreReport } from './restoreMirror.js';
import { MirrorFile } from './mirrorFile.js';
import { mirrorHoldsState, readCopyFolder } from './readCopy.js';
import { retentionMs, sweepState, tempFileAgeMs } from './retention.js';
import { prepareSave } from './saveState.js';
import { setAsideMirror } from './setAsideMirror.js';
import { bindingRefusal, bindState, boundProgram, createStateRecord, readStateRecord, type ProgramIdentity, type StateRecord } from './stateRecord.js';
import { LogNotFoundError, StateLog } from './stateLog.js';
import { openStateStore } from './store/openStateStore.js';
import type { StateClock, StateStore } from './store/stateStore.js';

/** Restores a run without the lease tries, each from the newest state, when a save supersedes the one it read. */
const READ_RESTORE_TRIES = 3;

/** How long a run looks for the first entry of a state whose record exists (its creator writes it right after). */
const FIRST_ENTRY_WAIT_MS = 10_000;

/** How often a long run (`run`) removes what retention no longer keeps, at most; `once` does at each end. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** How often a waiting command looks at the lease again. */
const WAIT_POLL_MS = 2000;

/** What a command asks of the state: `skip` (once) leaves at once when the lease is held, `wait` waits a bounded time, `read` takes no lease (status, queue list). */
export type LeaseMode = 'skip' | 'wait' | 'read';

export interface StateSessionOptions {
  config: Readonly<Config>;
  logger: Logger;
  command: string;
  mode: LeaseMode;
  signal?: AbortSignal;
  /**
   * Asks the API which program it serves (whoami), for the state's binding; null when it cannot say
   * (no key, or no answer). Asked before the store is, by the commands that talk to the API and take
   * the lease; the others leave it out, and bind nothing.
   */
  identify?: () => Promise<ProgramIdentity | null>;
}

/** What the metrics hear of the state: restores, saves, and runs that skipped. */
export interface StateFacts {
  restored(report: RestoreReport): void;
  saved(save: { bytes: number; seconds: number; kind: 'base' | 'segment' }): void;
  leaseSkipped(): void;
}

export type BeginResult = { session: StateSession } | { skipped: LeaseHeldError; newest: LogEntry | null };

export interface SaveReport {
  kind: 'base' | 'segment' | 'none';
  bytes: number;
  seconds: number;
}

/**
 * Opens the state at `state.url` for one command: probes that the store enforces create-only
 * writes, takes the lease (unless `read`), restores the mirror when it is missing or behind the
 * bucket's, and installs the change tracking that saves build on.
 */
export async function beginStateSession(options: StateSessionOptions, facts?: StateFacts): Promise<BeginResult> {
  const { config, logger } = options;
  const api = options.mode === 'read' || options.identify === undefined ? null : await options.identify();
  let record: StateRecord | null = null;
  const store = await openStateStore(config, logger, async (opened) => {
    // The one read before the probe's writes: a state of another program is refused having written nothing.
    const found = await readStateRecord(opened);
    // A record that names no program may have been bound since, by binding.json.
    record = found === null ? null : { ...found, program: await boundProgram(opened, found) };
    const refusal = record === null ? null : bindingRefusal(record, api, opened.url);
    if (refusal !== null) throw new StateError(refusal);
  });
  const session = new StateSession(options, store, store, store.clock, record, api);
  const held = await session.acquire();
  if (held !== null) {
    facts?.leaseSkipped();
    return { skipped: held, newest: session.newest };
  }
  try {
    const restored = await session.prepareMirror();
    if (restored !== null) facts?.restored(restored);
  } catch (error) {
    await session.release().catch(() => undefined);
    throw error;
  }
  session.facts = facts;
  return { session };
}

export class StateSession {
  facts: StateFacts | undefined;
  private readonly log: StateLog;
  private readonly holder: LeaseHolder;
  private head: LogEntry | null = null;
  private lost: LeaseLostError | null = null;
  private readonly lostController = new AbortController();
  /** Until when (performance.now) this run may act on its lease without renewing it first. */
  private validUntil = 0;
  private writer: Db | null = null;
  /** The file the writer writes: a save whose path holds another file, or none, fails. */
  private mirror: MirrorFile | null = null;
  /** A command without the lease reads a restored copy here, never the mirror a live process may use. */
  private readCopy: { path: string; remove: () => void } | null = null;
  private lastSweep = performance.now();
  private renewTimer: NodeJS.Timeout | null = null;
  /** Saves, one at a time. */
  private saves: Promise<unknown> = Promise.resolve();
  /** Log entries, one at a time: a renewal goes on while a long save uploads, and waits only for its entry. */
  private appends: Promise<unknown> = Promise.resolve();
  private ended = false;

  constructor(
    private readonly options: StateSessionOptions,
    readonly place: Pick<StateStore, 'url'>,
    readonly objects: StateStore,
    private readonly clock: StateClock,
    private record: StateRecord | null,
    private readonly api: ProgramIdentity | null,
  ) {
    this.log = new StateLog(objects);
    this.holder = { id: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`, host: hostname(), pid: process.pid, command: options.command };
  }

  private get leaseMs(): number {
    return this.options.config.state.leaseSeconds * 1000;
  }

  private get dbPath(): string {
    return this.options.config.db.path;
  }

  /** Aborts when another run took the lease: work that writes to the API must stop. */
  get lostSignal(): AbortSignal {
    return this.lostController.signal;
  }

  /** The mirror file the command reads and writes: a restored copy in a folder of its own for `read`. */
  get mirrorPath(): string {
    return this.readCopy?.path ?? this.dbPath;
  }

  /** The newest log entry this session knows, for `status`. */
  get newest(): LogEntry | null {
    return this.head;
  }

  /** Whether a state exists at the URL (its record or an entry of its log); false for a prefix nothing was ever saved to. */
  get exists(): boolean {
    return this.record !== null || this.head !== null;
  }

  /**
   * Takes the lease; returns the holder's refusal for `skip`, waits for `wait`, and only reads the head
   * for `read`. A prefix with neither a record nor a log entry gets a new state: its record first,
   * create-only, so that of two runs creating it at once one creates and the other joins.
   */
  async acquire(): Promise<LeaseHeldError | null> {
    const { mode, config, signal } = this.options;
    const waitUntil = performance.now() + config.state.leaseWaitSeconds * 1000;
    const firstEntryUntil = performance.now() + FIRST_ENTRY_WAIT_MS;
    for (;;) {
      let head: LogEntry | null;
      try {
        head = await this.log.head(this.record !== null);
      } catch (error) {
        if (!(error instanceof LogNotFoundError) || mode === 'read' || performance.now() >= firstEntryUntil) throw error;
        await sleep(WAIT_POLL_MS, undefined, { signal });
        continue;
      }
      this.head = head;
      if (mode === 'read') return null;
      if (head === null && this.record === null && !(await this.createState())) continue;
      const verdict = leaseVerdict(head, this.clock.now(), this.holder.id, this.clock.usable);
      if (verdict.kind === 'unjudged') {
        throw new StateError(
          `The lease on the state at ${this.place.url} of ${describeHolder(verdict.holder)} looks run out (until ${verdict.until}), but ${this.clock.unusableBecause ?? 'the store gave no time'}, so this run cannot tell and takes no lease; fix the clock, or wait for the holder to release it.`,
        );
      }
      if (verdict.kind !== 'held') {
        const started = performance.now();
        const result = await this.log.append(this.entry('take', head?.manifest ?? null), head);
        if (result.written) {
          this.head = result.entry;
          this.validUntil = started + safeLeaseMs(this.leaseMs, this.clock.uncertaintyMs);
          this.startRenewing();
          this.options.logger.info({ state: this.place.url, entry: result.entry.seq, leaseUntil: result.entry.leaseUntil }, 'took the lease on the state');
          if (this.record === null) await this.recordOlderState();
          else if (this.record.program === null && this.api !== null && this.api.programId !== null) await this.bindToProgram(this.record, this.api);
          return null;
        }
        continue;
      }
      const held = new LeaseHeldError(
        `The state at ${this.place.url} is leased to ${describeHolder(verdict.holder)} until ${verdict.until}`,
        describeHolder(verdict.holder),
        verdict.until,
      );
      if (mode === 'skip') return held;
      if (performance.now() >= waitUntil) {
        throw new LeaseHeldError(`${held.message}; waited ${config.state.leaseWaitSeconds} s (state.leaseWaitSeconds) for it to end.`, held.holder, held.until);
      }
      await sleep(Math.min(WAIT_POLL_MS, Math.max(0, waitUntil - performance.now())), undefined, { signal });
    }
  }

  /** Creates the state's record; false when another run created one first (which must then bind this run too). */
  private async createState(): Promise<boolean> {
    const record: StateRecord = { format: 'loyalty-sync-state', stateId: randomUUID(), program: this.api, createdAt: new Date(this.clock.now()).toISOString(), createdBy: this.holder };
    const made = await createStateRecord(this.objects, record);
    if (!made.created) {
      this.adopt(made.found);
      return false;
    }
    this.record = record;
    const program = this.api === null ? 'no program yet (no API key)' : `program ${this.api.programId} (account ${this.api.accountId}) of the API at ${this.api.baseUrl}`;
    this.options.logger.info({ state: this.place.url, stateId: record.stateId, program: this.api }, `created a new state at ${this.place.url}, bound to ${program}`);
    return true;
  }

  /** A state saved by an older version has a log but no record: the lease holder writes it, bound to this run's program. */
  private async recordOlderState(): Promise<void> {
    const record: StateRecord = {
      format: 'loyalty-sync-state',
      stateId: this.head?.manifest?.stateId ?? randomUUID(),
      program: this.api,
      createdAt: new Date(this.clock.now()).toISOString(),
      createdBy: this.holder,
    };
    const made = await createStateRecord(this.objects, record);
    if (made.created) this.record = record;
    else this.adopt(made.found);
  }

  /** The first lease holder that knows its program binds a state created without one; a run of another program that bound it first stops here. */
  private async bindToProgram(record: StateRecord, api: ProgramIdentity): Promise<void> {
    const bound = await bindState(this.objects, record, api);
    const refusal = bindingRefusal({ ...record, program: bound }, api, this.place.url);
    if (refusal !== null) {
      await this.release().catch(() => undefined);
      throw new StateError(refusal);
    }
    this.record = { ...record, program: bound };
    this.options.logger.info({ state: this.place.url, program: bound }, `bound the state at ${this.place.url}, created without a program, to program ${bound.programId} (account ${bound.accountId}) of the API at ${bound.baseUrl}`);
  }

  private adopt(found: StateRecord): void {
    const refusal = bindingRefusal(found, this.api, this.place.url);
    if (refusal !== null) throw new StateError(refusal);
    this.record = found;
  }

  /**
   * Brings the local mirror to the bucket's state: restored when the file is missing, or when it is
   * another state's or behind this one's (another machine saved since); kept when it is the state's
   * newest, with whatever it changed since. Returns the restore's figures, or null.
   */
  async prepareMirror(): Promise<RestoreReport | null> {
    const entry = this.head;
    const manifest = entry?.manifest ?? null;
    if (this.options.mode === 'read') return entry === null || manifest === null ? null : this.prepareReadCopy({ ...entry, manifest });
    let restore = manifest !== null && !existsSync(this.dbPath);
    if (manifest !== null && !restore) {
      const db = openDatabase(this.dbPath, { mustExist: true });
      try {
        createStateTables(db);
        const mark = readLocalMark(db);
        restore = mark === null || mark.stateId !== manifest.stateId || mark.epoch < manifest.epoch;
      } finally {
        db.close();
      }
      if (restore) {
        const keptAs = setAsideMirror(this.dbPath);
        this.options.logger.warn({ mirror: this.dbPath, keptAs, state: this.place.url }, `the local mirror is behind the state in the bucket (or another state's); it is kept as ${keptAs} and restored from the bucket`);
      }
    }
    let report: RestoreReport | null = null;
    if (restore && entry !== null && manifest !== null) report = await this.restoreNewest({ ...entry, manifest }, this.dbPath);
    // Opened now, a new state's mirror too (created here): every save from the first knows which file it saves.
    this.openWriter();
    return report;
  }

  /** For a command without the lease: the mirror in place when it holds the newest state, else a restored copy of its own. */
  private async prepareReadCopy(entry: LogEntry & { manifest: StateManifest }): Promise<RestoreReport | null> {
    if (mirrorHoldsState(this.dbPath, entry.manifest)) return null;
    this.readCopy = readCopyFolder(this.dbPath);
    try {
      return await this.restoreNewest(entry, this.readCopy.path);
    } catch (error) {
      this.removeReadCopy();
      throw error;
    }
  }

  private removeReadCopy(): void {
    this.readCopy?.remove();
    this.readCopy = null;
  }

  /**
   * Restores the state of `entry`. A run without the lease (status, queue list) may find a dump gone,
   * superseded by a save of the lease holder meanwhile: it restores the newer state instead.
   */
  private async restoreNewest(entry: LogEntry & { manifest: StateManifest }, path: string): Promise<RestoreReport> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await restoreMirror(this.objects, entry, this.place.url, path, this.options.logger);
      } catch (error) {
        if (!(error instanceof DumpMissingError) || this.options.mode !== 'read' || attempt >= READ_RESTORE_TRIES) throw error;
        const newer = await this.log.head(true);
        if (newer?.manifest === null || newer === null || newer.seq === entry.seq) throw error;
        this.head = newer;
        entry = { ...newer, manifest: newer.manifest };
      }
    }
  }

  private openWriter(): { db: Db; mirror: MirrorFile } {
    if (this.writer === null || this.mirror === null) {
      this.writer = openDatabase(this.dbPath);
      this.mirror = MirrorFile.at(this.dbPath);
      installChangeTracking(this.writer);
    }
    return { db: this.writer, mirror: this.mirror };
  }

  /**
   * Saves what changed since the last save, fenced by the log: when another run wrote after this
   * run's last entry, nothing is saved and LeaseLostError says so. Saves run one at a time; a call
   * while one runs waits for it and then saves what came after.
   */
  save(): Promise<SaveReport> {
    const next = this.saves.then(() => this.saveNow());
    this.saves = next.catch(() => undefined);
    return next;
  }

  private async saveNow(): Promise<SaveReport> {
    if (this.lost !== null) throw this.lost;
    if (this.options.mode === 'read') return { kind: 'none', bytes: 0, seconds: 0 };
    const { db, mirror } = this.openWriter();
    mirror.check();
    const previous = this.head?.manifest ?? null;
    if (previous !== null && !changedSince(db, previous.epoch)) return { kind: 'none', bytes: 0, seconds: 0 };
    const started = performance.now();
    this.options.logger.info({ state: this.place.url, after: previous?.epoch ?? null }, 'saving the state to the bucket');
    const prepared = await prepareSave(db, mirror, this.objects, previous, this.record?.stateId);
    const entry = await this.append('save', () => prepared.manifest);
    prepared.afterCommit(db);
    writeLocalMark(db, { url: this.place.url, stateId: prepared.manifest.stateId, epoch: prepared.manifest.epoch, seq: entry.seq });
    const seconds = (performance.now() - started) / 1000;
    const kind = prepared.plan.kind;
    this.facts?.saved({ bytes: prepared.written.bytes, seconds, kind });
    this.options.logger.info({ state: this.place.url, kind, bytes: prepared.written.bytes, rows: prepared.written.rows, epoch: prepared.manifest.epoch, seconds: Number(seconds.toFixed(2)) }, 'saved the state to the bucket');
    if (performance.now() - this.lastSweep >= SWEEP_EVERY_MS) await this.sweep();
    return { kind, bytes: prepared.written.bytes, seconds };
  }

  /**
   * Right before a request leaves for the API: the lease must stay this run's, by the local clock, for
   * `neededMs` more (what the request may take to arrive); a run that was held up past that renews
   * first, and stops if another run took over meanwhile.
   */
  async ensureLease(neededMs = 0): Promise<void> {
    if (this.lost !== null) throw this.lost;
    if (performance.now() + neededMs < this.validUntil) return;
    await this.renew();
    if (performance.now() + neededMs >= this.validUntil) {
      throw new StateError(
        `A request to the API may take ${Math.ceil(neededMs / 1000)} s, more than the ${Math.floor((this.validUntil - performance.now()) / 1000)} s this run can rely on its lease on the state at ${this.place.url}; raise state.leaseSeconds well above api.requestTimeoutMs.`,
      );
    }
  }

  private renew(): Promise<void> {
    return this.append('renew', () => this.head?.manifest ?? null).then(() => undefined);
  }

  /**
   * Saves what changed, removes what retention no longer keeps, and releases the lease, so the next
   * run can start at once. The lease is released whatever failed: the state then stays as last saved.
   */
  async end(): Promise<SaveReport> {
    if (this.ended) return { kind: 'none', bytes: 0, seconds: 0 };
    this.ended = true;
    let failed = true;
    try {
      if (this.options.mode === 'read') return { kind: 'none', bytes: 0, seconds: 0 };
      // The renewals go on through the last save and the sweep: a slow upload must not let the lease run out under it.
      const report = await this.save();
      await this.sweep();
      failed = false;
      return report;
    } finally {
      this.stopRenewing();
      this.writer?.close();
      this.writer = null;
      this.removeReadCopy();
      const released = this.release();
      // A failure to release after a failed save is only told: the save's own failure is the one to read.
      await (failed ? released.catch((error: unknown) => this.options.logger.warn({ err: error, state: this.place.url }, 'could not release the lease on the state; it runs out by itself')) : released);
    }
  }

  /**
   * Removes the dumps, log entries and unfinished uploads that no save of the retained window needs
   * (see sweepState). Only while this run holds the lease; a failure is told and left to a later sweep.
   */
  private async sweep(): Promise<void> {
    this.lastSweep = performance.now();
    const head = this.head;
    if (this.lost !== null || head === null || head.holder.id !== this.holder.id) return;
    try {
      const removed = await sweepState(this.objects, this.log, {
        nowMs: this.clock.now(),
        keepMs: retentionMs(this.options.config.state),
        tempAgeMs: tempFileAgeMs(this.options.config.state),
        head,
        stillHolder: async () => {
          await this.ensureLease();
          const newest = await this.log.head(true);
          return newest !== null && newest.writeId === this.head?.writeId;
        },
      });
      if (removed.dumps + removed.entries + removed.uploads + removed.tempFiles > 0) this.options.logger.info({ state: this.place.url, ...removed }, 'removed state objects that no retained save names');
    } catch (error) {
      this.options.logger.warn({ err: error, state: this.place.url }, 'could not remove old state objects; a later run tries again');
    }
  }

  /** Gives the lease back without saving (a run that failed before it changed anything). */
  async release(): Promise<void> {
    this.stopRenewing();
    if (this.options.mode === 'read' || this.lost !== null || this.head === null || this.head.holder.id !== this.holder.id) return;
    await this.append('release', () => this.head?.manifest ?? null);
  }

  /** Appends the next entry once the entries before it are written; `manifest` is read then, so a renewal carries the newest save. */
  private append(kind: EntryKind, manifest: () => StateManifest | null): Promise<LogEntry> {
    const next = this.appends.then(() => this.appendNow(kind, manifest()));
    this.appends = next.catch(() => undefined);
    return next;
  }

  private async appendNow(kind: EntryKind, manifest: StateManifest | null): Promise<LogEntry> {
    if (this.lost !== null) throw this.lost;
    const started = performance.now();
    const result = await this.log.append(this.entry(kind, manifest), this.head);
    if (!result.written) {
      const other = result.found;
      const who = other === null ? `the entries it had written after were gone from the log` : `${describeHolder(other.holder)} wrote entry ${other.seq} at ${other.writtenAt}`;
      this.lost = new LeaseLostError(`This run lost its lease on the state at ${this.place.url}: ${who} (the lease ran out while this run was held up); nothing more of this run is saved.`);
      this.stopRenewing();
      this.lostController.abort(this.lost);
      throw this.lost;
    }
    this.head = result.entry;
    this.validUntil = started + safeLeaseMs(this.leaseMs, this.clock.uncertaintyMs);
    return result.entry;
  }

  private entry(kind: EntryKind, manifest: StateManifest | null): Omit<LogEntry, 'seq'> {
    const now = this.clock.now();
    return {
      format: LOG_FORMAT,
      kind,
      writeId: randomUUID(),
      holder: this.holder,
      leaseUntil: new Date(kind === 'release' ? now : now + this.leaseMs).toISOString(),
      writtenAt: new Date(now).toISOString(),
      manifest,
    };
  }

  private startRenewing(): void {
    this.renewTimer = setInterval(() => {
      this.renew().catch((error: unknown) => {
        if (!(error instanceof LeaseLostError)) this.options.logger.warn({ err: error, state: this.place.url }, 'could not renew the lease on the state; trying again');
      });
    }, this.leaseMs / 3);
    this.renewTimer.unref();
  }

  private stopRenewing(): void {
    if (this.renewTimer !== null) clearInterval(this.renewTimer);
    this.renewTimer = null;
  }
}
