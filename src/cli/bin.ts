#!/usr/bin/env node
/**
 * The command's entry point. It checks the Node.js version before anything else is loaded: the
 * mirror's native driver (better-sqlite3 13) crashes an older Node with a segmentation fault while
 * loading, so a check after the imports would never get to speak. Nothing imported statically here
 * may load native code, which is why the CLI itself is imported only once the check has passed.
 */
import { unsupportedNodeMessage } from './nodeVersion.js';

const refusal = unsupportedNodeMessage(process.versions.node);
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`);
  process.exitCode = 2;
} else {
  await import('./index.js');
}
