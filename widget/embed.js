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
// Checkout never waits on the widget: the script asks the Worker's status
// (is this page's origin one the widget lists? its fallback option) as it
// places the frame. Refused, or with no `ready` from the frame within the
// fallback's wait (8 s without one), it hides the frame, sends
// `parcel-widget:error` and, with a fallback set, shows it in the element
// and hands it over as the choice. A frame that becomes ready later takes
// over again (`cleared`, then `ready`).
(() => {
  const origin = new URL(document.currentScript.src).origin;
  // iframe URL parameter → data attribute (dataset key).
  const SETTINGS = {
    'widget': 'widget', 'weight_oz': 'weightOz', 'length': 'length', 'width': 'width', 'height': 'height', 'preset': 'preset',
    'accent': 'accent', 'radius': 'radius', 'font': 'font', 'theme': 'theme',
  };
  const EVENTS = ['parcel-widget:ready', 'parcel-widget:quoted', 'parcel-widget:chosen', 'parcel-widget:cleared', 'parcel-widget:error'];
  const STATUS_PATH = '/api/widget/status';
  const DEFAULT_WAIT_SECONDS = 8;
  const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
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
    const state = { el, frame, ready: false, queue: [], choice: null, validUntil: 0, fallenBack: null };
    widgets.set(frame.contentWindow, state);
    watch(state, el.dataset.widget, Date.now());
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

  const emit = (state, type, detail) => state.el.dispatchEvent(new CustomEvent(type, { detail, bubbles: true }));

  // Gives up on a frame that is refused or not ready in time (see the top).
  async function watch(state, widget, since) {
    const query = widget ? `?${new URLSearchParams({ widget })}` : '';
    const signal = AbortSignal.timeout(DEFAULT_WAIT_SECONDS * 1000);
    const status = await fetch(`${origin}${STATUS_PATH}${query}`, { credentials: 'omit', signal })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
    if (state.ready) return;
    const fallback = status?.fallback ?? null;
    if (status && !status.shop_allowed) {
      return fallBack(state, fallback, {
        code: 'EDGE.ORIGIN.REFUSED',
        message: `This page's origin, ${location.origin}, is not one of this widget's shop origins, so shoppers cannot see it. `
          + 'Shop owner: add it on the Storefront widget page of the dashboard (with or without www. as the address bar shows it).',
      });
    }
    const wait = (fallback?.wait_seconds ?? DEFAULT_WAIT_SECONDS) * 1000;
    setTimeout(() => {
      if (state.ready) return;
      fallBack(state, fallback, status
        ? { code: 'WIDGET.FRAME.TIMEOUT', message: `The shipping options did not load within ${wait / 1000} seconds.` }
        : { code: 'WIDGET.NETWORK.UNREACHABLE', message: 'The shipping options could not be reached.' });
    }, Math.max(0, since + wait - Date.now()));
  }

  function fallBack(state, fallback, error) {
    if (state.fallenBack) return;
    state.frame.style.display = 'none';
    const option = fallback && { fallback: true, name: fallback.name, rate_cents: fallback.price_cents };
    state.fallenBack = document.createElement('p');
    if (option) state.fallenBack.textContent = `${option.name}: ${dollars.format(option.rate_cents / 100)}`;
    state.el.append(state.fallenBack);
    emit(state, 'parcel-widget:error', { ...error, fallback: option });
    if (!option) return;
    state.choice = option;
    state.validUntil = Infinity;
    emit(state, 'parcel-widget:quoted', { fallback: true, options: [option], unavailable_carriers: [] });
    emit(state, 'parcel-widget:chosen', option);
  }

  // A frame ready after all: it takes over from the fallback.
  function recover(state) {
    state.fallenBack.remove();
    state.fallenBack = null;
    state.frame.style.display = 'block';
    if (state.choice) {
      state.choice = null;
      emit(state, 'parcel-widget:cleared', { reason: 'changed' });
    }
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
      if (state.fallenBack) recover(state);
      for (const message of state.queue.splice(0)) state.frame.contentWindow.postMessage(message, origin);
    } else if (type === 'parcel-widget:chosen') {
      state.choice = detail;
      state.validUntil = Date.now() + event.data.ttl_ms;
    } else if (type === 'parcel-widget:cleared') {
      state.choice = null;
    }
    emit(state, type, detail);
  });

  const scan = () => document.querySelectorAll('[data-parcel-widget]').forEach(mount);
  scan();
  // Shops that render their cart after this script runs.
  new MutationObserver(scan).observe(document.documentElement, { childList: true, subtree: true });
})();
