import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
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
    compiling = readFile(createRequire(import.meta.url).resolve('parquet-wasm/esm/parquet_wasm_bg.wasm')).then(compileBaselineOnly);
    // A failed read or compile is not kept: the next export tries again.
    compiling.catch(() => (compiling = null));
  }
  return compiling;
}

/**
 * Compiles `bytes` with V8's baseline compiler (Liftoff) only, never its optimizing one. Optimizing
 * parquet-wasm's hot functions took some 55 MB of compiler memory (V8's peak malloc 82 MB against 27),
 * which glibc then kept for the life of the process, and bought no speed on the exports' files:
 * 1,000,000 transactions encoded in 2.42-2.63 s either way, 50,000 in 0.59 s instead of 0.89. A module
 * keeps the tiers it was compiled with, so the flags are put back at once: other WebAssembly in the
 * process (undici's HTTP parser) is still optimized when it runs hot. Node 24 ignores --liftoff-only
 * set at run time and optimizes as before. An out-of-reach tier-up budget, which it honours, was tried
 * instead: the 30-minute soak on Node 20 then rested at about 205 MB instead of 168, and peaked above 300 MB.
 */
async function compileBaselineOnly(bytes: Buffer): Promise<WebAssembly.Module> {
  setFlagsFromString('--liftoff-only');
  try {
    return await WebAssembly.compile(bytes);
  } finally {
    // --liftoff-only also turned dynamic tiering off, and taking it back does not turn it on again.
    setFlagsFromString('--no-liftoff-only --wasm-dynamic-tiering');
  }
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
