// tsc compiles only TypeScript; the numbered SQL migrations ship beside the compiled code.
import { cpSync, mkdirSync } from 'node:fs';

mkdirSync('dist/db/migrations', { recursive: true });
cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
