//! The merchant's own carrier accounts, connected in the service's
//! dashboard, and their state.

use crate::api::Client;
use crate::components::dates::When;
use crate::components::loader::Loader;
use crate::components::service::ServiceDashboard;
use crate::components::status_badge::{StatusBadge, Tone};
use api::CarrierAccountStatus;
use leptos::prelude::*;

#[component]
pub fn CarriersPage() -> impl IntoView {
    let client = Client::get();
    let accounts = LocalResource::new(move || client.carrier_accounts());
    view! {
        <h1>"Carrier accounts"</h1>
        <p class="hint">"Your own carrier accounts, connected in " <ServiceDashboard/> ". Their rates appear next to the platform's, without surcharge."</p>
        <Loader resource=accounts loading="Loading carrier accounts…" let:list>
            {if list.carrier_accounts.is_empty() {
                view! {
                    <p class="notice" role="status">"No carrier account is connected: every rate comes from the platform's accounts."</p>
                }.into_any()
            } else { view! {
                <div class="table-wrap">
                    <table>
                        <caption class="visually-hidden">"Connected carrier accounts"</caption>
                        <thead><tr>
                            <th scope="col">"Carrier"</th><th scope="col">"Description"</th>
                            <th scope="col">"State"</th><th scope="col">"Connected"</th><th scope="col">"Account id"</th>
                        </tr></thead>
                        <tbody>
                            {list.carrier_accounts.into_iter().map(|a| {
                                let (state, tone, note) = match a.status {
                                    CarrierAccountStatus::Active => ("Active", Tone::Good, "Its rates are offered.".into_any()),
                                    CarrierAccountStatus::InvalidCredentials => ("Invalid credentials", Tone::Bad, view! {
                                        "The carrier rejected the stored credentials: its rates are not offered. Reconnect it in " <ServiceDashboard/> "."
                                    }.into_any()),
                                };
                                view! {
                                    <tr>
                                        <td data-label="Carrier">{a.carrier}</td>
                                        <td data-label="Description">{a.description}</td>
                                        <td data-label="State"><StatusBadge text=state tone /> <span class="hint">{note}</span></td>
                                        <td data-label="Connected"><When unix=a.created_at /></td>
                                        <td data-label="Account id"><code>{a.id}</code></td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
            }.into_any() }}
        </Loader>
    }
}
