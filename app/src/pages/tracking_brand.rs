//! The shoppers' tracking page as the organization shows it (admins): the
//! shop's name, logo, support link and look (`api::shipments::Brand`). The
//! ledger Worker checks each field; a refusal is shown at its field. Each
//! save is in the audit log. A link opens the order lookup page to see it.
//! Below, the shop's tracking events (`tracking_events`).

use crate::api::{Client, ClientError};
use crate::components::error_view::ErrorView;
use crate::components::loader::{busy, failed};
use crate::pages::tracking_events::ShopEventsSection;
use crate::state::write::Write;
use api::shipments::{Brand, TRACKING_LOOKUP_PATH};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The accent a colour picker starts from when none is set (the page's own).
const DEFAULT_ACCENT: &str = "#1d4ed8";

/// The fields, as typed; an empty one is the page's default.
#[derive(Clone, Copy)]
struct Form {
    name: RwSignal<String>,
    logo_url: RwSignal<String>,
    support_url: RwSignal<String>,
    accent: RwSignal<String>,
    radius: RwSignal<String>,
    font: RwSignal<String>,
    theme: RwSignal<String>,
}

impl Form {
    fn new() -> Form {
        let field = || RwSignal::new(String::new());
        Form {
            name: field(),
            logo_url: field(),
            support_url: field(),
            accent: field(),
            radius: field(),
            font: field(),
            theme: field(),
        }
    }

    fn fill(self, brand: Option<&Brand>) {
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let b = brand.cloned().unwrap_or_default();
        self.name.set(b.name.clone());
        self.logo_url.set(text(&b.logo_url));
        self.support_url.set(text(&b.support_url));
        self.accent.set(text(&b.accent));
        self.radius
            .set(b.radius.map(|r| r.to_string()).unwrap_or_default());
        self.font.set(text(&b.font));
        // `auto` is the page's default: the first choice.
        self.theme.set(
            Some(text(&b.theme))
                .filter(|t| t != "auto")
                .unwrap_or_default(),
        );
    }

    /// What to send: empty fields are left out. A radius that is not a
    /// number is sent as one the Worker refuses at its field.
    fn brand(self) -> Brand {
        let opt = |s: RwSignal<String>| {
            Some(s.get_untracked().trim().to_string()).filter(|v| !v.is_empty())
        };
        Brand {
            name: self.name.get_untracked().trim().to_string(),
            logo_url: opt(self.logo_url),
            support_url: opt(self.support_url),
            accent: opt(self.accent),
            radius: opt(self.radius).map(|r| r.parse().unwrap_or(u8::MAX)),
            font: opt(self.font),
            theme: opt(self.theme),
        }
    }
}

#[component]
pub fn TrackingBrandPage() -> impl IntoView {
    let client = Client::get();
    let state = RwSignal::new(None::<Result<(), ClientError>>);
    let form = Form::new();
    let read = move || {
        spawn_local(async move {
            match client.tracking_brand().await {
                Ok(brand) => {
                    // Only if the page is still there.
                    if state.try_set(Some(Ok(()))).is_none() {
                        form.fill(brand.as_ref());
                    }
                }
                Err(e) => {
                    state.try_set(Some(Err(e)));
                }
            }
        });
    };
    read();
    let saved = RwSignal::new(false);
    let save = Write::new(move || async move {
        let brand = client.change_tracking_brand(&form.brand()).await?;
        form.fill(brand.as_ref());
        saved.set(true);
        Ok(())
    });
    // An edit clears the last save's refusal and its "Saved".
    let edited = move || {
        save.clear();
        saved.set(false);
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        saved.set(false);
        save.submit();
    };
    let org = client
        .session
        .with_untracked(|s| s.as_ref().map(|s| s.org.id.as_str().to_string()))
        .unwrap_or_default();
    let lookup = TRACKING_LOOKUP_PATH.replace("{id}", &org);
    let field = move |id: &'static str,
                      label: &'static str,
                      hint: &'static str,
                      signal: RwSignal<String>,
                      kind: &'static str| {
        let about = id.strip_prefix("tracking-").unwrap_or(id).replace('-', "_");
        let about = StoredValue::new(about);
        let refused = move || save.error().filter(|e| about.with_value(|f| e.is_about(f)));
        view! {
            <label for=id>{label}</label>
            <input id=id type=kind spellcheck="false" autocapitalize="off"
                aria-invalid=move || refused().is_some().then_some("true")
                aria-describedby=format!("{id}-hint")
                prop:value=move || signal.get()
                on:input=move |ev| { edited(); signal.set(event_target_value(&ev)) } />
            <p class="hint" id=format!("{id}-hint")>{hint}</p>
            {move || refused().map(|error| view! { <ErrorView error /> })}
        }
    };
    let known = [
        "name",
        "logo_url",
        "support_url",
        "accent",
        "radius",
        "font",
        "theme",
    ];
    view! {
        <h1>"Tracking page"</h1>
        <p class="lead">"Your shoppers follow their parcels on a page in your shop's name: from the link in your emails, or by order number and postcode."</p>
        <p><a href=lookup.clone() target="_blank" rel="noopener">"Open your order lookup page"</a></p>
        {move || match state.get() {
            None => Some(busy("Loading the tracking page's settings…")),
            Some(Err(error)) => Some(failed(error, Callback::new(move |()| read()))),
            Some(Ok(())) => None,
        }}
        <form class="account-form tracking-brand" on:submit=submit novalidate>
            {field("tracking-name", "Shop name", "As your shoppers know it: the page's title. Up to 80 characters.", form.name, "text")}
            {field("tracking-logo-url", "Logo (optional)", "An https:// address of an image, shown at the top of the page.", form.logo_url, "url")}
            {field("tracking-support-url", "Support link (optional)", "An https:// page or a mailto: address, offered to shoppers with questions.", form.support_url, "text")}
            <fieldset>
                <legend>"Look"</legend>
                {field("tracking-accent", "Accent colour (optional)", "#rgb or #rrggbb, typed or picked. Used for text only where it reads well on the page's background.", form.accent, "text")}
                <input type="color" class="swatch" aria-label="Pick the accent colour"
                    prop:value=move || Some(form.accent.get()).filter(|a| a.len() == 7).unwrap_or_else(|| DEFAULT_ACCENT.into())
                    on:input=move |ev| { edited(); form.accent.set(event_target_value(&ev)) } />
                {field("tracking-radius", "Corner radius in px (optional)", "0 to 24.", form.radius, "number")}
                {field("tracking-font", "Font (optional)", "A font family your shoppers' devices have, such as Georgia; without one, the device's own.", form.font, "text")}
                <label for="tracking-theme">"Theme"</label>
                <select id="tracking-theme" on:change=move |ev| { edited(); form.theme.set(event_target_value(&ev)) }>
                    {[("", "The shopper's (light or dark)"), ("light", "Light"), ("dark", "Dark")].into_iter().map(|(value, text)| view! {
                        <option value=value selected=move || form.theme.get() == value>{text}</option>
                    }).collect_view()}
                </select>
                {move || save.error().filter(|e| e.is_about("theme")).map(|error| view! { <ErrorView error /> })}
            </fieldset>
            <button type="submit" disabled=move || save.pending() || !matches!(state.get(), Some(Ok(())))>
                {move || save.label("Save the tracking page", "Saving…")}
            </button>
            {move || (saved.get() && save.error().is_none()).then(|| view! {
                <p class="notice" role="status">"Saved. Shoppers see it on their next view of the page."</p>
            })}
        </form>
        {move || save.error().filter(|e| !known.iter().any(|f| e.is_about(f))).map(|error| view! { <ErrorView error /> })}
        <ShopEventsSection />
    }
}
