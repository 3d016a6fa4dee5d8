// A demo storefront: a product page on its own origin that embeds the
// widget with the one-line embed and listens to it, as a shop owner would
// (README, The storefront widget); `?widget=org_…` embeds that organization's
// widget (its id as data-widget), else the deployment's. The quantity changes the parcel through
// the element's API; "Sign in as Ada" prefills the destination; the
// checkout shows the chosen option and places the order with `choice`.
// Every widget event is also kept in `window.shopLog` (tests and benchmarks
// read it). The page's query may set the widget's data attributes
// (`?theme=dark&accent=%230a7`) and the page's `referrer-policy`.
//   node scripts/demo-shop.mjs SHOP_PORT EDGE_URL        (scripts/run)
//   import { startDemoShop } from '../scripts/demo-shop.mjs'   (tests)
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const ATTRIBUTES = ['widget', 'weight-oz', 'length', 'width', 'height', 'preset', 'accent', 'radius', 'font', 'theme'];
const POLICIES = ['no-referrer', 'origin', 'strict-origin-when-cross-origin', 'unsafe-url'];
const escape = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(edge, query) {
  const attributes = { 'weight-oz': '20', length: '10', width: '8', height: '4' };
  for (const name of ATTRIBUTES) if (query.has(name)) attributes[name] = query.get(name);
  const data = Object.entries(attributes).map(([k, v]) => ` data-${k}="${escape(v)}"`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><title>Demo shop · Blue mug</title>
<link rel="icon" href="data:,">
<style>
  body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
  .row { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; margin: 1rem 0; }
  select, button { font: inherit; padding: .4rem .8rem; }
  #checkout { border-top: 1px solid #64748b; margin-top: 1.5rem; }
</style>
</head>
<body>
<main>
<h1>Blue mug</h1>
<p>$18.00 each · 20 oz boxed, 10 × 8 × 4 in.</p>
<div class="row">
  <label for="quantity">Quantity</label>
  <select id="quantity"><option>1</option><option>2</option><option>3</option><option>4</option></select>
  <button type="button" id="sign-in">Sign in as Ada</button>
</div>
<div id="shipping-widget" data-parcel-widget${data}></div>
<section id="checkout" aria-labelledby="checkout-title">
  <h2 id="checkout-title">Checkout</h2>
  <p id="shipping" role="status">Shipping: choose an option above.</p>
  <button type="button" id="place-order" disabled>Place order</button>
  <p id="order" role="status"></p>
</section>
</main>
<script>
  const widget = document.getElementById('shipping-widget');
  const shipping = document.getElementById('shipping');
  const placeOrder = document.getElementById('place-order');
  const dollars = (cents) => '$' + (cents / 100).toFixed(2);
  window.shopLog = [];
  for (const type of ['ready', 'quoted', 'chosen', 'cleared', 'error']) {
    widget.addEventListener('parcel-widget:' + type, (event) => {
      window.shopLog.push({ type, detail: event.detail, at: performance.now() });
    });
  }
  widget.addEventListener('parcel-widget:chosen', (event) => {
    const c = event.detail;
    // The shop's own fallback (no carrier answered in time) has no carrier or date.
    shipping.textContent = c.fallback
      ? 'Shipping: ' + c.name + ', ' + dollars(c.rate_cents) + '.'
      : 'Shipping: ' + c.carrier + ' ' + c.service + ', ' + dollars(c.rate_cents) + ', arrives ' + c.carrier_eta + '.';
    placeOrder.disabled = false;
  });
  widget.addEventListener('parcel-widget:cleared', () => {
    shipping.textContent = 'Shipping: choose an option above.';
    placeOrder.disabled = true;
  });
  // The cart changed: mugs stack, 20 oz and 4 in each.
  document.getElementById('quantity').addEventListener('change', (event) => {
    const n = Number(event.target.value);
    widget.setParcel({ weight_oz: 20 * n, length: 10, width: 8, height: 4 * n });
  });
  // A logged-in customer: the widget quotes their address at once.
  document.getElementById('sign-in').addEventListener('click', () => {
    widget.setDestination({ name: 'Ada Lovelace', street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201', country: 'US' });
  });
  placeOrder.addEventListener('click', () => {
    const c = widget.choice;
    document.getElementById('order').textContent = !c
      ? 'Choose a shipping option first.'
      : c.fallback
        ? 'Order placed: ships as ' + c.name + '.'
        : 'Order placed: ships with ' + c.carrier + ' ' + c.service + ' (rate ' + c.rate_id + ').';
  });
</script>
<script src="${edge}/widget/embed.js" async></script>
</body>
</html>`;
}

/**
 * Serves the demo shop on 127.0.0.1 (`port` 0: any free port). `edge` (the
 * Worker's URL) may be set later, for a Worker that must know the shop first.
 */
export async function startDemoShop({ edge, port = 0 } = {}) {
  const shop = { edge };
  const server = http.createServer((req, res) => {
    const query = new URL(req.url, 'http://shop').searchParams;
    const headers = { 'content-type': 'text/html; charset=utf-8' };
    const policy = query.get('referrer-policy');
    if (POLICIES.includes(policy)) headers['referrer-policy'] = policy;
    res.writeHead(200, headers).end(page(shop.edge, query));
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  shop.url = `http://127.0.0.1:${server.address().port}`;
  shop.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); });
  return shop;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [port, edge] = process.argv.slice(2);
  await startDemoShop({ edge, port: Number(port) });
}
