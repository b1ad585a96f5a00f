import { rename, rm, writeFile } from 'node:fs/promises';
import type { Registry } from 'prom-client';

/**
 * Writes the registry's exposition to `path` for node_exporter's textfile collector: first to a
 * temporary name beside it (not ending in `.prom`, so the collector never reads it), then renamed
 * over `path`, so a reader sees the previous file or the new one, never a part.
 */
export async function writeMetricsFile(path: string, registry: Registry): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, await registry.metrics(), { mode: 0o644 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
