import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as parquetWasm from 'parquet-wasm/esm';

export type ParquetWasm = typeof parquetWasm;

let compiling: Promise<WebAssembly.Module> | null = null;
let initialised = false;

/**
 * parquet-wasm's module, compiled once per process (off the event loop) and handed to every encoding
 * thread. Compiled in each thread, its 6.6 MB were compiled and tiered up again for every file, and the
 * compilers' memory stayed with the process: in the soak bench (an export every 10 s) RSS sat near
 * 600 MB, and near 400 MB with one shared copy; exports also start sooner. A compiled module is
 * process-wide by nature, hence the one promise here.
 */
export function compileParquetWasm(): Promise<WebAssembly.Module> {
  if (compiling === null) {
    compiling = readFile(createRequire(import.meta.url).resolve('parquet-wasm/esm/parquet_wasm_bg.wasm')).then((bytes) => WebAssembly.compile(bytes));
    // A failed read or compile is not kept: the next export tries again.
    compiling.catch(() => (compiling = null));
  }
  return compiling;
}

/**
 * parquet-wasm, instantiated from `module` (compileParquetWasm) on first use. Its `node` build is
 * CommonJS inside an ESM package and fails to load, so the ESM build is used. An instance is
 * process-wide (thread-wide) by nature, hence the one flag here.
 */
export function loadParquetWasm(module: WebAssembly.Module): ParquetWasm {
  if (!initialised) {
    parquetWasm.initSync({ module });
    initialised = true;
  }
  return parquetWasm;
}
