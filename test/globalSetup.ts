import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startSwift } from '../scripts/swift-server.mjs';

/** Newest modification time of the files under `dir` whose names end with `suffix`; 0 when there are none. */
function newest(dir: string, suffix: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix)) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/**
 * vitest runs the TypeScript sources, but the CLI tests' child processes and the sync's storage thread
 * run the build in dist/: a build older than the sources would test old code. `npm test` builds first;
 * a bare `npx vitest` after an edit is stopped here rather than quietly testing the previous build.
 */
function checkBuildIsCurrent(): void {
  let built = 0;
  try {
    built = newest('dist', '.js');
  } catch {
    // No dist/ at all: reported below.
  }
  if (built < newest('src', '.ts')) throw new Error('dist/ is older than src/ (or missing): run `npm run build` first, or `npm test`, which builds.');
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The S3 endpoint of the Swift server started once for the whole run (test/s3). */
    swift: { endpoint: string; accessKeyId: string; secretAccessKey: string };
  }
}

/** Starts one real S3-protocol server (OpenStack Swift) for every object-storage test of the run. */
export default async function setup(project: TestProject): Promise<() => void> {
  checkBuildIsCurrent();
  const swift = await startSwift();
  project.provide('swift', { endpoint: swift.endpoint, accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey });
  return () => swift.stop();
}
