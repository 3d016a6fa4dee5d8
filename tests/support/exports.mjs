// Store order exports as the stores write them: their own column sets and
// value forms, not our template (issue 19, part 4). Sources:
// - WooCommerce: the Customer/Order CSV Export extension's order columns
//   (`get_column_data_options('orders')`), one row per item. Its generator
//   writes `shipping_state` as the state's name (`get_localized_state`:
//   "Florida"), `shipping_state_code` as the code, `shipping_country` as the
//   two-letter code.
// - Etsy: "Sold Orders" (EtsySoldOrders*.csv), one row per order:
//   `Ship State` a code in the US, `Ship Country` a name ("United States").
// - Shopify: the orders export (orders_export.csv): further line items of an
//   order are rows with its `Name` and the item's columns only; ZIP codes
//   carry a leading apostrophe (`'02134`) so spreadsheets keep the zero;
//   `Shipping Province` is the code, `Shipping Province Name` the name.

export const WOO_HEADER = [
  'order_id', 'order_number', 'order_number_formatted', 'order_date', 'status', 'shipping_total', 'shipping_tax_total',
  'fee_total', 'fee_tax_total', 'tax_total', 'discount_total', 'order_total', 'refunded_total', 'order_currency',
  'payment_method', 'shipping_method', 'customer_id', 'billing_first_name', 'billing_last_name', 'billing_full_name',
  'billing_company', 'billing_email', 'billing_phone', 'billing_address_1', 'billing_address_2', 'billing_postcode',
  'billing_city', 'billing_state', 'billing_state_code', 'billing_country', 'shipping_first_name', 'shipping_last_name',
  'shipping_full_name', 'shipping_address_1', 'shipping_address_2', 'shipping_postcode', 'shipping_city',
  'shipping_state', 'shipping_state_code', 'shipping_country', 'shipping_company', 'customer_note', 'item_id',
  'item_product_id', 'item_name', 'item_sku', 'item_quantity', 'item_subtotal', 'item_subtotal_tax', 'item_total',
  'item_total_tax', 'item_refunded', 'item_refunded_qty', 'item_meta', 'shipping_items', 'fee_items', 'tax_items',
  'coupon_items', 'order_notes', 'download_permissions',
];

/** Where the orders go: [state name, code, ZIP code, city]. */
export const US_PLACES = [
  ['Florida', 'FL', '33139', 'Miami Beach'],
  ['New York', 'NY', '10016', 'New York'],
  ['California', 'CA', '94110', 'San Francisco'],
  ['Texas', 'TX', '78701', 'Austin'],
  ['Massachusetts', 'MA', '02134', 'Boston'],
];

/**
 * `orders` WooCommerce orders, one row per item: every `multi`th order has
 * a second item, its order columns repeated as the extension writes them.
 */
export function wooRows(orders, { multi = 5 } = {}) {
  const out = [];
  for (let n = 1; n <= orders; n++) {
    const [state, code, zip, city] = US_PLACES[n % US_PLACES.length];
    const id = String(3000 + n);
    const order = [
      id, id, '', '2026-11-20 14:03:11', 'processing', '5.00', '0.00', '0.00', '0.00', '1.60', '0.00', '26.60', '0.00', 'USD',
      'stripe', 'Flat rate', String(40 + n), 'Ada', `Buyer${n}`, `Ada Buyer${n}`, '', `ada${n}@example.com`, '555-0100',
      `${n} Billing Rd`, '', zip, city, state, code, 'US', 'Ada', `Buyer${n}`, `Ada Buyer${n}`, `${n} Ocean Dr`,
      n % 3 ? '' : `Apt ${n}`, zip, city, state, code, 'US', '', '',
    ];
    const items = n % multi ? [['Mug', 'MUG-1']] : [['Mug', 'MUG-1'], ['Tea', 'TEA-2']];
    items.forEach(([name, sku], i) => out.push([
      ...order, String(900 + 2 * n + i), '77', name, sku, '1', '10.00', '0.80', '10.00', '0.80', '0.00', '0', '',
      'method_id:flat_rate|method_title:Flat rate|total:5.00', '', 'id:1|rate_id:1|code:US-TAX-1|title:Tax|total:1.60|compound:', '', '', '1',
    ]));
  }
  return out;
}

export const ETSY_HEADER = [
  'Sale Date', 'Order ID', 'Buyer User ID', 'Full Name', 'First Name', 'Last Name', 'Number of Items', 'Payment Method',
  'Date Shipped', 'Street 1', 'Street 2', 'Ship City', 'Ship State', 'Ship Zipcode', 'Ship Country', 'Currency',
  'Order Value', 'Coupon Code', 'Coupon Details', 'Discount Amount', 'Shipping Discount', 'Shipping', 'Sales Tax',
  'Order Total', 'Status', 'Card Processing Fees', 'Order Net', 'Adjusted Order Total', 'Adjusted Card Processing Fees',
  'Adjusted Net Order Amount', 'Buyer', 'Order Type', 'Payment Type', 'InPerson Discount', 'InPerson Location', 'SKU',
];

/** `n` Etsy sold orders to the US, `Ship Country` written out as Etsy does. */
export function etsyRows(n) {
  return Array.from({ length: n }, (_, i) => {
    const [, code, zip, city] = US_PLACES[i % US_PLACES.length];
    return [
      '11/20/26', String(3812345600 + i), String(70000 + i), `Martha Buyer${i}`, 'Martha', `Buyer${i}`, '1', 'Credit Card',
      '', `${i + 1} S 3rd St`, '', city, code, zip, 'United States', 'USD', '38.99', '', '', '0.00', '0.00', '8.00', '0.00',
      '46.99', '', '1.66', '45.33', '', '', '', `martha${i}`, 'online', 'online_cc', '', '', 'BAT-1',
    ];
  });
}

export const SHOPIFY_HEADER = [
  'Name', 'Email', 'Financial Status', 'Paid at', 'Fulfillment Status', 'Fulfilled at', 'Accepts Marketing', 'Currency',
  'Subtotal', 'Shipping', 'Taxes', 'Total', 'Discount Code', 'Discount Amount', 'Shipping Method', 'Created at',
  'Lineitem quantity', 'Lineitem name', 'Lineitem price', 'Lineitem compare at price', 'Lineitem sku',
  'Lineitem requires shipping', 'Lineitem taxable', 'Lineitem fulfillment status', 'Billing Name', 'Billing Street',
  'Billing Address1', 'Billing Address2', 'Billing Company', 'Billing City', 'Billing Zip', 'Billing Province',
  'Billing Country', 'Billing Phone', 'Shipping Name', 'Shipping Street', 'Shipping Address1', 'Shipping Address2',
  'Shipping Company', 'Shipping City', 'Shipping Zip', 'Shipping Province', 'Shipping Country', 'Shipping Phone', 'Notes',
  'Note Attributes', 'Cancelled at', 'Payment Method', 'Payment Reference', 'Refunded Amount', 'Vendor',
  'Outstanding Balance', 'Employee', 'Location', 'Device ID', 'Id', 'Tags', 'Risk Level', 'Source', 'Lineitem discount',
  'Tax 1 Name', 'Tax 1 Value', 'Tax 2 Name', 'Tax 2 Value', 'Tax 3 Name', 'Tax 3 Value', 'Tax 4 Name', 'Tax 4 Value',
  'Tax 5 Name', 'Tax 5 Value', 'Phone', 'Receipt Number', 'Duties', 'Billing Province Name', 'Shipping Province Name',
  'Payment ID', 'Payment Terms Name', 'Next Payment Due At', 'Payment References',
];

/** A Shopify order's first row, and the rows of its further line items. */
export function shopifyOrder(n, [state, code, zip, city], items = ['Mug']) {
  const cell = Object.fromEntries(SHOPIFY_HEADER.map((h) => [h, '']));
  const first = {
    ...cell, Name: `#10${n}`, Email: `c${n}@example.com`, 'Financial Status': 'paid', 'Paid at': '2026-11-20 10:15:00 -0500',
    'Accepts Marketing': 'no', Currency: 'USD', Subtotal: '25.00', Shipping: '5.00', Taxes: '0.00', Total: '30.00',
    'Shipping Method': 'Standard', 'Created at': '2026-11-20 10:14:00 -0500', 'Lineitem quantity': '1', 'Lineitem name': items[0],
    'Lineitem price': '25.00', 'Lineitem requires shipping': 'true', 'Lineitem taxable': 'true', 'Lineitem fulfillment status': 'pending',
    'Billing Name': `Shopper ${n}`, 'Billing Street': `${n} Elm St`, 'Billing Address1': `${n} Elm St`, 'Billing City': city,
    'Billing Zip': `'${zip}`, 'Billing Province': code, 'Billing Country': 'US', 'Shipping Name': `Shopper ${n}`,
    'Shipping Street': `${n} Elm St`, 'Shipping Address1': `${n} Elm St`, 'Shipping City': city, 'Shipping Zip': `'${zip}`,
    'Shipping Province': code, 'Shipping Country': 'US', 'Payment Method': 'Shopify Payments', Id: String(5550000000 + n),
    'Risk Level': 'Low', Source: 'web', 'Lineitem discount': '0.00', 'Billing Province Name': state, 'Shipping Province Name': state,
  };
  const further = items.slice(1).map((name) => ({
    ...cell, Name: `#10${n}`, Email: `c${n}@example.com`, 'Lineitem quantity': '1', 'Lineitem name': name,
    'Lineitem price': '5.00', 'Lineitem requires shipping': 'true', 'Lineitem taxable': 'true', 'Lineitem fulfillment status': 'pending',
  }));
  return [first, ...further].map((row) => SHOPIFY_HEADER.map((h) => row[h]));
}
