import { request } from 'undici';
import type { Registry } from 'prom-client';

/** The job name every push uses; the grouping key adds the program id. */
export const PUSHGATEWAY_JOB = 'loyalty_sync';
const PUSH_TIMEOUT_MS = 10_000;

/**
 * Replaces this program's group on a Prometheus Pushgateway with the registry's metrics
 * (`PUT /metrics/job/loyalty_sync/program_id/ID`). Throws with the reason when the gateway cannot
 * be reached or refuses; the caller decides that this is only a warning.
 */
export async function pushToGateway(url: string, programId: string, registry: Registry): Promise<void> {
  const base = url.replace(/\/+$/, '');
  const target = `${base}/metrics/job/${PUSHGATEWAY_JOB}/program_id/${encodeURIComponent(programId)}`;
  const response = await request(target, {
    method: 'PUT',
    headers: { 'content-type': registry.contentType },
    body: await registry.metrics(),
    headersTimeout: PUSH_TIMEOUT_MS,
    bodyTimeout: PUSH_TIMEOUT_MS,
  });
  const text = await response.body.text();
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw new Error(`the Pushgateway answered ${response.statusCode}${text ? `: ${text.trim().slice(0, 200)}` : ''}`);
  }
}
