use crate::components::dates::calendar_day;
use crate::components::money::Money;
use crate::state::clock::{Clock, mm_ss};
use api::{AccountType, Rate};
use leptos::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Price,
    Delivery,
    Carbon,
}

/// The rates to show: carriers in `hidden` left out, sorted by `key` (ties
/// by price, then by the upstream's order, which is cheapest first).
pub fn arrange(rates: &[Rate], key: SortKey, hidden: &[String]) -> Vec<Rate> {
    let mut shown: Vec<Rate> = rates
        .iter()
        .filter(|r| !hidden.contains(&r.carrier))
        .cloned()
        .collect();
    match key {
        SortKey::Price => shown
            .sort_by(|a, b| (a.rate_cents, &a.carrier_eta).cmp(&(b.rate_cents, &b.carrier_eta))),
        SortKey::Delivery => shown
            .sort_by(|a, b| (&a.carrier_eta, a.rate_cents).cmp(&(&b.carrier_eta, b.rate_cents))),
        SortKey::Carbon => shown.sort_by_key(|r| (r.carbon_grams, r.rate_cents)),
    }
    shown
}

/// Carriers in the order they first appear.
pub fn carriers(rates: &[Rate]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rates {
        if !out.contains(&r.carrier) {
            out.push(r.carrier.clone());
        }
    }
    out
}

/// `850 g`, `1.2 kg` (integer arithmetic, rounded down to 100 g).
pub fn carbon(grams: i64) -> String {
    if grams < 1000 {
        format!("{grams} g")
    } else {
        format!("{}.{} kg", grams / 1000, (grams % 1000) / 100)
    }
}

/// Every carrier's rates in one table: sortable, filterable, each with its
/// validity counting down. Expired rates cannot be bought; one click re-quotes.
#[component]
pub fn RateTable(
    rates: Vec<Rate>,
    /// When this quote stops being buyable (browser clock, ms).
    deadline_ms: f64,
    /// Whether the user's role may buy (labels:write); otherwise no buy buttons.
    can_buy: bool,
    on_buy: Callback<Rate>,
    on_requote: Callback<()>,
    /// A purchase is in flight: every buy button waits.
    #[prop(into)]
    busy: Signal<bool>,
) -> impl IntoView {
    let clock = Clock::get();
    let sort = RwSignal::new(SortKey::Price);
    let hidden = RwSignal::new(Vec::<String>::new());
    let all_carriers = carriers(&rates);
    let rates = StoredValue::new(rates);
    let left = clock.seconds_until(deadline_ms);
    let expired = Memo::new(move |_| left.get() == 0);
    let filters = all_carriers
        .into_iter()
        .map(|c| {
            let id = format!("carrier-{}", c.to_lowercase().replace(' ', "-"));
            let name = c.clone();
            view! {
                <label class="check">
                    <input
                        type="checkbox"
                        id=id
                        prop:checked=move || !hidden.with(|h| h.contains(&name))
                        on:change={
                            let c = c.clone();
                            move |ev| {
                                let on = event_target_checked(&ev);
                                hidden.update(|h| {
                                    h.retain(|x| x != &c);
                                    if !on {
                                        h.push(c.clone());
                                    }
                                });
                            }
                        }
                    />
                    {c.clone()}
                </label>
            }
        })
        .collect_view();
    let rows = move || {
        let shown = rates.with_value(|r| hidden.with(|h| arrange(r, sort.get(), h)));
        if shown.is_empty() {
            return view! { <tr><td colspan="8">"No rates from the selected carriers."</td></tr> }
                .into_any();
        }
        shown
            .into_iter()
            .map(|rate| {
                let name = format!("{} {}", rate.carrier, rate.service);
                let buy_label = format!("Buy {name} for {}", crate::components::money::format_cents(rate.rate_cents));
                let account = match rate.account_type {
                    AccountType::Platform => view! { <span class="badge">"Platform"</span> }.into_any(),
                    AccountType::Byoa => view! { <span class="badge badge-byoa">"Your account"</span> }.into_any(),
                };
                let eta = calendar_day(&rate.carrier_eta);
                let rate_for_buy = rate.clone();
                view! {
                    <tr data-rate-id=rate.id.clone()>
                        <td data-label="Carrier">{rate.carrier.clone()}</td>
                        <td data-label="Service">{rate.service.clone()}</td>
                        <td data-label="Account">{account}</td>
                        <td data-label="Price" class="num"><Money cents=rate.rate_cents /></td>
                        <td data-label="Delivery"><time datetime=rate.carrier_eta.clone()>{eta}</time></td>
                        <td data-label="Carbon" class="num">{carbon(rate.carbon_grams)}</td>
                        <td data-label="Valid for" class="num">
                            {move || if expired.get() { "Expired".to_string() } else { mm_ss(left.get()) }}
                        </td>
                        {can_buy.then(|| view! {
                            <td class="action">
                                <button
                                    type="button"
                                    aria-label=buy_label
                                    disabled=move || expired.get() || busy.get()
                                    on:click=move |_| on_buy.run(rate_for_buy.clone())
                                >
                                    "Buy"
                                </button>
                            </td>
                        })}
                    </tr>
                }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <section class="rates" aria-labelledby="rates-title">
            <h2 id="rates-title">"Rates"</h2>
            {move || expired.get().then(|| view! {
                <div class="notice notice-warn" role="alert">
                    <p>"These rates have expired: a rate can be bought for 15 minutes after it is quoted."</p>
                    <button type="button" on:click=move |_| on_requote.run(())>"Get new rates"</button>
                </div>
            })}
            <div class="rate-tools">
                <div class="field">
                    <label for="rate-sort">"Sort by"</label>
                    <select
                        id="rate-sort"
                        on:change=move |ev| sort.set(match event_target_value(&ev).as_str() {
                            "delivery" => SortKey::Delivery,
                            "carbon" => SortKey::Carbon,
                            _ => SortKey::Price,
                        })
                    >
                        <option value="price">"Price (cheapest first)"</option>
                        <option value="delivery">"Delivery date (soonest first)"</option>
                        <option value="carbon">"Carbon (lowest first)"</option>
                    </select>
                </div>
                <fieldset class="carrier-filter">
                    <legend>"Carriers"</legend>
                    {filters}
                </fieldset>
            </div>
            <div class="table-wrap">
                <table class="rate-table">
                    <caption class="visually-hidden">"Rates from every carrier"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Carrier"</th>
                            <th scope="col">"Service"</th>
                            <th scope="col">"Account"</th>
                            <th scope="col" class="num">"Price"</th>
                            <th scope="col">"Delivery"</th>
                            <th scope="col" class="num">"Carbon"</th>
                            <th scope="col" class="num">"Valid for"</th>
                            {can_buy.then(|| view! { <th scope="col"><span class="visually-hidden">"Buy"</span></th> })}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(carrier: &str, cents: i64, eta: &str, carbon: i64) -> Rate {
        Rate {
            id: format!("r_{carrier}_{cents}"),
            carrier: carrier.into(),
            service: "Ground".into(),
            rate_cents: cents,
            carrier_eta: eta.into(),
            carbon_grams: carbon,
            account_type: AccountType::Platform,
            expires_at: None,
        }
    }

    #[test]
    fn sorts_and_filters() {
        let rates = vec![
            rate("A", 900, "2026-01-05", 300),
            rate("B", 500, "2026-01-09", 900),
            rate("C", 700, "2026-01-02", 100),
        ];
        let ids = |v: Vec<Rate>| {
            v.into_iter()
                .map(|r| r.carrier)
                .collect::<Vec<_>>()
                .join("")
        };
        assert_eq!(ids(arrange(&rates, SortKey::Price, &[])), "BCA");
        assert_eq!(ids(arrange(&rates, SortKey::Delivery, &[])), "CAB");
        assert_eq!(ids(arrange(&rates, SortKey::Carbon, &[])), "CAB");
        assert_eq!(ids(arrange(&rates, SortKey::Price, &["B".into()])), "CA");
        assert_eq!(carriers(&rates), vec!["A", "B", "C"]);
    }

    #[test]
    fn carbon_reads_in_grams_or_kilograms() {
        assert_eq!(carbon(850), "850 g");
        assert_eq!(carbon(1250), "1.2 kg");
    }
}
