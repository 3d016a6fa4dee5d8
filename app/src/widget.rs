//! The storefront widget (`api::widget`): on a shop's page, a shopper types
//! where the order goes and sees every carrier's price and delivery day for
//! the parcel the shop put in the iframe's URL, from the ship-from address
//! the Worker wrote into the page. Its own Trunk build (`widget.html`), so
//! shoppers load this and not the dashboard.

use crate::api::{Client, ClientError};
use crate::components::address_form::{AddressForm, blank_address, missing_field};
use crate::components::dates::calendar_day;
use crate::components::error_view::ErrorView;
use crate::components::money::Money;
use crate::state::clock::Clock;
use api::widget::{HEIGHT_MESSAGE, PARCEL_PARAMS, SHIP_FROM_META};
use api::{Address, Parcel, Rate, RatesRequest, RatesResponse};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// What the shop configured: where parcels leave from, and what is quoted.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub ship_from: Address,
    pub parcel: Parcel,
}

/// Reads the shop's setup from the page: the ship-from JSON of the meta
/// element and the iframe URL's query. The error is for the shop owner.
pub fn setup(ship_from_json: &str, query: &str) -> Result<Setup, String> {
    let ship_from = serde_json::from_str::<Address>(ship_from_json).map_err(|_| {
        "This shop has not set the address its parcels ship from. Shop owner: set \
         WIDGET_SHIP_FROM in the Worker's settings (see the README)."
            .to_string()
    })?;
    let param = |name: &str| {
        query
            .trim_start_matches('?')
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(key, _)| *key == name)
            .and_then(|(_, value)| value.parse::<f64>().ok())
    };
    let example = "for example /widget/?weight_oz=20&length=10&width=8&height=4 (ounces, inches)";
    let mut values = [0.0; 4];
    for (value, name) in values.iter_mut().zip(PARCEL_PARAMS) {
        *value = param(name).ok_or_else(|| {
            format!("This widget's link has no valid {name}. Shop owner: add it, {example}.")
        })?;
    }
    let [weight_oz, length, width, height] = values;
    let parcel = Parcel {
        weight_oz,
        length,
        width,
        height,
    };
    if let Some((field, reason)) = parcel.invalid_field() {
        return Err(format!(
            "This widget's {field} {reason}. Shop owner: correct it, {example}."
        ));
    }
    Ok(Setup { ship_from, parcel })
}

/// `https://shop.example` from `https://shop.example:443/p/1?x` (scheme,
/// host and port as written).
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    (!host.is_empty() && matches!(scheme, "http" | "https")).then(|| format!("{scheme}://{host}"))
}

/// The shop's origin framing this page: `location.ancestorOrigins` where
/// the browser has it, else the referrer. `None` when not framed.
fn storefront() -> Option<String> {
    let window = web_sys::window()?;
    let framed = window
        .top()
        .ok()
        .flatten()
        .is_some_and(|top| !js_sys::Object::is(&top, &window));
    if !framed {
        return None;
    }
    let ancestors = js_sys::Reflect::get(&window.location(), &"ancestorOrigins".into()).ok();
    let first = ancestors
        .and_then(|list| js_sys::Reflect::get(&list, &0.into()).ok())
        .and_then(|o| o.as_string());
    first.or_else(|| origin_of(&window.document()?.referrer()))
}

/// Tells the shop's window this page's height whenever it changes (to that
/// origin only), so its embed script can size the iframe to fit.
fn report_height(storefront: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let (Ok(Some(parent)), Some(document)) = (window.parent(), window.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let observed = body.clone();
    let origin = storefront.to_string();
    let report = Closure::<dyn FnMut()>::new(move || {
        let message = js_sys::Object::new();
        let set = |k: &str, v: JsValue| js_sys::Reflect::set(&message, &k.into(), &v);
        let _ = set("type", HEIGHT_MESSAGE.into());
        let _ = set("height", f64::from(body.scroll_height()).into());
        let _ = parent.post_message(&message, &origin);
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(report.as_ref().unchecked_ref()) {
        observer.observe(&observed);
    }
    // Lives as long as the page.
    report.forget();
}

fn meta_content(name: &str) -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector(&format!(r#"meta[name="{name}"]"#))
                .ok()
                .flatten()
        })
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_default()
}

/// The widget's root: reads the setup once, then quotes on each submit.
#[component]
pub fn Widget() -> impl IntoView {
    let framed_by = storefront();
    if let Some(origin) = &framed_by {
        report_height(origin);
    }
    let client = Client::provide_framed(framed_by.clone());
    Clock::provide();
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let setup = match (setup(&meta_content(SHIP_FROM_META), &query), framed_by) {
        (Err(problem), _) => Err(problem),
        (Ok(_), None) => Err(
            "This widget works inside an iframe on your shop's pages (an origin in \
             WIDGET_ORIGINS). Shop owner: embed it there to try it."
                .to_string(),
        ),
        (Ok(setup), Some(_)) => Ok(setup),
    };
    view! {
        <main id="main" class="widget">
            <h1>"Shipping estimate"</h1>
            {match setup {
                Err(problem) => view! { <p class="widget-problem" role="alert">{problem}</p> }.into_any(),
                Ok(setup) => view! { <Quote setup client /> }.into_any(),
            }}
        </main>
    }
}

/// Where the quote stands.
#[derive(Clone, Debug, PartialEq)]
enum Answer {
    None,
    Asking,
    Rates(Box<RatesResponse>),
    Failed(ClientError),
}

/// The destination form and its answer (owns the rates call).
#[component]
fn Quote(setup: Setup, client: Client) -> impl IntoView {
    let ship_from = setup.ship_from.clone();
    let to = RwSignal::new(Address {
        // Rates depend on where, not on whom; the contract wants a name.
        name: "Shopper".into(),
        ..blank_address()
    });
    let missing = RwSignal::new(None::<&'static str>);
    let on_edit = Callback::new(move |()| missing.set(None));
    let answer = RwSignal::new(Answer::None);
    let request = StoredValue::new(setup);
    let ask = move || {
        let address = to.get_untracked();
        let blank = missing_field(&address);
        missing.set(blank);
        if blank.is_some() {
            return;
        }
        let Setup { ship_from, parcel } = request.get_value();
        answer.set(Answer::Asking);
        spawn_local(async move {
            let body = RatesRequest {
                from_address: ship_from,
                to_address: address,
                parcel,
            };
            answer.set(match client.rates(&body).await {
                Ok(rates) => Answer::Rates(Box::new(rates)),
                Err(e) => Answer::Failed(e),
            });
        });
    };
    view! {
        <p class="widget-from">"Ships from " {format!("{}, {}", ship_from.city, ship_from.state)}</p>
        <form
            class="widget-form"
            novalidate
            on:submit=move |ev| {
                ev.prevent_default();
                ask();
            }
        >
            <AddressForm legend="Ship to" prefix="to" address=to on_edit destination_only=true />
            {move || missing.get().map(|label| view! {
                <p class="field-problem" role="alert">{format!("{label} is required to see rates.")}</p>
            })}
            <button type="submit" disabled=move || answer.with(|a| *a == Answer::Asking)>
                {move || if answer.with(|a| *a == Answer::Asking) { "Getting rates…" } else { "Get rates" }}
            </button>
        </form>
        <div aria-live="polite">
            {move || match answer.get() {
                Answer::None => ().into_any(),
                Answer::Asking => view! { <p class="loading" aria-busy="true">"Asking the carriers…"</p> }.into_any(),
                Answer::Rates(r) => view! { <WidgetRates response=*r /> }.into_any(),
                Answer::Failed(error) => view! { <ErrorView error retry=Callback::new(move |()| ask()) /> }.into_any(),
            }}
        </div>
    }
}

/// The quote for a shopper: cheapest first, with the delivery day; a
/// carrier that did not answer is named.
#[component]
pub fn WidgetRates(response: RatesResponse) -> impl IntoView {
    let partial = response.error.map(|e| e.message);
    let rows = response
        .rates
        .into_iter()
        .map(
            |Rate {
                 carrier,
                 service,
                 rate_cents,
                 carrier_eta,
                 ..
             }| {
                view! {
                    <li class="widget-rate">
                        <span class="widget-service">{format!("{carrier} {service}")}</span>
                        <Money cents=rate_cents />
                        <span class="widget-eta">"Arrives " {calendar_day(&carrier_eta)}</span>
                    </li>
                }
            },
        )
        .collect_view();
    view! {
        {partial.map(|message| view! { <p class="widget-partial" role="status">{message}</p> })}
        <ol class="widget-rates" aria-label="Shipping rates">{rows}</ol>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FROM: &str = r#"{"name":"Ada Shop","street1":"500 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"}"#;

    #[test]
    fn the_setup_comes_from_the_page_and_its_link() {
        let s = setup(FROM, "?weight_oz=20&length=10&width=8.5&height=4").unwrap();
        assert_eq!(s.ship_from.zip, "94105");
        assert_eq!(
            s.parcel,
            Parcel {
                weight_oz: 20.0,
                length: 10.0,
                width: 8.5,
                height: 4.0
            }
        );
    }

    #[test]
    fn a_broken_embed_tells_the_shop_owner_what_to_fix() {
        let no_from = setup("", "?weight_oz=20&length=10&width=8&height=4").unwrap_err();
        assert!(no_from.contains("WIDGET_SHIP_FROM"), "{no_from}");
        let no_height = setup(FROM, "?weight_oz=20&length=10&width=8").unwrap_err();
        assert!(no_height.contains("no valid height"), "{no_height}");
        let heavy = setup(FROM, "?weight_oz=9000&length=10&width=8&height=4").unwrap_err();
        assert!(
            heavy.contains("weight_oz must be at most 2400 oz"),
            "{heavy}"
        );
    }

    #[test]
    fn origins_of_referrers() {
        assert_eq!(
            origin_of("https://shop.example:8443/p/1?x=1").as_deref(),
            Some("https://shop.example:8443")
        );
        assert_eq!(
            origin_of("http://127.0.0.1:9000").as_deref(),
            Some("http://127.0.0.1:9000")
        );
        assert_eq!(origin_of(""), None);
        assert_eq!(origin_of("about:blank"), None);
    }
}
