import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_METRICS_PORT, LIVENESS_PATH, READINESS_PATH } from '../../src/metrics/server.js';

/** The fields these checks read; the manifests hold more. */
interface Container {
  args: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe?: { httpGet: { path: string; port: string | number } };
  readinessProbe?: { httpGet: { path: string; port: string | number } };
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean };
  volumeMounts: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  securityContext: { runAsNonRoot: boolean; runAsUser: number };
  containers: Container[];
  volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }>;
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

function manifest<T>(file: string): T {
  return parse(readFileSync(new URL(`../../deploy/kubernetes/${file}`, import.meta.url), 'utf8')) as T;
}

const deployment = manifest<{ kind: string; spec: { replicas: number; strategy: { type: string }; template: PodTemplate } }>('deployment.yaml');
const cronJob = manifest<{ kind: string; spec: { concurrencyPolicy: string; jobTemplate: { spec: { template: PodTemplate } } } }>('cronjob.yaml');
const claim = manifest<{ kind: string; metadata: { name: string } }>('pvc.yaml');
const secret = manifest<{ kind: string; metadata: { name: string }; stringData: Record<string, string> }>('secret.yaml');

/** A probe's port as a number, through the container's named ports. */
function portNumber(container: Container, port: string | number): number | undefined {
  return typeof port === 'number' ? port : container.ports?.find((entry) => entry.name === port)?.containerPort;
}

describe('the Kubernetes manifests', () => {
  it('probe the Deployment on the paths and port the code serves by default', () => {
    expect(deployment.kind).toBe('Deployment');
    const [container] = deployment.spec.template.spec.containers;
    expect(container.args).toEqual(['run']);
    expect(container.livenessProbe?.httpGet.path).toBe(LIVENESS_PATH);
    expect(container.readinessProbe?.httpGet.path).toBe(READINESS_PATH);
    expect(portNumber(container, container.livenessProbe?.httpGet.port ?? '')).toBe(DEFAULT_METRICS_PORT);
    expect(portNumber(container, container.readinessProbe?.httpGet.port ?? '')).toBe(DEFAULT_METRICS_PORT);
    expect(container.env.find((entry) => entry.name === 'LOYALTY_METRICS_LISTEN')?.value).toBe(`0.0.0.0:${DEFAULT_METRICS_PORT}`);
    // Scraped through the ServiceMonitor only: annotations would add a second scrape under another job name.
    expect(Object.keys(deployment.spec.template.metadata.annotations ?? {}).filter((key) => key.startsWith('prometheus.io/'))).toEqual([]);
    // One writer per mirror: never two pods at once, not even during a rollout.
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy.type).toBe('Recreate');
  });

  it('runs the CronJob with concurrencyPolicy Forbid, as `once` that verifies daily with its metrics sent somewhere', () => {
    expect(cronJob.kind).toBe('CronJob');
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
    const [container] = cronJob.spec.jobTemplate.spec.template.spec.containers;
    expect(container.args[0]).toBe('once');
    // Without it the verify alerts and LoyaltyLedgerDefects would read nothing in a CronJob deployment.
    expect(container.args).toContain('--verify-daily');
    expect(container.args.some((arg) => arg === '--pushgateway' || arg === '--metrics-file')).toBe(true);
  });

  it('gives both the key from the Secret, the mirror from the claim, non-root and a read-only root filesystem', () => {
    expect(secret.kind).toBe('Secret');
    expect(claim.kind).toBe('PersistentVolumeClaim');
    for (const template of [deployment.spec.template, cronJob.spec.jobTemplate.spec.template]) {
      const [container] = template.spec.containers;
      const key = container.env.find((entry) => entry.name === 'LOYALTY_API_KEY');
      expect(key?.value).toBeUndefined();
      expect(key?.valueFrom?.secretKeyRef?.name).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData)).toContain(key?.valueFrom?.secretKeyRef?.key);
      const data = template.spec.volumes.find((volume) => volume.persistentVolumeClaim !== undefined);
      expect(data?.persistentVolumeClaim?.claimName).toBe(claim.metadata.name);
      expect(container.volumeMounts.find((mount) => mount.name === data?.name)?.mountPath).toBe('/data');
      expect(template.spec.securityContext.runAsNonRoot).toBe(true);
      expect(template.spec.securityContext.runAsUser).not.toBe(0);
      expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
    }
  });

  it('match the container image, which listens on the default metrics port', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile).toContain(`LOYALTY_METRICS_LISTEN=0.0.0.0:${DEFAULT_METRICS_PORT}`);
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${DEFAULT_METRICS_PORT}$`, 'm'));
  });
});
