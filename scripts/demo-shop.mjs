// A demo storefront for `scripts/run`: a product page on its own origin that
// embeds the widget page the way a shop owner would (README, The storefront
// widget). Usage: node scripts/demo-shop.mjs SHOP_PORT EDGE_URL
import http from 'node:http';

const [port, edge] = process.argv.slice(2);
const page = `<!doctype html>
<html lang="en">
<meta charset="utf-8"><title>Demo shop · Blue mug</title>
<body style="font-family: system-ui; max-width: 40rem; margin: 2rem auto">
<h1>Blue mug</h1>
<p>$18.00 · 20 oz boxed, 10 × 8 × 4 in.</p>
<iframe title="Shipping estimate" width="480" height="720" style="border: 1px solid #cbd5e1"
  src="${edge}/widget/?weight_oz=20&amp;length=10&amp;width=8&amp;height=4"></iframe>
</body>
</html>`;
http
  .createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page))
  .listen(Number(port), '127.0.0.1');
