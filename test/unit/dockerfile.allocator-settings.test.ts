import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** `NAME=value` pairs of the ENV instructions of the Dockerfile's last stage (the image that runs). */
function runtimeEnv(dockerfile: string): Map<string, string> {
  const runtimeStage = dockerfile.split(/^FROM /m).at(-1) ?? '';
  const instructions = runtimeStage.replace(/\\\n/g, ' ').split('\n').filter((line) => /^ENV\s/.test(line));
  return new Map(instructions.flatMap((line) => [...line.matchAll(/\b(\w+)=(\S+)/g)].map((match): [string, string] => [match[1], match[2]])));
}

describe('the container image', () => {
  const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('runs with the allocator settings that keep a long-lived run small, as the README states them', () => {
    const env = runtimeEnv(dockerfile);
    for (const name of ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']) {
      const value = env.get(name);
      expect(value, `the runtime stage sets no ${name}`).toMatch(/^\d+$/);
      expect(readme, `README names ${name}=${value}`).toContain(`\`${name}=${value}\``);
    }
  });
});
