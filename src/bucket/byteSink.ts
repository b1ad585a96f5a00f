/** Where a writer puts a file's bytes: each write resolves once the bytes are out of the writer's hands. */
export interface ByteSink {
  write(chunk: Uint8Array): Promise<void>;
}
