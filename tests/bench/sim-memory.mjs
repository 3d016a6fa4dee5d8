// Buys exactly N sandbox labels (default 100,000) from one quoted rate over 8
// keep-alive connections and prints the simulator's RSS before and after.
//   node tests/bench/sim-memory.mjs <sim url> <pid> <sandbox key> [N]
import http from 'node:http';
import { readFileSync } from 'node:fs';

const [url, pid, key, nArg] = process.argv.slice(2);
const total = Number(nArg || 100000);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const post = (path, body) => new Promise((resolve, reject) => {
  const data = JSON.stringify(body);
  const req = http.request(url + path, { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
    let text = '';
    res.on('data', (c) => { text += c; });
    res.on('end', () => resolve({ status: res.statusCode, text }));
  });
  req.on('error', reject);
  req.end(data);
});

const address = (name, street, zip, state) => ({ name, street1: street, city: 'X', state, zip, country: 'US' });
const quote = await post('/v1/rates', {
  from_address: address('Ada Shop Inc', '500 Market St Suite 3', '94105', 'CA'),
  to_address: address('Grace Hopper', '12 Elm St', '11201', 'NY'),
  parcel: { weight_oz: 20, length: 10, width: 8, height: 4 },
});
const rateId = JSON.parse(quote.text).rates[0].id;
const before = rss();
const started = Date.now();
let next = 0, ok = 0;
await Promise.all(Array.from({ length: 8 }, async () => {
  while (next < total) {
    next += 1;
    const r = await post('/v1/labels', { rate_id: rateId });
    if (r.status === 201) ok += 1;
  }
}));
const after = rss();
const seconds = (Date.now() - started) / 1000;
console.log(`Memory: RSS ${before} KiB before, ${after} KiB after ${ok} label purchases (${Math.round((after - before) * 1024 / ok)} bytes per label); ${Math.round(ok / seconds)} purchases/s over 8 connections.`);
agent.destroy();
