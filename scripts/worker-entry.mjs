// worker-build exports a Worker's fetch handler as a class behind a Proxy
// whose hooks make, for every request, the entrypoint object, a Proxy
// around it (with a copy of twelve hooks) and a Proxy around its `fetch`,
// then route `this.env` and `this.ctx` through them: about a twentieth of
// the main Worker's CPU per quote (BENCHMARKS.md, "The fetch handler
// without worker-build's proxies"). The proxies let worker-build re-make
// an object after a panic has reset the wasm; the handler holds no wasm
// state, so it needs none of that. It becomes a plain handler object with
// the same recovery around the call: after a critical error the wasm is
// reset before the next request, and a `WebAssembly.RuntimeError` thrown by
// the call marks one. The Durable Object classes keep worker-build's
// proxies. Run by scripts/build-edge on each Worker's bundle (worker-build
// 0.8.7, minified by its esbuild):
//   node scripts/worker-entry.mjs DIR   (DIR/index.js, in place)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
const fail = (message) => {
  console.error(`worker-entry: ${dir}: ${message} (a worker-build change? see scripts/worker-entry.mjs)`);
  process.exit(1);
};
if (!dir) fail('usage: node scripts/worker-entry.mjs DIR');
const file = path.join(dir, 'index.js');
let js = readFileSync(file, 'utf8');

/** The one match of `pattern` in the bundle, or the build fails naming `what`. */
function one(pattern, what) {
  const found = [...js.matchAll(new RegExp(pattern, 'g'))];
  if (found.length !== 1) fail(`${what}: ${found.length} matches of /${pattern}/`);
  return found[0];
}

const id = '[\\w$]+';
// A name as a whole word in a pattern (minified names may hold `$`).
const word = (name) => `(?<![\\w$])${name.replace(/\$/g, '\\$')}`;
const [, exported] = one(`export\\{(?:[^}]*?,)?(${id}) as default[,}]`, 'the default export');
// Already done (a build worker-build left as it was).
if (js.includes(`${exported}={fetch(request,env,ctx){`)) process.exit(0);
const proxied = one(`${word(exported)}=new Proxy\\((${id}),${id}\\)`, 'the default export made a Proxy');
const entry = proxied[1];
// The entrypoint class may carry only `fetch` (and `start`, the wasm's own
// start function, which workerd never calls on it): another handler (a
// queue's, a schedule's) would be dropped here.
const methods = [...js.matchAll(new RegExp(`${word(entry)}\\.prototype\\.(${id})=`, 'g'))].map((m) => m[1]);
const unknown = methods.filter((m) => m !== 'fetch' && m !== 'start');
if (unknown.length) fail(`the entrypoint has handlers this does not carry over: ${unknown.join(', ')}`);
const call = one(`${word(entry)}\\.prototype\\.fetch=function\\((${id})\\)\\{return (${id})\\.call\\(this,\\1,this\\.env,this\\.ctx\\)\\}`, 'the entrypoint\'s fetch')[2];
const [, reinitialize] = one(`function (${id})\\(\\)\\{${id}\\.criticalError&&\\(console\\.log\\("Reinitializing Wasm application"\\)`, 'the reset after a critical error');
const [, critical] = one(`function (${id})\\((${id})\\)\\{\\2 instanceof WebAssembly\\.RuntimeError`, 'the check for a critical error');

// As worker-build's hook for a plain function: no await, so a rejection is
// left to its `error` listener as before.
const handler = `{fetch(request,env,ctx){${reinitialize}();try{return ${call}(request,env,ctx)}catch(e){throw ${critical}(e),e}}}`;
js = js.replace(proxied[0], () => `${exported}=${handler}`);
writeFileSync(file, js);
