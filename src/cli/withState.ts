import { ApiError, describeError } from '../api/errors.js';
import type { LogEntry } from '../state/leaseLog.js';
import { beginStateSession, type LeaseMode } from '../state/session.js';
import type { ProgramIdentity } from '../state/stateRecord.js';
import { createClient, type CommandContext } from './context.js';
import { StateFactsRelay } from './stateFactsRelay.js';

/**
 * Runs a command against the state in the bucket (`state.url`): the mirror is restored or brought
 * up to date first, the command runs under the lease, and what it changed is saved before the lease
 * is released, also when the command failed (writes it sent must be recorded). What the state does
 * reaches the command's metrics through `ctx.stateFacts`. A command that asked to skip (`once`) and
 * finds the lease held runs with `ctx.leaseHeld` instead, so that it can say so and still hand over
 * its metrics, the skip counted; it must not touch the mirror. A command that talks to the API
 * (`callsApi`) first asks it which program it serves, and is refused a state bound to another program;
 * the others (queue additions, export) need no API at all, and ask nothing.
 */
export async function runWithState(command: string, mode: LeaseMode, run: (ctx: CommandContext) => Promise<number>, ctx: CommandContext, callsApi: boolean): Promise<number> {
  const stateFacts = new StateFactsRelay();
  const identify = callsApi ? () => identifyProgram(ctx) : undefined;
  const begun = await beginStateSession({ config: ctx.config, logger: ctx.logger, command, mode, identify }, stateFacts);
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

/**
 * The program the run's API key serves, which the state is bound to; null without a key, or when the API
 * cannot say (unreachable, failing, or refusing the key). The run then goes on unchecked, warned once: it
 * can neither read from nor send to that API, whose calls fail the same way, while the steps that need no
 * API (the export) must still run, as without a state.
 */
async function identifyProgram(ctx: CommandContext): Promise<ProgramIdentity | null> {
  if (ctx.config.api.apiKey === '') return null;
  const client = createClient(ctx);
  try {
    const identity = await client.whoami();
    const id = (value: unknown): number | null => (typeof value === 'number' ? value : null);
    return { programId: id(identity.program_id), accountId: id(identity.account_id), baseUrl: ctx.config.api.baseUrl };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    ctx.logger.warn(
      { state: ctx.config.state.url, api: ctx.config.api.baseUrl },
      `could not check which program the state at ${ctx.config.state.url} is bound to: the API did not say who it serves (${describeError(error)}); this run goes on without that check`,
    );
    return null;
  } finally {
    await client.close();
  }
}
