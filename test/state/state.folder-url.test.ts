import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, sentences } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

describe('state.url=file://', () => {
  const envFor = (stateUrl: string) => {
    const dir = tempDir('loyalty-folder-url-');
    return { LOYALTY_API_KEY: 'k', LOYALTY_BASE_URL: 'http://127.0.0.1:9', LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_STATE_URL: stateUrl };
  };

  it('refuses a path that is not absolute, a host name and a query, with one sentence naming the key, and exits 2', async () => {
    for (const url of ['file://state', 'file://relative/state', 'file://files.example.com/srv/state', 'file:state', 'file:///tmp/state?x=1']) {
      const result = await runCli(['sync'], { env: envFor(url) });
      expect(result.code, `${url}: ${result.stderr}`).toBe(2);
      expect(sentences(result.stderr).trim()).toMatch(new RegExp(`^loyalty-sync: Config key "state\\.url" \\(or LOYALTY_STATE_URL\\) is "${url.replace(/[?.]/g, '\\$&')}"; expected file:///ABSOLUTE/PATH[^\\n]*\\.$`));
    }
  });

  it('refuses a folder that cannot be created with one sentence naming it, and exits 1', async () => {
    const parent = join(tempDir('loyalty-folder-url-'), 'read-only');
    mkdirSync(parent, { mode: 0o500 });
    const folder = join(parent, 'state');
    const result = await runCli(['queue', 'list'], { env: envFor(pathToFileURL(folder).href), boundByFileModes: true });
    chmodSync(parent, 0o700);
    expect(result.code, result.stderr).toBe(1);
    expect(sentences(result.stderr).trim()).toBe(
      `loyalty-sync: Config key "state.url" (or LOYALTY_STATE_URL) is "${pathToFileURL(folder).href}", but the folder ${folder} cannot be created: EACCES: permission denied, mkdir '${folder}'.`,
    );
  });
});
