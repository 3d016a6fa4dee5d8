//! The dashboard. Its rarely opened pages are chunks of this build
//! (`app::pages::chunks`), as is the part of the ship page that only rates
//! need; split at the `#[wasm_split]` functions below.

use app::Chunks;
use app::pages::chunks::{Load, Page};
use app::pages::login::{LoginChunks, PasskeySignIn};
use app::pages::ship::ShipChunks;
use app::pages::{
    audit, carriers, home, insights, invite, keys, label, labels, new_org, passkeys, presets,
    reset, ship, shipments, status, team, tokens, tracking, tracking_brand, wallet,
    webhook_settings, webhooks, widget_settings,
};
use leptos::prelude::*;
use leptos::wasm_split::{SplitLoaderError, wasm_split};

/// One line per on-demand page: its table path, its chunk, the function
/// that reaches it and the page.
macro_rules! chunk_pages {
    ($($path:literal => $chunk:ident: $name:ident => $page:expr;)*) => {
        $(
            #[wasm_split($chunk, wasm_split_path = ::leptos::wasm_split, fallible)]
            fn $name() -> Result<Page, SplitLoaderError> {
                Ok(|| $page.into_any())
            }
        )*

        fn on_demand(path: &str) -> Option<Load> {
            match path {
                $($path => {
                    let load: Load = || Box::pin($name());
                    Some(load)
                })*
                _ => None,
            }
        }
    };
}

chunk_pages! {
    "/ship" => ship: ship_page => view! { <ship::ShipPage /> };
    "/" => home: home_page => view! { <home::HomePage /> };
    "/labels" => labels: label_list => view! { <labels::LabelsPage /> };
    "/labels/:id" => labels: label_page => view! { <label::LabelPage /> };
    "/tracking" => labels: tracking_page => view! { <tracking::TrackingPage /> };
    "/shipments" => shipments: shipments_page => view! { <shipments::ShipmentsPage /> };
    "/tracking-page" => shipments: tracking_brand_page => view! { <tracking_brand::TrackingBrandPage /> };
    "/batches" => batches: batch_jobs => view! { <app::batches::list::JobsPage /> };
    "/batches/new" => batches: new_batch => view! { <app::batches::new::NewBatchPage /> };
    "/batches/:id" => batches: batch_job => view! { <app::batches::job::JobPage /> };
    "/carriers" => carriers: carrier_accounts => view! { <carriers::CarriersPage /> };
    "/wallet" => wallet: wallet_page => view! { <wallet::WalletPage /> };
    "/webhooks" => webhooks: webhooks_page => view! { <webhooks::WebhooksPage /> };
    "/status" => status: api_status => view! { <status::StatusPage /> };
    "/team" => team: team_page => view! { <team::TeamPage /> };
    "/audit" => team: audit_log => view! { <audit::AuditLogPage /> };
    "/keys" => keys: org_keys => view! { <keys::KeysPage /> };
    "/webhooks/settings" => webhook_settings: org_webhook => view! { <webhook_settings::WebhookSettingsPage /> };
    "/presets" => presets: org_presets => view! { <presets::PresetsPage /> };
    "/invite" => join: invite_page => view! { <invite::InvitePage /> };
    "/new-org" => join: new_org_page => view! { <new_org::NewOrgPage /> };
    "/reset" => join: reset_page => view! { <reset::ResetPage /> };
    "/tokens" => tokens: access_tokens => view! { <tokens::TokensPage /> };
    "/storefront-widget" => widget_settings: org_widget => view! { <widget_settings::WidgetSettingsPage /> };
    "/passkeys" => tokens: passkeys_page => view! { <passkeys::PasskeysPage /> };
    "/insights" => insights: insights_page => view! { <insights::InsightsPage /> };
}

#[wasm_split(ship_offer, wasm_split_path = ::leptos::wasm_split, fallible)]
fn ship_offer() -> Result<ship::OfferView, SplitLoaderError> {
    Ok(ship::OfferView {
        offer: ship::offer::view,
        balance: ship::balance::view,
    })
}

#[wasm_split(passkey_sign_in, wasm_split_path = ::leptos::wasm_split, fallible)]
fn passkey_sign_in() -> Result<PasskeySignIn, SplitLoaderError> {
    Ok(|client| Box::pin(client.sign_in_passkey()))
}

#[wasm_split(ship_saved, wasm_split_path = ::leptos::wasm_split, fallible)]
fn ship_saved() -> Result<ship::SavedView, SplitLoaderError> {
    Ok(ship::saved::view)
}

fn main() {
    console_error_panic_hook::set_once();
    let chunks = Chunks {
        pages: on_demand,
        ship: ShipChunks {
            offer: || Box::pin(ship_offer()),
            saved: || Box::pin(ship_saved()),
        },
        login: LoginChunks {
            passkey_sign_in: || Box::pin(passkey_sign_in()),
        },
    };
    leptos::mount::mount_to_body(move || view! { <app::App chunks /> });
}
