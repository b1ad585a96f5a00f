import type { LogEntry } from '../state/leaseLog.js';
import { beginStateSession, type LeaseMode } from '../state/session.js';
import type { CommandContext } from './context.js';
import { StateFactsRelay } from './stateFactsRelay.js';

/**
 * Runs a command against the state in the bucket (`state.url`): the mirror is restored or brought
 * up to date first, the command runs under the lease, and what it changed is saved before the lease
 * is released, also when the command failed (writes it sent must be recorded). What the state does
 * reaches the command's metrics through `ctx.stateFacts`. A command that asked to skip (`once`) and
 * finds the lease held runs with `ctx.leaseHeld` instead, so that it can say so and still hand over
 * its metrics, the skip counted; it must not touch the mirror.
 */
export async function runWithState(command: string, mode: LeaseMode, run: (ctx: CommandContext) => Promise<number>, ctx: CommandContext): Promise<number> {
  const stateFacts = new StateFactsRelay();
  const begun = await beginStateSession({ config: ctx.config, logger: ctx.logger, command, mode }, stateFacts);
  if ('skipped' in begun) {
    stateFacts.lastSaveRead(lastSaveOf(begun.newest));
    return run({ ...ctx, leaseHeld: begun.skipped, stateFacts });
  }
  const session = begun.session;
  stateFacts.lastSaveRead(lastSaveOf(session.newest));
  // A command without the lease may read a restored copy of its own rather than the mirror in place.
  const config = session.mirrorPath === ctx.config.db.path ? ctx.config : { ...ctx.config, db: { ...ctx.config.db, path: session.mirrorPath } };
  let code: number;
  try {
    code = await run({ ...ctx, config, state: session, stateFacts });
  } catch (error) {
    await session.end().catch((saveError: unknown) => ctx.logger.error({ err: saveError }, 'could not save the state after the command failed'));
    throw error;
  }
  await session.end();
  return code;
}

function lastSaveOf(entry: LogEntry | null): Date | null {
  const manifest = entry?.manifest ?? null;
  return manifest === null ? null : new Date(manifest.savedAt);
}
