// A `node --test` reporter beside the usual one: each test file's wall time
// (its process's, its setup included: node reports each file's end as a
// test named by the file), kept in the file PARCEL_FILE_TIMES names as the
// run goes (--test-force-exit ends the process before a reporter's last
// words); tests/run.mjs prints it. Its groups append to the same file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export default async function* fileTimes(source) {
  const out = process.env.PARCEL_FILE_TIMES;
  if (!out) return;
  const spent = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8') || '[]') : [];
  for await (const { type, data } of source) {
    if (type !== 'test:complete' || data.nesting !== 0 || !data.file || data.name !== data.file) continue;
    spent.push([data.file, data.details.duration_ms]);
    writeFileSync(out, JSON.stringify(spent));
  }
}

/** The lines run.mjs prints: each file's time, slowest first. */
export function fileTimesReport(json) {
  const rows = JSON.parse(json || '[]').sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, ms]) => s + ms, 0);
  const lines = [`[files] ${rows.length} files, ${(total / 1000).toFixed(0)} s of their own, slowest first:`];
  for (const [file, ms] of rows) lines.push(`[files] ${(ms / 1000).toFixed(1).padStart(6)} s  ${file.replace(/^.*\/tests\//, 'tests/')}`);
  return lines.join('\n');
}
