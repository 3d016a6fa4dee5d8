// The storefront widget's embed script (README, "The storefront widget").
// A shop page on one of the widget's origins pastes (the app's "Storefront
// widget" page gives it with the organization's widget id):
//   <div data-parcel-widget data-widget="org_1a2b" data-weight-oz="20" data-length="10" data-width="8" data-height="4"></div>
//   <script src="https://ship.example/widget/embed.js" async></script>
// (Without data-widget it is the deployment's own widget, WIDGET_ORIGINS.)
// Each such element (also ones added later) gets the widget page in an
// iframe whose URL names the widget id and this page's origin as its shop
// (the Worker lets only that origin frame it, and only if it is one of
// that widget's origins), carries the parcel and the theme from the
// element's data attributes, and is kept as tall as its content.
// With a fallback option set, `quoted` and `chosen` may carry it with
// `fallback: true` when no carrier answered in time (no rate_id: the shop
// charges its price and ships it as it sees fit). The page's messages become DOM events on the
// element; the element gets setParcel(), setDestination() and .choice.
// Messages are taken from the widget's origin and that iframe only, and
// sent to the widget's origin only.
(() => {
  const origin = new URL(document.currentScript.src).origin;
  // iframe URL parameter → data attribute (dataset key).
  const SETTINGS = {
    'widget': 'widget', 'weight_oz': 'weightOz', 'length': 'length', 'width': 'width', 'height': 'height', 'preset': 'preset',
    'accent': 'accent', 'radius': 'radius', 'font': 'font', 'theme': 'theme',
  };
  const EVENTS = ['parcel-widget:ready', 'parcel-widget:quoted', 'parcel-widget:chosen', 'parcel-widget:cleared', 'parcel-widget:error'];
  const widgets = new Map(); // the iframe's window → its element's state

  function mount(el) {
    if (el.parcelWidgetFrame) return;
    const query = new URLSearchParams({ 'shop': location.origin });
    for (const [param, key] of Object.entries(SETTINGS)) {
      if (el.dataset[key]) query.set(param, el.dataset[key]);
    }
    const frame = document.createElement('iframe');
    frame.title = 'Shipping options';
    frame.src = `${origin}/widget/?${query}`;
    frame.style.cssText = 'border:0;width:100%;max-width:32rem;height:420px;display:block';
    el.append(frame);
    const state = { el, frame, ready: false, queue: [], choice: null, validUntil: 0 };
    widgets.set(frame.contentWindow, state);
    // Commands wait for the widget's `ready`; then go to its origin only.
    const send = (message) => {
      if (state.ready) frame.contentWindow.postMessage(message, origin);
      else state.queue.push(message);
    };
    const number = (v) => (v === undefined || v === null || v === '' ? undefined : Number(v));
    Object.defineProperties(el, {
      parcelWidgetFrame: { value: frame, configurable: true },
      // {weight_oz, length, width, height} (ounces, inches) or {preset, weight_oz}.
      setParcel: {
        configurable: true,
        value: (p = {}) => send({
          type: 'parcel-widget:set-parcel',
          parcel: {
            weight_oz: number(p.weight_oz), length: number(p.length), width: number(p.width),
            height: number(p.height), preset: p.preset ?? undefined,
          },
        }),
      },
      // {street1, city, state, zip, country?, name?, street2?}: quoted at once when complete.
      setDestination: {
        configurable: true,
        value: (address = {}) => send({ type: 'parcel-widget:set-destination', address: { ...address } }),
      },
      // The shopper's choice while its rate is valid (the widget re-quotes before it expires).
      choice: {
        configurable: true,
        get: () => (state.choice && Date.now() < state.validUntil ? structuredClone(state.choice) : null),
      },
    });
  }

  addEventListener('message', (event) => {
    const state = event.origin === origin && widgets.get(event.source);
    if (!state || typeof event.data !== 'object' || event.data === null) return;
    const { type, detail } = event.data;
    if (type === 'parcel-widget:height') {
      state.frame.style.height = `${Math.ceil(event.data.height)}px`;
      return;
    }
    if (!EVENTS.includes(type)) return;
    if (type === 'parcel-widget:ready') {
      state.ready = true;
      for (const message of state.queue.splice(0)) state.frame.contentWindow.postMessage(message, origin);
    } else if (type === 'parcel-widget:chosen') {
      state.choice = detail;
      state.validUntil = Date.now() + event.data.ttl_ms;
    } else if (type === 'parcel-widget:cleared') {
      state.choice = null;
    }
    state.el.dispatchEvent(new CustomEvent(type, { detail, bubbles: true }));
  });

  const scan = () => document.querySelectorAll('[data-parcel-widget]').forEach(mount);
  scan();
  // Shops that render their cart after this script runs.
  new MutationObserver(scan).observe(document.documentElement, { childList: true, subtree: true });
})();
