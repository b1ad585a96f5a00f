import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (which ships beside dist/). */
export function toolVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  return `${pkg.name} ${pkg.version}`;
}
