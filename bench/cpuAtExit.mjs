// Preloaded into a measured child (node --import bench/cpuAtExit.mjs ...): at exit it writes the process's
// CPU time, { user, system } in microseconds, to file descriptor 3, which the benchmark opened as a pipe.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(3, JSON.stringify(process.cpuUsage()));
});
