// wasm-bindgen names each JS function a module imports
// `__wbg_<name>_<16 hex digits>`, once in the module's import section and
// once as a key of the bindings' import object: hashes that compress
// nowhere (the dashboard's 227 were about 5 KB brotli of its first load,
// the main Worker's 159 are 5.6 KiB gzip of its upload). Each becomes a
// short name in both. Used by scripts/app-wasm.mjs on the dashboard's main
// module and, as a command, by scripts/build-edge on the main Worker:
//   node scripts/wasm-imports.mjs DIR   (worker-build's DIR/index_bg.wasm and DIR/index.js, in place)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `wasm` with its imports from `module` named `_0`, `_1`, … and `js` (the
 * bindings, holding each name once as a key of the import object) to
 * match; a name the bindings do not hold exactly once fails (`fail`).
 */
export function shortImports(wasm, js, module, fail) {
  let at = 8;
  const leb = () => {
    let value = 0, shift = 0, byte;
    do { byte = wasm[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
    return value;
  };
  const encode = (n) => {
    const out = [];
    do { let byte = n & 0x7f; n = Math.floor(n / 128); if (n) byte |= 0x80; out.push(byte); } while (n);
    return Buffer.from(out);
  };
  const name = () => { const len = leb(); const s = wasm.subarray(at, at + len).toString(); at += len; return s; };
  const limits = () => { const flags = wasm[at++]; leb(); if (flags & 1) leb(); };
  while (at < wasm.length) {
    const start = at, id = wasm[at++], size = leb(), body = at;
    if (id !== 2) { at = body + size; continue; }
    const parts = [];
    let renamed = 0;
    for (let i = 0, count = leb(); i < count; i++) {
      const mod = name(), field = name(), descStart = at, kind = wasm[at++];
      if (kind === 0) leb();
      else if (kind === 1) { at++; limits(); }
      else if (kind === 2) limits();
      else if (kind === 3) at += 2;
      else if (kind === 4) { at++; leb(); } // a tag: attribute, type
      else fail(`import ${mod} ${field}: unknown kind ${kind}`);
      let short = field;
      if (mod === module && field.startsWith('__wbg_')) {
        short = `_${(renamed++).toString(36)}`;
        const key = new RegExp(`(?<=[\\s{,])${field}(?=:)`, 'g');
        if ((js.match(key) ?? []).length !== 1) fail(`the bindings do not hold ${field} once as a key (a wasm-bindgen change?)`);
        js = js.replace(key, short);
      }
      const text = (s) => Buffer.concat([encode(Buffer.byteLength(s)), Buffer.from(s)]);
      parts.push(text(mod), text(short), wasm.subarray(descStart, at));
    }
    if (at !== body + size) fail('the import section did not parse to its end');
    const section = Buffer.concat([encode(parts.length / 3), ...parts]);
    return { wasm: Buffer.concat([wasm.subarray(0, start), Buffer.from([2]), encode(section.length), section, wasm.subarray(at)]), js };
  }
  fail('the main module has no import section');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  const fail = (message) => {
    console.error(`wasm-imports: ${dir}: ${message}`);
    process.exit(1);
  };
  if (!dir) fail('usage: node scripts/wasm-imports.mjs DIR');
  const [wasmFile, jsFile] = [path.join(dir, 'index_bg.wasm'), path.join(dir, 'index.js')];
  const { wasm, js } = shortImports(readFileSync(wasmFile), readFileSync(jsFile, 'utf8'), './index_bg.js', fail);
  writeFileSync(wasmFile, wasm);
  writeFileSync(jsFile, js);
}
