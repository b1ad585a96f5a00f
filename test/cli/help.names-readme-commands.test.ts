import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/** The rows of the README's command table: each command's name and the flags its first cell shows. */
function readmeCommands(): Array<{ name: string; flags: string[] }> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n');
  const header = readme.indexOf('| command | what it does |');
  expect(header, 'the README has a command table').toBeGreaterThan(0);
  const rows = [];
  for (const line of readme.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    // A cell may hold `\|` (alternatives such as tiny\|small); only a bare | ends it.
    const [firstCell] = line.slice(1).split(/(?<!\\)\|/);
    const name = /`(\w+)/.exec(firstCell)?.[1];
    if (name === undefined) throw new Error(`no command in the README row ${line}`);
    rows.push({ name, flags: [...new Set(firstCell.match(/--[a-z][a-z-]*/g) ?? [])] });
  }
  return rows;
}

describe('the top-level --help', () => {
  it('names every command and every flag of the README command table, --to of export included', async () => {
    const result = await runCli(['--help']);
    expect(result.code, result.stderr).toBe(0);
    const helpLine = new Map(
      result.stdout
        .split('\n')
        .map((line) => /^ {2}(\w+) +(.*)$/.exec(line))
        .filter((match) => match !== null)
        .map((match) => [match[1], match[2]]),
    );
    const rows = readmeCommands();
    expect(rows.find((row) => row.name === 'export')?.flags).toContain('--to');
    for (const { name, flags } of rows) {
      const line = helpLine.get(name);
      expect(line, `--help lists ${name}`).toBeDefined();
      for (const flag of flags) expect(line, `--help's ${name} line names ${flag}`).toMatch(new RegExp(`${flag}(?![a-z-])`));
    }
    // And the other way round: the README documents every command --help offers.
    expect([...helpLine.keys()].sort()).toEqual([...new Set(rows.map((row) => row.name))].sort());
  });
});
