// The storefront widget's embed script (README, "The storefront widget").
// A shop page on a WIDGET_ORIGINS origin pastes:
//   <div data-parcel-widget data-weight-oz="20" data-length="10" data-width="8" data-height="4"></div>
//   <script src="https://ship.example/widget/embed.js" async></script>
// Each such element gets the widget page in an iframe (the parcel in its
// URL, ounces and inches), kept as tall as its content: the page reports
// its height to this window only (postMessage to the shop's origin).
(() => {
  const origin = new URL(document.currentScript.src).origin;
  const PARAMS = { weight_oz: 'weightOz', length: 'length', width: 'width', height: 'height' };
  for (const el of document.querySelectorAll('[data-parcel-widget]')) {
    if (el.querySelector('iframe')) continue;
    const query = new URLSearchParams();
    for (const [param, key] of Object.entries(PARAMS)) query.set(param, el.dataset[key] ?? '');
    const frame = document.createElement('iframe');
    frame.title = 'Shipping estimate';
    frame.src = `${origin}/widget/?${query}`;
    frame.style.cssText = 'border:0;width:100%;max-width:32rem;height:420px;display:block';
    el.append(frame);
  }
  addEventListener('message', (event) => {
    if (event.origin !== origin || event.data?.type !== 'parcel-widget:height') return;
    for (const frame of document.querySelectorAll('[data-parcel-widget] iframe')) {
      if (frame.contentWindow === event.source) frame.style.height = `${Math.ceil(event.data.height)}px`;
    }
  });
})();
