//! Storefront widget settings (an organization's admins): the embed
//! snippet that names the organization's widget id, with a Copy button;
//! the shop origins allowed to frame it; the address its parcels ship
//! from (typed, or one of the organization's saved addresses); its share of the organization's limits; and the fallback option
//! the widget hands the shop when no carrier answers in time. The Worker
//! checks each field; a refusal is shown at its field. Each save is in the
//! audit log with what changed.

use crate::api::{Client, ClientError};
use crate::components::address_form::{AddressForm, blank_address, first_problem};
use crate::components::dates::When;
use crate::components::error_view::ErrorView;
use crate::components::field::{advice, advice_id, focus};
use crate::components::loader::{busy, failed};
use crate::state::senders;
use crate::state::write::Write;
use api::Address;
use api::orgs::{
    FALLBACK_DEFAULT_WAIT_SECONDS, FALLBACK_MAX_CENTS, FALLBACK_WAIT_SECONDS, OrgWidget,
    WidgetFallback, WidgetSettings,
};
use api::presets::SavedAddress;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// What a shop owner pastes into a product or cart page.
pub fn snippet(origin: &str, widget_id: &str) -> String {
    format!(
        "<div data-parcel-widget data-widget=\"{widget_id}\" data-weight-oz=\"16\" data-length=\"10\" data-width=\"8\" data-height=\"4\"></div>\n<script src=\"{origin}/widget/embed.js\" async></script>"
    )
}

/// A price typed in dollars (`7.95`, `$7`, `0`) as cents.
pub fn cents(typed: &str) -> Result<u32, String> {
    let bad = || {
        format!(
            "Enter a price in dollars, such as 7.95 (at most ${}).",
            FALLBACK_MAX_CENTS / 100
        )
    };
    let typed = typed.trim().trim_start_matches('$').trim();
    let (whole, fraction) = typed.split_once('.').unwrap_or((typed, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 2 {
        return Err(bad());
    }
    let whole: u32 = whole.parse().map_err(|_| bad())?;
    let fraction: u32 = format!("{fraction:0<2}").parse().map_err(|_| bad())?;
    whole
        .checked_mul(100)
        .and_then(|c| c.checked_add(fraction))
        .filter(|c| *c <= FALLBACK_MAX_CENTS)
        .ok_or_else(bad)
}

/// Cents as the price field shows them.
pub fn dollars(cents: u32) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// A share typed in percent (`25`) as the fraction the Worker stores.
pub fn share(typed: &str) -> Result<f64, String> {
    typed
        .trim()
        .trim_end_matches('%')
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|p| (0.0..=100.0).contains(p))
        .map(|p| p / 100.0)
        .ok_or_else(|| "Enter a percentage from 0 to 100.".into())
}

fn wait(typed: &str) -> Result<u32, String> {
    typed
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|s| FALLBACK_WAIT_SECONDS.contains(s))
        .ok_or_else(|| {
            format!(
                "Enter a whole number of seconds from {} to {}.",
                FALLBACK_WAIT_SECONDS.start(),
                FALLBACK_WAIT_SECONDS.end()
            )
        })
}

/// Whether the Worker's refusal is about `field` or a field inside it
/// (`origins[1]` is about `origins`, `ship_from.zip` about `ship_from`).
fn about(error: &ClientError, field: &str) -> bool {
    error
        .api()
        .and_then(|e| e.field.as_deref())
        .is_some_and(|f| {
            f == field
                || f.strip_prefix(field)
                    .is_some_and(|rest| rest.starts_with(['.', '[']))
        })
}

const AREAS: [&str; 4] = ["origins", "ship_from", "share", "fallback"];

/// What the page says under a shop origin as it is typed.
#[derive(Debug, PartialEq)]
enum OriginCheck {
    /// Nothing to say (fine, empty, or still typing its scheme).
    Fine,
    /// Not an origin the widget can list; `fix` is the origin of a pasted
    /// page address, offered with one click.
    Problem { text: String, fix: Option<String> },
    /// Fine, but the same shop with or without `www.` is not listed:
    /// browsers treat it as another shop, the most common reason a shop
    /// shows no widget.
    Twin(String),
}

fn check_typed(typed: &str, listed: &[String]) -> OriginCheck {
    let typed = typed.trim();
    if typed.is_empty() || "https://".starts_with(typed) || "http://".starts_with(typed) {
        return OriginCheck::Fine;
    }
    let is_listed = |o: &str| listed.iter().any(|l| l.trim().eq_ignore_ascii_case(o));
    match api::origins::check_origin(typed) {
        Ok(origin) => match api::origins::www_twin(&origin) {
            Some(twin) if !is_listed(&twin) => OriginCheck::Twin(twin),
            _ => OriginCheck::Fine,
        },
        Err(text) => OriginCheck::Problem {
            text,
            fix: api::origins::origin_of(typed)
                .filter(|o| api::origins::check_origin(o).is_ok() && !is_listed(o)),
        },
    }
}

/// The form's fields, as typed.
#[derive(Clone, Copy)]
struct Form {
    origins: RwSignal<Vec<String>>,
    ship_from: RwSignal<Address>,
    share: RwSignal<String>,
    offer_fallback: RwSignal<bool>,
    fallback_name: RwSignal<String>,
    fallback_price: RwSignal<String>,
    fallback_wait: RwSignal<String>,
    /// The client-side problems are shown once a save was tried.
    tried: RwSignal<bool>,
}

impl Form {
    fn new() -> Form {
        Form {
            origins: RwSignal::new(Vec::new()),
            ship_from: RwSignal::new(blank_address()),
            share: RwSignal::new(String::new()),
            offer_fallback: RwSignal::new(false),
            fallback_name: RwSignal::new(String::new()),
            fallback_price: RwSignal::new(String::new()),
            fallback_wait: RwSignal::new(FALLBACK_DEFAULT_WAIT_SECONDS.to_string()),
            tried: RwSignal::new(false),
        }
    }

    fn fill(self, s: &WidgetSettings) {
        let mut origins = s.origins.clone();
        if origins.is_empty() {
            origins.push(String::new());
        }
        self.origins.set(origins);
        self.ship_from
            .set(s.ship_from.clone().unwrap_or_else(blank_address));
        self.share.set(format!("{}", s.share * 100.0));
        self.offer_fallback.set(s.fallback.is_some());
        if let Some(f) = &s.fallback {
            self.fallback_name.set(f.name.clone());
            self.fallback_price.set(dollars(f.price_cents));
            self.fallback_wait.set(f.wait_seconds.to_string());
        }
        self.tried.set(false);
    }

    /// A blank address is no ship-from (the widget then says it is not set up).
    fn ship_from_value(self) -> Option<Address> {
        let a = self.ship_from.get_untracked();
        let blank = [&a.name, &a.street1, &a.city, &a.state, &a.zip]
            .iter()
            .all(|v| v.trim().is_empty());
        (!blank).then_some(a)
    }

    /// The settings to send, or the id of the first field to fix.
    /// The settings to save, or the id of the first field with a problem
    /// (the origins first, in the page's order).
    fn settings(self) -> Result<WidgetSettings, String> {
        let origins = self.origins.get_untracked();
        if let Some(i) = origins
            .iter()
            .position(|o| matches!(check_typed(o, &[]), OriginCheck::Problem { .. }))
        {
            return Err(origin_id(i));
        }
        let ship_from = self.ship_from_value();
        if let Some(a) = &ship_from
            && first_problem("widget-from", a).is_some()
        {
            return Err("widget-from".into());
        }
        let share = share(&self.share.get_untracked()).map_err(|_| "widget-share")?;
        let fallback = if self.offer_fallback.get_untracked() {
            Some(WidgetFallback {
                name: self.fallback_name.get_untracked().trim().to_string(),
                price_cents: cents(&self.fallback_price.get_untracked())
                    .map_err(|_| "fallback-price")?,
                wait_seconds: wait(&self.fallback_wait.get_untracked())
                    .map_err(|_| "fallback-wait")?,
            })
        } else {
            None
        };
        Ok(WidgetSettings {
            origins: origins
                .into_iter()
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty())
                .collect(),
            ship_from,
            share,
            fallback,
        })
    }
}

#[component]
pub fn WidgetSettingsPage() -> impl IntoView {
    let client = Client::get();
    let state = RwSignal::new(None::<Result<OrgWidget, ClientError>>);
    let form = Form::new();
    let read = move || {
        spawn_local(async move {
            let read = client.org_widget().await;
            let settings = read.as_ref().ok().map(|w| w.settings.clone());
            // The form is filled only if the page is still there.
            if state.try_set(Some(read)).is_none()
                && let Some(settings) = settings
            {
                form.fill(&settings);
            }
        });
    };
    read();
    // The organization's saved addresses, offered for the ship-from (none
    // when they cannot be read: the address can still be typed).
    let addresses = RwSignal::new(Vec::<SavedAddress>::new());
    spawn_local(async move {
        if let Ok(list) = client.saved_addresses().await {
            // Unless the page is gone by then.
            addresses.try_set(list.addresses);
        }
    });
    let saved = RwSignal::new(false);
    let save = Write::new(move || async move {
        let Ok(settings) = form.settings() else {
            return Ok(());
        };
        let widget = client.change_org_widget(&settings).await?;
        form.fill(&widget.settings);
        state.set(Some(Ok(widget)));
        saved.set(true);
        Ok(())
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        form.tried.set(true);
        saved.set(false);
        match form.settings() {
            Err(first) => focus(&first),
            Ok(_) => save.submit(),
        }
    };
    let origin = window().location().origin().unwrap_or_default();
    view! {
        <h1>"Storefront widget"</h1>
        <p class="lead">"Shoppers see every carrier's options for their cart on your shop's pages and choose one; your shop gets their choice."</p>
        {move || matches!(state.get(), Some(Ok(w)) if w.settings.origins.is_empty()).then(|| view! {
            <p class="notice notice-warn" role="status">"No shop can show the widget yet: add your shop's origin under Shop origins and save."</p>
        })}
        {move || match state.get() {
            None => busy("Loading the widget settings…"),
            Some(Err(error)) => failed(error, Callback::new(move |()| read())),
            Some(Ok(widget)) => view! {
                {snippet_section(snippet(&origin, widget.widget_id.as_str()))}
                {widget.updated_at.map(|at| view! {
                    <p class="hint">"Last changed by " {widget.updated_by.clone().unwrap_or_default()} ", " <When unix=at /> "."</p>
                })}
            }.into_any(),
        }}
        <form class="account-form widget-settings" on:submit=submit novalidate>
            {origins_fieldset(form, save)}
            <AddressForm legend="Ships from" prefix="widget-from" address=form.ship_from
                on_edit=Callback::new(move |()| save.clear()) show_problems=form.tried>
                <p class="hint">"Rates are quoted from this address. Without one, the widget tells the shop owner to set it."</p>
                {move || saved_address_picker(form, save, addresses.get())}
            </AddressForm>
            {move || save.error().filter(|e| about(e, "ship_from")).map(|error| view! { <ErrorView error /> })}
            {share_field(form, save)}
            {fallback_fieldset(form, save)}
            <button type="submit" disabled=move || save.pending() || !matches!(state.get(), Some(Ok(_)))>
                {move || save.label("Save the widget settings", "Saving…")}
            </button>
            {move || (saved.get() && save.error().is_none()).then(|| view! {
                <p class="notice" role="status">"Saved. Shoppers' widgets use the new settings within 30 seconds."</p>
            })}
        </form>
        {move || save.error().filter(|e| !AREAS.iter().any(|a| about(e, a))).map(|error| view! { <ErrorView error /> })}
    }
}

/// The embed snippet with its widget id, and a Copy button.
/// "Use a saved address": the chosen one fills the ship-from fields.
fn saved_address_picker(form: Form, save: Write, list: Vec<SavedAddress>) -> impl IntoView {
    let current = form.ship_from.get_untracked();
    (!list.is_empty()).then(|| {
        let options = list
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let name = format!("{}: {}", a.label, senders::describe(&a.address));
                view! { <option value=i.to_string() selected=a.address == current>{name}</option> }
            })
            .collect_view();
        view! {
            <div class="field">
                <label for="widget-from-saved">"Use a saved address"</label>
                <select
                    id="widget-from-saved"
                    on:change=move |ev| {
                        if let Some(a) = event_target_value(&ev).parse::<usize>().ok().and_then(|i| list.get(i)) {
                            form.ship_from.set(a.address.clone());
                            save.clear();
                        }
                    }
                >
                    <option value="">"Choose one…"</option>
                    {options}
                </select>
            </div>
        }
    })
}

fn snippet_section(code: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let to_copy = code.clone();
    view! {
        <section aria-labelledby="embed-title">
            <h2 id="embed-title">"Embed it"</h2>
            <p class="hint" id="embed-hint">"Paste this where the shipping options belong on a product or cart page of one of the shops below; set the parcel's weight (ounces) and size (inches) for the product."</p>
            <textarea id="widget-snippet" class="copyable" readonly rows="3" prop:value=code
                aria-labelledby="embed-title" aria-describedby="embed-hint"></textarea>
            <button type="button" class="secondary" on:click=move |_| {
                let _ = window().navigator().clipboard().write_text(&to_copy);
                copied.set(true);
            }>{move || if copied.get() { "Copied" } else { "Copy the snippet" }}</button>
        </section>
    }
}

fn origin_id(i: usize) -> String {
    format!("widget-origin-{i}")
}

fn origins_fieldset(form: Form, save: Write) -> impl IntoView {
    let row = move |i: usize| {
        let id = origin_id(i);
        let field = StoredValue::new(format!("origins[{i}]"));
        let refused = move || save.error().filter(|e| field.with_value(|f| e.is_about(f)));
        let value = move || form.origins.with(|o| o.get(i).cloned().unwrap_or_default());
        let check = move || {
            form.origins
                .with(|o| check_typed(o.get(i).map_or("", String::as_str), o))
        };
        let problem = move || matches!(check(), OriginCheck::Problem { .. });
        let use_origin = move |origin: String| {
            save.clear();
            form.origins.update(|o| {
                if let Some(slot) = o.get_mut(i) {
                    *slot = origin
                }
            });
        };
        let add_origin = move |origin: String| {
            save.clear();
            form.origins.update(|o| o.push(origin));
        };
        let advice_for = advice_id(&id);
        view! {
            <div class="inline-form">
                <label class="visually-hidden" for=id.clone()>{format!("Shop origin {}", i + 1)}</label>
                <input id=id.clone() type="url" inputmode="url" placeholder="https://shop.example" spellcheck="false" autocapitalize="off"
                    aria-invalid=move || (problem() || refused().is_some()).then_some("true")
                    aria-describedby=move || problem().then(|| advice_for.clone())
                    prop:value=value
                    on:input=move |ev| {
                        save.clear();
                        let typed = event_target_value(&ev);
                        form.origins.update(|o| if let Some(slot) = o.get_mut(i) { *slot = typed });
                    } />
                <button type="button" class="secondary" on:click=move |_| {
                    save.clear();
                    form.origins.update(|o| { if i < o.len() { o.remove(i); } });
                }>{format!("Remove shop origin {}", i + 1)}</button>
            </div>
            {move || match check() {
                OriginCheck::Fine => None,
                OriginCheck::Problem { text, fix } => Some(view! {
                    <p class="field-problem" id=advice_id(&origin_id(i))>{text}</p>
                    {fix.map(|fix| view! {
                        <button type="button" class="secondary" on:click=move |_| use_origin(fix.clone())>
                            {format!("Use {fix}")}
                        </button>
                    })}
                }.into_any()),
                OriginCheck::Twin(twin) => Some(view! {
                    <p class="hint">{format!("If shoppers also reach your shop at {twin}, add it too: browsers treat it as another shop.")}</p>
                    <button type="button" class="secondary" on:click=move |_| add_origin(twin.clone())>
                        {format!("Add {twin}")}
                    </button>
                }.into_any()),
            }}
            {move || refused().map(|error| view! { <ErrorView error /> })}
        }
    };
    view! {
        <fieldset>
            <legend>"Shop origins"</legend>
            <p class="hint">"Only pages of these shops may show the widget: the scheme and host of each shop, such as https://shop.example, without a path."</p>
            {move || (0..form.origins.with(Vec::len)).map(row).collect_view()}
            <button type="button" class="secondary" on:click=move |_| form.origins.update(|o| o.push(String::new()))>
                "Add a shop origin"
            </button>
            {move || save.error().filter(|e| e.is_about("origins")).map(|error| view! { <ErrorView error /> })}
        </fieldset>
    }
}

fn share_field(form: Form, save: Write) -> impl IntoView {
    let id = "widget-share";
    let problem = move || {
        form.tried
            .get()
            .then(|| share(&form.share.get()).err())
            .flatten()
    };
    view! {
        <label for=id>"Share of the organization's rate limits (%)"</label>
        <input id=id type="text" inputmode="decimal"
            aria-invalid=move || problem().is_some().then_some("true")
            aria-describedby=move || if problem().is_some() { advice_id(id) } else { format!("{id}-hint") }
            prop:value=move || form.share.get()
            on:input=move |ev| { save.clear(); form.share.set(event_target_value(&ev)) } />
        <p class="hint" id=format!("{id}-hint")>"Shoppers' quotes may use this much of each per-minute limit; the rest stays for your team."</p>
        {advice(id.to_string(), problem)}
        {move || save.error().filter(|e| about(e, "share")).map(|error| view! { <ErrorView error /> })}
    }
}

fn fallback_fieldset(form: Form, save: Write) -> impl IntoView {
    let price_problem = move || {
        form.tried
            .get()
            .then(|| cents(&form.fallback_price.get()).err())
            .flatten()
    };
    let wait_problem = move || {
        form.tried
            .get()
            .then(|| wait(&form.fallback_wait.get()).err())
            .flatten()
    };
    let input = move |signal: RwSignal<String>| {
        move |ev| {
            save.clear();
            signal.set(event_target_value(&ev));
        }
    };
    view! {
        <fieldset>
            <legend>"Fallback option"</legend>
            <label class="checkbox">
                <input id="fallback-on" type="checkbox" prop:checked=move || form.offer_fallback.get()
                    on:change=move |ev| { save.clear(); form.offer_fallback.set(event_target_checked(&ev)) } />
                "Offer a fallback option when no carrier answers in time"
            </label>
            <p class="hint">"So checkout never waits on shipping: the shop gets it marked as a fallback, to charge and ship as it sees fit."</p>
            {move || form.offer_fallback.get().then(|| view! {
                <label for="fallback-name">"Name shoppers see"</label>
                <input id="fallback-name" type="text" placeholder="Standard shipping"
                    prop:value=move || form.fallback_name.get() on:input=input(form.fallback_name) />
                <label for="fallback-price">"Price (USD)"</label>
                <input id="fallback-price" type="text" inputmode="decimal" placeholder="7.95"
                    aria-invalid=move || price_problem().is_some().then_some("true")
                    prop:value=move || form.fallback_price.get() on:input=input(form.fallback_price) />
                {advice("fallback-price".to_string(), price_problem)}
                <label for="fallback-wait">"Wait for carriers (seconds)"</label>
                <input id="fallback-wait" type="text" inputmode="numeric"
                    aria-invalid=move || wait_problem().is_some().then_some("true")
                    prop:value=move || form.fallback_wait.get() on:input=input(form.fallback_wait) />
                {advice("fallback-wait".to_string(), wait_problem)}
            })}
            {move || save.error().filter(|e| about(e, "fallback")).map(|error| view! { <ErrorView error /> })}
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_names_the_widget_id_and_the_embed_script() {
        let s = snippet("https://ship.example", "org_acme");
        assert!(s.contains(r#"data-widget="org_acme""#), "{s}");
        assert!(s.contains(r#"<script src="https://ship.example/widget/embed.js" async>"#));
    }

    #[test]
    fn prices_are_typed_in_dollars() {
        assert_eq!(cents("7.95"), Ok(795));
        assert_eq!(cents(" $7 "), Ok(700));
        assert_eq!(cents("0.5"), Ok(50));
        assert_eq!(cents("1000"), Ok(100_000));
        for bad in ["", "7.955", "-1", "1000.01", "seven", "7,95"] {
            assert!(cents(bad).is_err(), "{bad}");
        }
        assert_eq!(dollars(795), "7.95");
        assert_eq!(share("25"), Ok(0.25));
        assert!(share("101").is_err());
        assert_eq!(wait("8"), Ok(8));
        assert!(wait("1").is_err());
    }

    #[test]
    fn an_origin_is_checked_as_it_is_typed() {
        let listed = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for quiet in ["", "  ", "h", "https:/", "http://"] {
            assert_eq!(check_typed(quiet, &[]), OriginCheck::Fine, "{quiet:?}");
        }
        assert_eq!(
            check_typed("https://shop.example", &listed(&["https://shop.example"])),
            OriginCheck::Twin("https://www.shop.example".into())
        );
        assert_eq!(
            check_typed(
                "https://shop.example",
                &listed(&["https://shop.example", "https://WWW.shop.example"])
            ),
            OriginCheck::Fine
        );
        assert_eq!(
            check_typed("https://store.shop.example", &[]),
            OriginCheck::Fine
        );
        // A pasted page address: its origin offered.
        let OriginCheck::Problem { text, fix } =
            check_typed("https://www.shop.example/cart?x=1", &[])
        else {
            panic!("a path is a problem")
        };
        assert!(text.contains("no path"), "{text}");
        assert_eq!(fix.as_deref(), Some("https://www.shop.example"));
        // No scheme: nothing to offer but the sentence.
        let OriginCheck::Problem { text, fix } = check_typed("shop.example", &[]) else {
            panic!("no scheme is a problem")
        };
        assert!(text.contains("https://"), "{text}");
        assert_eq!(fix, None);
        assert!(matches!(
            check_typed("http://shop.example", &[]),
            OriginCheck::Problem { fix: None, .. }
        ));
    }

    #[test]
    fn refusals_go_to_their_field() {
        let refused = |field: &str| {
            let mut error = api::ApiError::new(api::ErrorCode::ValidationFieldInvalid, "", "", "");
            error.field = Some(field.into());
            ClientError::Api {
                status: 422,
                error: Box::new(error),
            }
        };
        assert!(about(&refused("origins[1]"), "origins"));
        assert!(about(&refused("ship_from.zip"), "ship_from"));
        assert!(about(&refused("fallback.price_cents"), "fallback"));
        assert!(!about(&refused("ship_from_x"), "ship_from"));
        assert!(!about(&refused("share"), "origins"));
    }
}
