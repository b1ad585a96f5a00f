import { readFileSync } from 'node:fs';

interface PackageJson {
  name: string;
  version: string;
}

/** The package's name and version, read from package.json (which ships beside dist/). */
function packageJson(): PackageJson {
  return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageJson;
}

/** The package version, e.g. "loyalty-sync 0.1.0". */
export function toolVersion(): string {
  const pkg = packageJson();
  return `${pkg.name} ${pkg.version}`;
}

/**
 * The `created_by` of every Parquet footer this tool writes, in the form parquet-java parses:
 * `loyalty-sync version 0.1.0 (build 1a2b3c4d5e6f)`. Spark, Hive and Trino read Parquet through
 * parquet-java, which trusts the min/max statistics of string columns only from a writer it can name
 * (PARQUET-251): for any other created_by they prune nothing on a string column and log a warning.
 * The build id is written by scripts/build-id.mjs; `../dist/` finds it from src/ (tests) and dist/ alike.
 */
export function parquetCreatedBy(): string {
  const pkg = packageJson();
  const { build } = JSON.parse(readFileSync(new URL('../dist/build.json', import.meta.url), 'utf8')) as { build: string };
  return `${pkg.name} version ${pkg.version} (build ${build})`;
}
