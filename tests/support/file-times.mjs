// A `node --test` reporter beside the usual one: each test file's wall time
// (files run one at a time, so a file's time runs from the previous file's
// last result to its own last, its setup included), kept in the file
// PARCEL_FILE_TIMES names as the run goes (--test-force-exit ends the
// process before a reporter's last words); tests/run.mjs prints it.
import { writeFileSync } from 'node:fs';

export default async function* fileTimes(source) {
  const out = process.env.PARCEL_FILE_TIMES;
  const last = new Map();
  const spent = new Map();
  let previous = Date.now();
  let current = null;
  for await (const { type, data } of source) {
    if (!out || !data?.file || !['test:pass', 'test:fail'].includes(type)) continue;
    const now = Date.now();
    if (data.file !== current) {
      if (current) previous = last.get(current);
      current = data.file;
    }
    last.set(current, now);
    spent.set(current, now - previous);
    writeFileSync(out, JSON.stringify([...spent]));
  }
}

/** The lines run.mjs prints: each file's time, slowest first. */
export function fileTimesReport(json) {
  const rows = JSON.parse(json || '[]').sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, ms]) => s + ms, 0);
  const lines = [`[files] ${rows.length} files, ${(total / 1000).toFixed(0)} s, slowest first:`];
  for (const [file, ms] of rows) lines.push(`[files] ${(ms / 1000).toFixed(1).padStart(6)} s  ${file.replace(/^.*\/tests\//, 'tests/')}`);
  return lines.join('\n');
}
