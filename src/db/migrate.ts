import { readdirSync, readFileSync } from 'node:fs';
import type { Db } from './open.js';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const FILE_PATTERN = /^(\d{3})_[a-z0-9_]+\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The numbered SQL files beside this module, in order. An applied migration is never edited; add a new one. */
export function listMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => FILE_PATTERN.test(file))
    .sort()
    .map((file) => ({
      version: Number(FILE_PATTERN.exec(file)![1]),
      name: file,
      sql: readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8'),
    }));
}

/** Applies each pending migration in its own transaction and records it in schema_migrations. */
export function migrate(db: Db): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((row) => row.version),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done: number[] = [];
  for (const migration of listMigrations()) {
    if (applied.has(migration.version)) continue;
    // IMMEDIATE takes the write lock first, so two processes starting together cannot both apply it.
    db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version);
      if (again) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      done.push(migration.version);
    }).immediate();
  }
  return done;
}
