import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe("the project's npm install-script approvals (package.json allowScripts)", () => {
  it('cover every installed dependency that has an install script, so a stricter npm still builds better-sqlite3', () => {
    // npm releases that block unapproved install scripts would otherwise skip the mirror's native driver.
    const output = execFileSync('npm', ['install-scripts', 'ls', '--json'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pending = (JSON.parse(output) as { allowScripts: Array<{ name: string }> }).allowScripts.map((entry) => entry.name);
    expect(pending).toEqual([]);
  });
});
