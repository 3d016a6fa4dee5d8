// The storefront widget in Debian's Firefox ESR (puppeteer-core over
// WebDriver BiDi): the scenarios both engines run (tests/support/widget.mjs),
// so the widget works without `location.ancestorOrigins`, whatever the
// shop's Referrer-Policy; then axe-core inside the widget in both themes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { engines, widgetSuite, openShop, widgetFrame, getOptions, shopEvent } from './support/widget.mjs';

const ctx = widgetSuite(engines.firefox);

test('axe finds no serious or critical issue inside the widget, light and dark', async () => {
  const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  for (const query of ['', 'theme=dark&accent=%23ffd60a']) {
    const s = await openShop(ctx.engine, ctx.browser, ctx.stack.shop, query);
    try {
      const frame = await widgetFrame(s);
      await frame.locator('form.widget-form button[type="submit"]').click();
      await getOptions(frame, { street1: '12 Elm St', city: 'Brooklyn', state: 'NY', zip: '11201' });
      await frame.locator('label.widget-option:nth-of-type(1) input').click();
      await shopEvent(s, 'chosen');
      // axe-core runs inside the widget's own document.
      await frame.evaluate(axe);
      const result = await frame.evaluate(async () => {
        const r = await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] });
        return {
          serious: r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
          contrastChecked: r.passes.some((p) => p.id === 'color-contrast'),
        };
      });
      assert.deepEqual(result.serious, [], query);
      assert.ok(result.contrastChecked, 'contrast was checked');
    } finally {
      await s.close();
    }
  }
});
