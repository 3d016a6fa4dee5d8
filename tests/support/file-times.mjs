// A `node --test` reporter beside TAP: at the end of the run, each test
// file's wall time (files run one at a time, so a file's time is from the
// previous file's last event to its own, its setup included), slowest first.
// It tells where the test command's minutes go without rerunning anything.
export default async function* fileTimes(source) {
  const last = new Map();
  let previous = Date.now();
  let current = null;
  const spent = new Map();
  for await (const { type, data } of source) {
    if (!data?.file || !['test:pass', 'test:fail'].includes(type)) continue;
    const now = Date.now();
    if (data.file !== current) {
      if (current) previous = last.get(current);
      current = data.file;
    }
    last.set(current, now);
    spent.set(current, now - previous);
  }
  const rows = [...spent].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, ms]) => s + ms, 0);
  yield `\n[files] ${rows.length} files, ${(total / 1000).toFixed(0)} s, slowest first:\n`;
  for (const [file, ms] of rows) yield `[files] ${(ms / 1000).toFixed(1).padStart(6)} s  ${file.replace(/^.*\/tests\//, 'tests/')}\n`;
}
