import { createApiClient } from '../api/client.js';
import { ApiError, describeError } from '../api/errors.js';
import type { Identity } from '../api/types.js';
import type { Config } from '../config.js';
import { parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './errors.js';

const HELP = `Usage: loyalty-sync whoami [--json]

Shows the API credential's identity and scopes, and which configured jobs they do not allow.
  --json   print the identity as JSON
`;

/** Spec part 5: the only scope requirement the spec states. */
const REVIEW_SCOPE = 'write_reviews';

/** Writes the queue can push whose needed scope the spec does not state. */
const OTHER_WRITES = ['add points', 'create order', 'claim reward'];

export async function whoamiCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('whoami', argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    ctx.stdout.write(HELP);
    return EXIT_OK;
  }
  if (ctx.config.api.apiKey === '') {
    ctx.stderr.write('loyalty-sync: LOYALTY_API_KEY is not set; export the program API key in that variable and run whoami again.\n');
    return EXIT_USAGE;
  }
  const client = createApiClient(ctx.config.api, ctx.logger);
  try {
    const identity = await client.whoami();
    ctx.stdout.write(values.json ? `${JSON.stringify(identity, null, 2)}\n` : describeIdentity(identity, ctx.config));
    return EXIT_OK;
  } catch (error) {
    const message = error instanceof ApiError && error.status === 401 ? 'the API rejected the credential (401)' : describeError(error);
    ctx.stderr.write(`loyalty-sync: ${message}\n`);
    return EXIT_FAILED;
  } finally {
    await client.close();
  }
}

/** The human-readable report: who the credential is, then what it may not do. */
export function describeIdentity(identity: Identity, config: Readonly<Config>): string {
  const scopes = Array.isArray(identity.scopes) ? identity.scopes.map(String) : [];
  const lines = [`Identity: ${identity.kind}`];
  if (identity.account_id !== undefined) lines.push(`Account:  ${String(identity.account_id)}`);
  if (identity.program_id !== undefined) lines.push(`Program:  ${String(identity.program_id)}`);
  lines.push(`Scopes:   ${scopes.length > 0 ? scopes.join(', ') : '(none reported)'}`);
  lines.push('', 'Configured jobs:', ...jobFindings(identity.kind, scopes, config).map((line) => `  - ${line}`));
  return `${lines.join('\n')}\n`;
}

/**
 * What the scopes do not allow. Only the review endpoints' needs are stated by the spec
 * (write_reviews, program API key only); for everything else it is silent, and so is this.
 */
export function jobFindings(kind: string, scopes: string[], config: Readonly<Config>): string[] {
  const findings: string[] = [];
  if (!scopes.includes(REVIEW_SCOPE)) {
    findings.push(`queued review writes (update-review, delete-review) need scope ${REVIEW_SCOPE}, which this credential lacks, so the API would refuse them.`);
  } else if (kind !== 'api_key') {
    findings.push('queued review writes (update-review, delete-review) accept only a program API key, and this credential is not one.');
  } else {
    findings.push(`queued review writes (update-review, delete-review): allowed (scope ${REVIEW_SCOPE}).`);
  }
  findings.push(`queued ${OTHER_WRITES.join(', ')}: the API spec does not state the scope these need, so they cannot be checked here.`);
  if (config.sync.streams.length > 0) {
    findings.push(`sync of ${config.sync.streams.join(', ')}: the API spec does not state the scope these need, so they cannot be checked here.`);
  }
  findings.push('export reads only the local mirror and needs no scope.');
  return findings;
}
