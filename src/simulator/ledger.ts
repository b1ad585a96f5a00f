import { iso } from './time.js';
import type { LedgerEntry, LedgerKind } from './types.js';

/** Every applied write, in order, so tests can tell "landed once" from "landed twice" from "never landed". */
export class Ledger {
  private readonly entries: LedgerEntry[] = [];

  record(kind: LedgerKind, target: string, body: unknown, effect: string, at: number): void {
    this.entries.push({ seq: this.entries.length + 1, at: iso(at), kind, target, body, effect });
  }

  all(): LedgerEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }
}
