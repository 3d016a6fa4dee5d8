// The storefront widget scenarios (tests/support/widget.mjs) run again for
// an organization's widget in Debian's Chromium: the shops embed its widget
// id, the Worker serves its settings (made in its Storefront widget
// endpoint) and quotes with its own key, and a shop it does not allow
// cannot frame or use it. The same scenarios as app-widget.test.mjs,
// so that the widget is shown to work per organization, not only
// as the deployment's own (about 20 s).
import { engines, widgetSuite } from './support/widget.mjs';

widgetSuite(engines.chromium, { org: true });
