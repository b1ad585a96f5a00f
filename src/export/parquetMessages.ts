/** What the Parquet encoding thread needs to know before the first batch. */
export interface ParquetWorkerData {
  rowGroupSize: number;
  /** Columns written without min/max statistics. */
  withoutStatistics: string[];
  createdBy: string;
  /** parquet-wasm, compiled once by the main thread (compileParquetWasm), so the thread only instantiates it. */
  wasmModule: WebAssembly.Module;
}

/** Main thread → encoding thread. A batch travels as one Arrow IPC stream, the format parquet-wasm reads. */
export type ParquetRequest = { type: 'batch'; ipc: Uint8Array } | { type: 'end' };

/** Encoding thread → main thread. */
export type ParquetReply =
  /** Bytes of the file, in order. */
  | { type: 'chunk'; bytes: Uint8Array }
  /** A batch has gone into the writer (its buffer comes back, to be dropped): room for another. */
  | { type: 'taken'; ipc: Uint8Array }
  /** The file is complete: every chunk has been sent. */
  | { type: 'done' }
  | { type: 'failed'; message: string };
