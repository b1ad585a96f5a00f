import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Every relative import of every module under `room`, resolved to the room of src/ it lands in. */
function importsOf(room: string): Array<{ file: string; target: string }> {
  const found: Array<{ file: string; target: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/from '(\.[^']+)'/g)) found.push({ file: path.slice(SRC.length), target: join(dir, match[1]).slice(SRC.length) });
      }
    }
  };
  walk(join(SRC, room));
  return found;
}

describe('the layout of the storage rooms', () => {
  it('keeps the bucket client below export and state: src/bucket imports neither', () => {
    expect(importsOf('bucket').filter(({ target }) => /^(export|state)\//.test(target))).toEqual([]);
  });

  it('keeps the state apart from the export: src/state imports nothing of src/export', () => {
    expect(importsOf('state').filter(({ target }) => target.startsWith('export/'))).toEqual([]);
  });
});
