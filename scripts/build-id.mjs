// The build's id, which every Parquet footer names (`loyalty-sync version X (build H)`, src/version.ts): a
// hash of what the build compiles (src/) and of the dependencies it pins (package-lock.json), so the same
// sources give the same id, in a git checkout or in a Docker build that has no .git.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const hash = createHash('sha256');
const files = readdirSync('src', { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => join(entry.parentPath, entry.name))
  .sort();
for (const path of [...files, 'package-lock.json']) {
  hash.update(`${path}\0`);
  hash.update(readFileSync(path));
  hash.update('\0');
}
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build.json', `${JSON.stringify({ build: hash.digest('hex').slice(0, 12) })}\n`);
