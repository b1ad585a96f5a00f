import { Worker } from 'node:worker_threads';
import { wholeBuffer } from '../transferable.js';
import { workerScript } from '../workerScript.js';
import type { ByteSink } from '../bucket/byteSink.js';
import type { ParquetReply, ParquetRequest, ParquetWorkerData } from './parquetMessages.js';

/** Batches handed to the encoding thread and not yet taken by its writer: enough to keep it busy, few enough to bound memory. */
const BATCHES_IN_FLIGHT = 2;

/**
 * Encoded bytes waiting for the disk beyond which no new batch goes out: a slow disk then holds
 * back the encoder and the reader, instead of the file piling up in memory (a row group of the
 * bench's transactions is about 3 MB).
 */
const UNWRITTEN_BYTES_LIMIT = 16 * 1024 * 1024;

/**
 * Starts a thread that encodes one Parquet file (parquetWorker) and writes its bytes into `sink`.
 * A thread per file also gives the wasm writer's memory back when the file is done, which a
 * long-running `run` process would otherwise keep at its largest row group for good. The thread
 * makes little JS garbage, so a small young generation costs nothing and keeps its heap small.
 */
export function startEncoderThread(data: ParquetWorkerData, sink: ByteSink | null): EncoderThread {
  return new EncoderThread(new Worker(workerScript('export/parquetWorker.js', 'the Parquet encoding thread'), { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 8 } }), sink);
}

/** The main thread's side of one encoding thread: batches go in, the file's bytes come out into the sink. */
export class EncoderThread {
  private inFlight = 0;
  private roomFor: (() => void) | null = null;
  private failure: Error | null = null;
  /** Between files: the last file's bytes are all out (or none was begun). */
  private done: boolean;
  /** Sink writes, chained so chunks land in order. */
  private writing: Promise<void> = Promise.resolve();
  private unwritten = 0;

  constructor(
    private readonly worker: Worker,
    private sink: ByteSink | null,
  ) {
    this.done = sink === null;
    worker.on('message', (reply: ParquetReply) => {
      switch (reply.type) {
        case 'chunk': {
          const { bytes } = reply;
          const sink = this.sink;
          this.unwritten += bytes.byteLength;
          this.writing = this.writing.then(async () => {
            await sink?.write(bytes);
            this.unwritten -= bytes.byteLength;
            this.wake();
          });
          this.writing.catch((error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))));
          break;
        }
        case 'taken':
          this.inFlight -= 1;
          this.wake();
          break;
        case 'done':
          this.done = true;
          this.wake();
          break;
        case 'failed':
          this.fail(new Error(`encoding Parquet: ${reply.message}`));
          break;
      }
    });
    worker.on('error', (error) => this.fail(new Error(`the Parquet encoding thread failed: ${error.message}`)));
    worker.on('exit', (code) => {
      if (!this.done) this.fail(new Error(`the Parquet encoding thread stopped (exit code ${code})`));
    });
  }

  /** The next file, into `sink`, on this thread once the previous file is finished (a Delta table's files share a thread). */
  beginFile(sink: ByteSink): void {
    if (!this.done) throw new Error('the encoding thread is still writing a file');
    if (this.failure) throw this.failure;
    this.sink = sink;
    this.done = false;
  }

  /** Hands a batch over; resolves once there is room for the next. */
  async send(ipc: Uint8Array): Promise<void> {
    const buffer = wholeBuffer(ipc);
    this.post({ type: 'batch', ipc }, buffer === null ? [] : [buffer]);
    this.inFlight += 1;
    await this.until(() => this.inFlight < BATCHES_IN_FLIGHT && this.unwritten <= UNWRITTEN_BYTES_LIMIT);
  }

  /** Ends the input; resolves once every byte of the file is in the sink. */
  async finish(): Promise<void> {
    this.post({ type: 'end' });
    await this.until(() => this.done);
    await this.writing;
    if (this.failure) throw this.failure;
  }

  /** Makes the pending and every later call fail with `reason`, at once rather than at the thread's next message. */
  abort(reason: Error): void {
    this.fail(reason);
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  private post(request: ParquetRequest, transfer: ArrayBuffer[] = []): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(request, transfer);
  }

  private async until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => {
        this.roomFor = resolve;
      });
    }
    if (this.failure) throw this.failure;
  }

  private wake(): void {
    const resolve = this.roomFor;
    this.roomFor = null;
    resolve?.();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake();
  }
}
