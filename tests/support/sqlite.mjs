// The Durable Objects' persisted SQLite files (startEdge's `persist` dir),
// read and edited while the stack runs, for what no endpoint can do: move
// a stored time into the past, or damage a record.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Runs one SQL statement on a SQLite file with Python's sqlite3 (WAL-aware); returns the rows. */
export function sqlite(file, sql, params = []) {
  const script = 'import sqlite3, sys, json\n'
    + 'c = sqlite3.connect(sys.argv[1])\n'
    + 'rows = c.execute(sys.argv[2], json.loads(sys.argv[3])).fetchall()\n'
    + 'c.commit()\nprint(json.dumps(rows))';
  return JSON.parse(execFileSync('python3', ['-c', script, file, sql, JSON.stringify(params)]).toString());
}

/** Every SQLite file under `dir` that has a table named `table`. */
export function filesWithTable(dir, table) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.sqlite')) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    if (sqlite(file, 'SELECT name FROM sqlite_master WHERE name = ?', [table]).length) files.push(file);
  }
  return files;
}
