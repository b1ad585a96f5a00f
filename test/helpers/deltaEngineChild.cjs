// Runs SQL through chdb in a process of its own (see deltaEngine.ts): chdb reads only under the process's
// working directory, and the tables live under /tmp, so this process works from '/' and the test process
// keeps its own directory. argv[2] is the chdb package's folder; stdin holds a JSON array of statements.
// stdout gets one JSON array, with per statement either { text } (its output, in the format its FORMAT clause
// names, else JSONEachRow) or { error }.
'use strict';
const { readFileSync } = require('node:fs');

const { query } = require(process.argv[2]);
process.chdir('/');
const statements = JSON.parse(readFileSync(0, 'utf8'));
const answers = statements.map((sql) => {
  try {
    return { text: query(sql, 'JSONEachRow') };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
});
process.stdout.write(JSON.stringify(answers));
