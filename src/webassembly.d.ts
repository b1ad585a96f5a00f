/**
 * The part of the WebAssembly JS API this program uses (compiling parquet-wasm once and handing the
 * module to threads). TypeScript declares it only in its DOM library, which a Node program does not load.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  function compile(bytes: Uint8Array): Promise<Module>;
}
