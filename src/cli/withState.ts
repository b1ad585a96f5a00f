import { beginStateSession, type LeaseMode } from '../state/session.js';
import type { CommandContext } from './context.js';

/**
 * Runs a command against the state in the bucket (`state.url`): the mirror is restored or brought
 * up to date first, the command runs under the lease, and what it changed is saved before the lease
 * is released, also when the command failed (writes it sent must be recorded). A `once` that finds
 * the lease held says so on one line and exits 0: another run is doing its work.
 */
export async function runWithState(command: string, mode: LeaseMode, run: (ctx: CommandContext) => Promise<number>, ctx: CommandContext): Promise<number> {
  const begun = await beginStateSession({ config: ctx.config, logger: ctx.logger, command, mode });
  if ('skipped' in begun) {
    ctx.stdout.write(`${command}: skipped: the state at ${ctx.config.state.url} is leased to ${begun.skipped.holder} until ${begun.skipped.until}.\n`);
    return 0;
  }
  const session = begun.session;
  let code: number;
  try {
    code = await run({ ...ctx, state: session });
  } catch (error) {
    await session.end().catch((saveError: unknown) => ctx.logger.error({ err: saveError }, 'could not save the state after the command failed'));
    throw error;
  }
  await session.end();
  return code;
}
