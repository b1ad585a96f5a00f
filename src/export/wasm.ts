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
    keepWebAssemblyOnBaselineCode();
    compiling = readFile(createRequire(import.meta.url).resolve('parquet-wasm/esm/parquet_wasm_bg.wasm')).then((bytes) => WebAssembly.compile(bytes));
    // A failed read or compile is not kept: the next export tries again.
    compiling.catch(() => (compiling = null));
  }
  return compiling;
}

/**
 * From the first export on, WebAssembly in this process runs on the code of V8's baseline compiler
 * (Liftoff) and is never re-compiled by its optimizing one. Optimizing parquet-wasm's hot functions took
 * some 55 MB of compiler memory (V8's peak malloc 80 MB against 26), which glibc then kept for the life of
 * a `run`, and bought no speed on the exports' files: 1,000,000 transactions encoded in 2.42-2.63 s either
 * way, 50,000 in 0.57 s instead of 0.76. The flag is the tier-up budget, read when a thread instantiates
 * the module (Node 24) or compiles it (Node 20); `--liftoff-only` is no longer honoured once Node 24 has
 * started. The budget is process-wide: undici's HTTP parser, should it be set up after an export, stays
 * on baseline code too, where it parses a page's headers and frames, a small part of a sync's work.
 */
function keepWebAssemblyOnBaselineCode(): void {
  setFlagsFromString('--wasm-tiering-budget=2000000000');
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
