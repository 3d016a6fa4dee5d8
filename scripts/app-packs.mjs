// The dashboard's packs (scripts/app-wasm.mjs calls this): a page's chunk
// files end to end in one file, fetched in one request when the page is the
// first on-demand one a visit opens, so none of its files is there yet.
//
// Why: wasm-split-cli gives each set of pages sharing code its own file, so
// a page's first open fetched up to 57 small files, six at a time over
// HTTP/1.1: 354 ms before the Insights page could ask for its data
// (BENCHMARKS.md). A later page fetches its missing files one by one as
// before: a pack then would bring again what the first page brought.
//
// A pack is `<u32 LE n><n bytes of JSON [[stem, length], …]><the files>`,
// named `pack_<split>-<its SHA-256, base64url>.wasm` (served and
// precompressed like every module, fetched with its integrity), so each
// file in it is the one its own name's hash names.
import { createHash } from 'node:crypto';

// Each start of a module's load is marked (`.s`): a split packs only when
// none of its shared files has been asked for. `N` fetches a file with the
// integrity its name holds; `C` serves it from a pack on its way, if one
// holds it; `P` starts a split's pack before the split's own load asks for
// its files (synchronously, in wasm-split-cli's `makeLoad`).
const RUNTIME = `const N = (f) => fetch(new URL(\`./\${f}.wasm\`, import.meta.url), { integrity: \`sha256-\${f.slice(-43).replaceAll("-", "+").replaceAll("_", "/")}=\` });
let Q = [];
const C = (f) => Q.length ? Promise.all(Q).then((ps) => { for (const p of ps) { const b = p && p.get(f); if (b) return new Response(b, { headers: { "content-type": "application/wasm" } }); } return N(f); }) : N(f);
const U = (b) => { const h = new DataView(b).getUint32(0, true), m = new Map(); let o = 4 + h; for (const [s, n] of JSON.parse(new TextDecoder().decode(new Uint8Array(b, 4, h)))) { m.set(s, new Uint8Array(b, o, n)); o += n; } return m; };
const P = (p, d, l) => () => { if (d.some((x) => x.s)) return l(); const q = N(p).then((r) => r.ok ? r.arrayBuffer() : null).then((b) => b && U(b)).catch(() => null); Q.push(q); const r = l(); r.catch(() => {}).finally(() => { Q = Q.filter((x) => x !== q); }); return r; };`;

const MARK_FROM = `    return () => {
        if (loadingModule === undefined) {`;
const MARK_TO = `    const w = () => {
        w.s = 1;
        if (loadingModule === undefined) {`;
const MARK_END_FROM = `        return loadingModule;
    }
}`;
const MARK_END_TO = `        return loadingModule;
    };
    return w;
}`;

const SPLIT = /export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(([\s\S]*?)\n, \[([^\]]*)\]\)\);/g;
const SHARED = /const (__chunk_\d+) = makeLoad\(([\s\S]*?)\n, \[\]\);/g;
const fetched = (text) => [...text.matchAll(/\bC\("([\w-]+)"\)/g)].map((m) => m[1]);

/**
 * `loader`: the chunk loader with every file's fetch already `C("<stem>")`
 * and `C` not yet defined; `bytes(stem)`: that file's contents. Returns the
 * loader with the runtime above and each split wrapped in its pack, and the
 * packs to write (`{ stem, bytes }`). Fails, through `fail`, when the
 * loader's shape is not the one this reads (a wasm-split-cli change).
 */
export function withPacks(loader, bytes, fail) {
  const once = (text, from, to, what) => {
    if (text.split(from).length !== 2) fail(`the chunk loader's ${what} is not where app-packs.mjs expects it (a wasm-split-cli change?)`);
    return text.replace(from, to);
  };
  loader = once(loader, MARK_FROM, MARK_TO, 'makeLoad');
  loader = once(loader, MARK_END_FROM, MARK_END_TO, "makeLoad's end");
  const shared = Object.fromEntries([...loader.matchAll(SHARED)].map((m) => [m[1], fetched(m[2])]));
  const packs = [];
  let splits = 0;
  loader = loader.replace(SPLIT, (whole, name, body, deps) => {
    splits++;
    const depVars = deps.split(',').map((d) => d.trim()).filter(Boolean);
    const stems = [...fetched(body), ...depVars.flatMap((d) => shared[d] ?? fail(`split ${name} names ${d}, which the loader does not define`))];
    if (depVars.length === 0 || stems.length < 2) return whole;
    const files = stems.map((s) => bytes(s));
    const index = Buffer.from(JSON.stringify(stems.map((s, i) => [s, files[i].length])));
    const head = Buffer.alloc(4);
    head.writeUInt32LE(index.length);
    const pack = Buffer.concat([head, index, ...files]);
    const stem = `pack_${name}-${createHash('sha256').update(pack).digest('base64url')}`;
    packs.push({ stem, bytes: pack, split: name, files: stems.length });
    return `export const __wasm_split_load_${name} = wrapAsyncCb(P("${stem}", [${deps}], makeLoad(${body}\n, [${deps}])));`;
  });
  if (splits === 0) fail('the chunk loader exports no split (a wasm-split-cli change?)');
  return { loader, packs, runtime: RUNTIME };
}
