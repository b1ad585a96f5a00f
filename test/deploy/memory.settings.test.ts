import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

/** `NAME=value` pairs of the ENV instructions of the Dockerfile's last stage (the image that runs). */
function runtimeEnv(dockerfile: string): Map<string, string> {
  const runtimeStage = dockerfile.split(/^FROM /m).at(-1) ?? '';
  const instructions = runtimeStage.replace(/\\\n/g, ' ').split('\n').filter((line) => /^ENV\s/.test(line));
  return new Map(instructions.flatMap((line) => [...line.matchAll(/\b(\w+)=(\S+)/g)].map((match): [string, string] => [match[1], match[2]])));
}

interface Workload {
  spec: { template?: { spec: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } };
}
interface PodSpec {
  containers: Array<{ env?: Array<{ name: string; value?: string }> }>;
}

function containerEnv(file: string): Map<string, string> {
  const workload = parse(readFileSync(new URL(`../../deploy/kubernetes/${file}`, import.meta.url), 'utf8')) as Workload;
  const pod = workload.spec.template?.spec ?? workload.spec.jobTemplate!.spec.template.spec;
  return new Map(pod.containers.flatMap((container) => container.env ?? []).flatMap((variable) => (variable.value === undefined ? [] : [[variable.name, variable.value] as [string, string]])));
}

describe('the memory settings of a container', () => {
  const image = runtimeEnv(readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8'));
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('cap the arenas for every command, as the README states', () => {
    expect(image.get('MALLOC_ARENA_MAX')).toBe('2');
    expect(readme).toContain('`MALLOC_ARENA_MAX=2`');
  });

  it('fix the mmap threshold for the long-lived run only, so a one-shot export keeps its speed', () => {
    expect(image.has('MALLOC_MMAP_THRESHOLD_')).toBe(false);
    expect(containerEnv('cronjob.yaml').has('MALLOC_MMAP_THRESHOLD_')).toBe(false);
    const threshold = containerEnv('deployment.yaml').get('MALLOC_MMAP_THRESHOLD_');
    expect(threshold).toMatch(/^\d+$/);
    expect(readme).toContain(`\`MALLOC_MMAP_THRESHOLD_=${threshold}\``);
  });

  it('shrink the young generation for the long-lived run only, so a one-shot sync keeps its speed', () => {
    expect(image.has('NODE_OPTIONS')).toBe(false);
    expect(containerEnv('cronjob.yaml').has('NODE_OPTIONS')).toBe(false);
    const options = containerEnv('deployment.yaml').get('NODE_OPTIONS');
    expect(options).toMatch(/^--max-semi-space-size=\d+$/);
    expect(readme).toContain(`\`NODE_OPTIONS=${options}\``);
  });
});
