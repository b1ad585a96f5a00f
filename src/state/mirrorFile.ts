import { statSync } from 'node:fs';
import { StateError } from './errors.js';

/** A file as the filesystem knows it, whatever name it has now. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

export function identityOf(path: string): FileIdentity | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat === undefined ? null : { dev: stat.dev, ino: stat.ino };
}

/**
 * The mirror file a session writes, taken when its writer was opened. A save reads the mirror by its
 * path; when the path no longer holds that file (deleted by a temp cleaner, renamed, replaced by
 * another process's copy), a save would upload nothing or the wrong file while the run goes on sending
 * writes: it must fail instead, so that no write is sent that no save records.
 */
export class MirrorFile {
  private constructor(
    readonly path: string,
    private readonly identity: FileIdentity,
  ) {}

  /** The file at `path` now; call right after opening the writer on it. */
  static at(path: string): MirrorFile {
    const identity = identityOf(path);
    if (identity === null) throw new StateError(`The mirror ${path} vanished as it was opened; nothing of this run can be saved.`);
    return new MirrorFile(path, identity);
  }

  /** Throws the one sentence a user reads when the path lost the file this run writes. */
  check(): void {
    const now = identityOf(this.path);
    if (now === null) {
      throw new StateError(`The mirror ${this.path} was deleted or renamed while this run used it; nothing more is saved or sent, and the next run restores the state last saved.`);
    }
    if (now.dev !== this.identity.dev || now.ino !== this.identity.ino) {
      throw new StateError(`The mirror ${this.path} was replaced by another file while this run used it; nothing more is saved or sent, and the next run restores the state last saved.`);
    }
  }
}
