//! The wallet: balance, live or sandbox, a low-balance warning, what
//! auto-reload means for the next purchase, how funds are added, and the
//! charges and refunds of the latest labels (the ledger's history).

use crate::api::Client;
use crate::components::confirm_purchase::ADD_FUNDS;
use crate::components::dates::When;
use crate::components::loader::Loader;
use crate::components::money::{Money, format_cents};
use crate::components::service::with_dashboard;
use api::insights::{HistoryQuery, HistoryRow};
use api::{CardState, Scope, Wallet};
use leptos::prelude::*;

/// Below this a live balance is called low ($25: a few labels).
pub const LOW_BALANCE_CENTS: i64 = 2_500;

/// What happens to the next purchase the balance cannot cover.
pub fn auto_reload_text(w: &Wallet) -> String {
    if w.sandbox || w.unlimited {
        return "Sandbox wallet: unlimited. Purchases are free and never charged.".into();
    }
    match (w.auto_reload, w.card) {
        (None, _) => "Auto-reload is off: a label that costs more than the balance is not offered.".into(),
        (Some(r), CardState::Ok) => format!(
            "Auto-reload is on: when a purchase costs more than the balance, your card is charged {} (as many times as needed) so at least {} remains after it.",
            format_cents(r.amount_cents),
            format_cents(r.threshold_cents)
        ),
        (Some(_), CardState::Declined) => "Auto-reload is on, but the card on file was declined: a label that costs more than the balance is not offered until the card is updated.".into(),
        (Some(_), CardState::Missing) => "Auto-reload is on, but there is no card on file: a label that costs more than the balance is not offered until a card is added.".into(),
    }
}

pub fn is_low(w: &Wallet) -> bool {
    !w.sandbox && !w.unlimited && w.balance_cents < LOW_BALANCE_CENTS
}

#[component]
pub fn WalletPage() -> impl IntoView {
    let client = Client::get();
    let wallet = LocalResource::new(move || client.wallet());
    view! {
        <h1>"Wallet"</h1>
        <Loader resource=wallet loading="Loading balance…" let:w>
            <section class="card" aria-labelledby="balance-label">
                <p id="balance-label" class="label">
                    {if w.sandbox { "Sandbox balance" } else { "Balance" }}
                </p>
                <p class="balance" data-testid="balance"><Money cents=w.balance_cents /></p>
                <p>
                    {if w.sandbox {
                        view! { <span class="badge badge-warn">"Sandbox"</span> " Test labels only." }.into_any()
                    } else {
                        view! { <span class="badge badge-live">"Live"</span> " Real labels, charged here." }.into_any()
                    }}
                </p>
            </section>
            {is_low(&w).then(|| view! {
                <p class="notice notice-warn" role="alert">
                    {format!("Low balance: less than {}.", format_cents(LOW_BALANCE_CENTS))}
                </p>
            })}
            <section aria-labelledby="reload-title">
                <h2 id="reload-title">"Next purchase"</h2>
                <p data-testid="auto-reload">{auto_reload_text(&w)}</p>
                {(!w.sandbox && !w.unlimited).then(|| view! {
                    <h2 id="funds-title">"Adding funds"</h2>
                    <p data-testid="add-funds">{with_dashboard(ADD_FUNDS)}</p>
                })}
            </section>
        </Loader>
        {client.can(Scope::LabelsRead).then(|| view! { <Movements client /> })}
    }
}

/// Labels of the history page read for the wallet.
const MOVEMENTS: u32 = 20;

/// The charges and refunds of the latest labels, in the session's mode.
#[component]
fn Movements(client: Client) -> impl IntoView {
    let history = LocalResource::new(move || {
        client.history(HistoryQuery {
            limit: MOVEMENTS,
            ..HistoryQuery::default()
        })
    });
    view! {
        <section aria-labelledby="movements-title">
            <h2 id="movements-title">"Charges and refunds"</h2>
            <Loader resource=history loading="Loading the charges…" let:page>
                {if page.rows.is_empty() {
                    view! { <p class="empty">"Nothing charged yet."</p> }.into_any()
                } else {
                    view! {
                        <div class="table-wrap">
                            <table class="movements">
                                <thead><tr><th scope="col">"Date"</th><th scope="col">"Label"</th><th scope="col" class="num">"Charged"</th><th scope="col" class="num">"Refunded"</th></tr></thead>
                                <tbody>{page.rows.into_iter().map(movement).collect_view()}</tbody>
                            </table>
                        </div>
                        {page.next.is_some().then(|| view! {
                            <p class="hint"><a href="/labels">"Every label"</a></p>
                        })}
                    }.into_any()
                }}
            </Loader>
        </section>
    }
}

fn movement(row: HistoryRow) -> impl IntoView {
    let what = format!("{} {} · {}", row.carrier, row.service, row.tracking_number);
    view! {
        <tr>
            <td data-label="Date"><When unix=row.at /></td>
            <td data-label="Label"><a href=format!("/labels/{}", row.id)>{what}</a></td>
            <td data-label="Charged" class="num"><Money cents=row.price_cents /></td>
            <td data-label="Refunded" class="num">{(row.refund_cents > 0).then(|| view! { <Money cents=row.refund_cents /> })}</td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::AutoReload;

    fn w(balance: i64, auto: Option<AutoReload>, card: CardState) -> Wallet {
        Wallet {
            balance_cents: balance,
            currency: "USD".into(),
            sandbox: false,
            unlimited: false,
            auto_reload: auto,
            card,
        }
    }

    #[test]
    fn low_and_auto_reload() {
        assert!(is_low(&w(2_499, None, CardState::Ok)));
        assert!(!is_low(&w(2_500, None, CardState::Ok)));
        let auto = Some(AutoReload {
            threshold_cents: 1_000,
            amount_cents: 5_000,
        });
        assert!(auto_reload_text(&w(0, auto, CardState::Ok)).contains("$50.00"));
        assert!(auto_reload_text(&w(0, auto, CardState::Missing)).contains("no card on file"));
        assert!(auto_reload_text(&w(0, None, CardState::Ok)).contains("off"));
    }
}
