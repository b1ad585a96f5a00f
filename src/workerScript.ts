import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The compiled script of a worker thread, by its path under `src/` with a `.js` ending
 * (`sync/storeWorker.js`). Found beside this module once built; when the sources run directly (vitest
 * runs the TypeScript, and a worker cannot), in the build output, which `npm test` produces first.
 */
export function workerScript(path: string, purpose: string): URL {
  const beside = new URL(`./${path}`, import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  const built = new URL(`../dist/${path}`, import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new Error(`${purpose} is not built (${fileURLToPath(built)} is missing): run npm run build`);
}
