import { createHash } from 'node:crypto';
import type { DataFileSink, DeltaStore, StoredEntry } from '../../../src/export/delta/store.js';

/**
 * A DeltaStore held in memory, with a clock the test sets: for the table code's own decisions
 * (what to write once, what to delete), which do not depend on where the bytes live.
 */
export class MemoryStore implements DeltaStore {
  readonly location = 'memory://table';
  readonly objects = new Map<string, { body: Buffer; modifiedMs: number }>();
  nowMs = 0;

  async list(): Promise<StoredEntry[]> {
    return [...this.objects].map(([path, { body, modifiedMs }]) => ({ path, size: body.byteLength, modifiedMs }));
  }

  async listLog(): Promise<StoredEntry[]> {
    return (await this.list()).filter(({ path }) => path.startsWith('_delta_log/'));
  }

  async read(path: string): Promise<Buffer | null> {
    return this.objects.get(path)?.body ?? null;
  }

  async putIfAbsent(path: string, body: Buffer): Promise<boolean> {
    if (this.objects.has(path)) return false;
    this.objects.set(path, { body, modifiedMs: this.nowMs });
    return true;
  }

  async put(path: string, body: Buffer): Promise<void> {
    this.objects.set(path, { body, modifiedMs: this.nowMs });
  }

  async createDataFile(path: string): Promise<DataFileSink> {
    const chunks: Buffer[] = [];
    return {
      write: async (chunk) => void chunks.push(Buffer.from(chunk)),
      finish: async () => {
        const body = Buffer.concat(chunks);
        this.objects.set(path, { body, modifiedMs: this.nowMs });
        return { bytes: body.byteLength, sha256: createHash('sha256').update(body).digest('hex') };
      },
      abort: async () => undefined,
    };
  }

  async delete(paths: readonly string[]): Promise<void> {
    for (const path of paths) this.objects.delete(path);
  }
}
