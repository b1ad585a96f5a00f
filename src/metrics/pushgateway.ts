import { request } from 'undici';
import type { Registry } from 'prom-client';

/** The job name every push uses; the grouping key adds the program id. */
export const PUSHGATEWAY_JOB = 'loyalty_sync';
const PUSH_TIMEOUT_MS = 10_000;

/**
 * Pushes the registry's metrics to this program's group on a Prometheus Pushgateway
 * (`/metrics/job/loyalty_sync/program_id/ID`): `PUT` replaces the whole group, `POST` only the
 * families the registry holds. Throws with the reason when the gateway cannot be reached or refuses;
 * the caller decides that this is only a warning.
 */
export async function pushToGateway(url: string, programId: string, registry: Registry, method: 'PUT' | 'POST' = 'PUT'): Promise<void> {
  const target = new URL(url);
  // A gateway behind basic auth is given as http://user:password@host; the credentials travel as a header.
  const headers: Record<string, string> = { 'content-type': registry.contentType };
  if (target.username !== '' || target.password !== '') {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
  }
  target.pathname = `${target.pathname.replace(/\/+$/, '')}/metrics/job/${PUSHGATEWAY_JOB}/program_id/${encodeURIComponent(programId)}`;
  const response = await request(`${target.origin}${target.pathname}`, {
    method,
    headers,
    body: await registry.metrics(),
    headersTimeout: PUSH_TIMEOUT_MS,
    bodyTimeout: PUSH_TIMEOUT_MS,
  });
  const text = await response.body.text();
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw new Error(`the Pushgateway answered ${response.statusCode}${text ? `: ${text.trim().slice(0, 200)}` : ''}`);
  }
}

/** The gateway's address without credentials, for logs and messages. */
export function gatewayForDisplay(url: string): string {
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  return shown.toString();
}
