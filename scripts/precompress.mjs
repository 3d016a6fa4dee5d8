// Writes <file>.br (brotli, quality 11) beside each wasm module in dist/
// (the first load and the chunks): the Worker sends it to browsers that
// accept brotli (edge/src/dashboard.rs).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';

const dist = process.argv[2];
for (const file of readdirSync(dist).filter((f) => f.endsWith('.wasm'))) {
  const raw = readFileSync(path.join(dist, file));
  const br = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  });
  writeFileSync(path.join(dist, `${file}.br`), br);
}
