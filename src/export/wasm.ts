import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as parquetWasm from 'parquet-wasm/esm';

export type ParquetWasm = typeof parquetWasm;

let initialised = false;

/**
 * parquet-wasm, instantiated on first use. Its `node` build is CommonJS inside an ESM package and
 * fails to load, so the ESM build is used with the .wasm bytes read from disk. A wasm instance is
 * process-wide by nature, hence the one flag here.
 */
export function loadParquetWasm(): ParquetWasm {
  if (!initialised) {
    const wasmPath = createRequire(import.meta.url).resolve('parquet-wasm/esm/parquet_wasm_bg.wasm');
    parquetWasm.initSync({ module: readFileSync(wasmPath) });
    initialised = true;
  }
  return parquetWasm;
}
