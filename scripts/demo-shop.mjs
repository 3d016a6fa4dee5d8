// A demo storefront for `scripts/run`: a product page on its own origin that
// embeds the widget with the one-line embed, as a shop owner would (README,
// The storefront widget). Usage: node scripts/demo-shop.mjs SHOP_PORT EDGE_URL
import http from 'node:http';

const [port, edge] = process.argv.slice(2);
const page = `<!doctype html>
<html lang="en">
<meta charset="utf-8"><title>Demo shop · Blue mug</title>
<body style="font-family: system-ui; max-width: 40rem; margin: 2rem auto">
<h1>Blue mug</h1>
<p>$18.00 · 20 oz boxed, 10 × 8 × 4 in.</p>
<div data-parcel-widget data-weight-oz="20" data-length="10" data-width="8" data-height="4"></div>
<script src="${edge}/widget/embed.js" async></script>
</body>
</html>`;
http
  .createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page))
  .listen(Number(port), '127.0.0.1');
