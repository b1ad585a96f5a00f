import { readdir, realpath, rm, rmdir } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { Logger } from '../log.js';

/**
 * The export folder as the export's deletes see it. The paths they take come from manifests and folder
 * listings, which anyone with write access to a shared volume can plant, so every delete and every
 * listing that leads to one goes through here: a folder is used only when, with every symlink on the way
 * resolved, it is the export folder or lies inside it, and a file is removed as a name (unlink never
 * follows a final symlink). Paths are relative, with forward slashes, as in manifests.
 */
export class ExportFolder {
  private constructor(
    readonly root: string,
    private readonly realRoot: string,
    private readonly logger: Logger,
  ) {}

  static async open(root: string, logger: Logger): Promise<ExportFolder> {
    return new ExportFolder(root, await realpath(root), logger);
  }

  /** The names in folder `relative`: none when it does not exist, or when it leads out of the export folder (with a warning). */
  async list(relative: string): Promise<string[]> {
    const where = await this.resolve(relative);
    if (where !== 'inside') return [];
    try {
      return await readdir(join(this.root, relative));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Removes file `relative` (absent is fine); false, with a warning, when its folder leads out of the export folder. */
  async remove(relative: string): Promise<boolean> {
    const folder = dirname(relative);
    const where = await this.resolve(folder);
    if (where === 'outside') return false;
    if (where === 'inside') await rm(join(this.root, relative), { force: true });
    return true;
  }

  /** Removes folder `relative` if it is empty and inside the export folder. */
  async removeIfEmpty(relative: string): Promise<void> {
    if ((await this.resolve(relative)) !== 'inside') return;
    try {
      await rmdir(join(this.root, relative));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
  }

  private async resolve(relative: string): Promise<'inside' | 'outside' | 'missing'> {
    let real: string;
    try {
      real = await realpath(join(this.root, relative));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
      throw error;
    }
    if (real === this.realRoot || real.startsWith(this.realRoot + sep)) return 'inside';
    this.logger.warn({ path: relative }, `left ${relative} alone: it leads out of the export folder ${this.root} through a symlink, and an export deletes only inside its folder`);
    return 'outside';
  }
}
