//! API status: the key's environment and scopes (never the key), each
//! endpoint's budget as last seen, the user's role, and key rotation for
//! admins (an organization's own keys are rotated on its keys page).

use crate::api::Client;
use crate::components::dates::time;
use crate::components::error_view::ErrorView;
use crate::components::loader::Loader;
use crate::components::service::ServiceDashboard;
use crate::components::status_badge::{StatusBadge, Tone};
use crate::page_table::KEYS_PAGE;
use crate::state::write::Write;
use api::KeyEnv;
use api::session::{KeySlot, KeyVerification, ModeKeys};
use leptos::prelude::*;
use leptos_router::components::A;

pub fn mode_name(m: KeyEnv) -> &'static str {
    match m {
        KeyEnv::Live => "Live",
        KeyEnv::Sandbox => "Sandbox",
    }
}

/// Verifying and activating a mode's next key: the buttons, the
/// confirmation and what the service said. The deployment's rotation
/// (here, its next key a Worker secret) and an organization's (`keys`,
/// its next key entered in the app) both end with it.
#[component]
pub fn ActivateNext(mode: KeyEnv, on_changed: Callback<()>) -> impl IntoView {
    let client = Client::get();
    let confirm = RwSignal::new(false);
    let verified = RwSignal::new(None::<KeyVerification>);
    let verify = Write::new(move || async move {
        verified.set(None);
        verified.set(Some(client.verify_key(mode).await?));
        Ok(())
    });
    let activate = Write::new(move || async move {
        verified.set(None);
        let activated = client.activate_key(mode).await?;
        confirm.set(false);
        match activated {
            Ok(_) => {
                on_changed.run(());
                // The session names the key in use (and its problem, if any).
                if let Ok(info) = client.session().await {
                    client.session.set(Some(info));
                }
            }
            // The Worker verified it first, and the service refused it.
            Err(refused) => verified.set(Some(refused)),
        }
        Ok(())
    });
    let name = mode_name(mode).to_lowercase();
    let question = format!("activate-{}", mode.as_str());
    view! {
        <div class="dialog-actions">
            <button type="button" class="secondary" disabled=move || verify.pending() on:click=move |_| verify.submit()>
                {format!("Verify the new {name} key")}
            </button>
            <button type="button" on:click=move |_| confirm.set(true)>
                {format!("Activate the new {name} key")}
            </button>
        </div>
        {move || verified.get().map(|v| if v.ok {
            view! { <p role="status" class="ok">"Verified: " {v.message}</p> }.into_any()
        } else {
            view! { <p role="alert" class="notice notice-warn">{format!("Not verified ({}): {}", v.code.map(|c| c.to_string()).unwrap_or_default(), v.message)}</p> }.into_any()
        })}
        {move || verify.error().map(|error| view! { <ErrorView error /> })}
        {move || confirm.get().then(|| view! {
            <div class="notice notice-warn" role="group" aria-labelledby=question.clone()>
                <p id=question.clone()>{format!("Every {name} call will use the new key from now on. It is verified first.")}</p>
                <div class="dialog-actions">
                    <button type="button" disabled=move || activate.pending() on:click=move |_| activate.submit()>
                        {move || activate.label("Yes, activate it", "Activating…")}
                    </button>
                    <button type="button" class="secondary" on:click=move |_| confirm.set(false)>"Cancel"</button>
                </div>
            </div>
        })}
        {move || activate.error().map(|error| view! { <ErrorView error /> })}
    }
}

/// The deployment's keys of one mode, and the activation of its next key.
#[component]
fn Rotation(keys: ModeKeys, on_changed: Callback<()>) -> impl IntoView {
    let mode = keys.mode;
    let rows = keys
        .keys
        .iter()
        .map(|k| {
            view! {
                <li>
                    <code>{k.redacted.clone()}</code> " "
                    {match k.slot { KeySlot::Current => "current slot", KeySlot::Next => "next slot" }}
                    {k.active.then(|| view! { " " <StatusBadge text="In use" tone=Tone::Good /> })}
                </li>
            }
        })
        .collect_view();
    let waiting = keys
        .keys
        .iter()
        .any(|k| k.slot == KeySlot::Next && !k.active);
    view! {
        <section class="card wide" aria-labelledby=format!("keys-{}", mode.as_str())>
            <h3 id=format!("keys-{}", mode.as_str())>{format!("{} keys", mode_name(mode))}</h3>
            {keys.problem.clone().map(|p| view! { <p class="notice notice-warn" role="alert">{format!("The service refused the key in use: {p}. Rotate it.")}</p> })}
            <ul class="plain">{rows}</ul>
            <p class="hint">{format!("Key scopes: {}", keys.scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))}</p>
            {waiting.then(|| view! { <ActivateNext mode on_changed /> })}
        </section>
    }
}

#[component]
pub fn StatusPage() -> impl IntoView {
    let client = Client::get();
    let session = client.session;
    let limits = LocalResource::new(move || client.limits());
    // Whose rotation this is: the deployment's (its keys are Worker
    // secrets) or an organization's (entered on its keys page).
    let rotates = session.with_untracked(|s| {
        s.as_ref()
            .filter(|s| s.can_rotate_keys)
            .map(|s| s.org.id.is_deployment())
    });
    view! {
        <h1>"API status"</h1>
        {move || session.get().map(|s| view! {
            <section class="card wide" aria-labelledby="session-title">
                <h2 id="session-title">"Your access"</h2>
                <dl class="facts">
                    <dt>"Signed in as"</dt><dd>{s.user.clone()}</dd>
                    <dt>"Role"</dt><dd data-testid="role">{s.role.as_str()}</dd>
                    <dt>"Key environment"</dt>
                    <dd data-testid="environment">{mode_name(s.mode)} {(s.modes.len() > 1).then_some(" (both keys configured)")}</dd>
                    <dt>"Scopes you may use"</dt>
                    <dd data-testid="scopes">
                        <ul class="scopes">
                            {s.scopes.iter().map(|sc| view! { <li><code>{sc.as_str()}</code></li> }).collect_view()}
                        </ul>
                    </dd>
                </dl>
                <p class="hint">"The API key itself never reaches the browser: the server holds it."</p>
            </section>
        })}
        <section aria-labelledby="limits-title">
            <h2 id="limits-title">"Rate limits, as last seen"</h2>
            <Loader resource=limits loading="Loading limits…" let:l>
                {if l.limits.is_empty() {
                    view! {
                        <p class="notice" role="status">"No call has been made with this key yet: nothing seen."</p>
                    }.into_any()
                } else { view! {
                    <div class="table-wrap">
                        <table>
                            <caption class="visually-hidden">"Each endpoint's per-minute budget as the service last reported it"</caption>
                            <thead><tr><th scope="col">"Endpoint"</th><th scope="col" class="num">"Remaining"</th><th scope="col" class="num">"Limit / min"</th><th scope="col">"Resets at"</th></tr></thead>
                            <tbody>
                                {l.limits.into_iter().map(|x| {
                                    let tone = if x.remaining == 0 { "num exhausted" } else { "num" };
                                    view! {
                                        <tr>
                                            <td data-label="Endpoint"><code>{x.endpoint}</code></td>
                                            <td data-label="Remaining" class=tone>{x.remaining}</td>
                                            <td data-label="Limit / min" class="num">{x.limit}</td>
                                            <td data-label="Resets at">{time(x.reset_at)}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                    <button type="button" class="secondary" on:click=move |_| limits.refetch()>"Refresh"</button>
                }.into_any() }}
            </Loader>
        </section>
        {(rotates == Some(false)).then(|| view! {
            <section aria-labelledby="rotation-title">
                <h2 id="rotation-title">"Key rotation"</h2>
                <p>"This organization's keys are entered and rotated on the "
                    <A href=KEYS_PAGE>"API keys"</A> " page."</p>
            </section>
        })}
        {(rotates == Some(true)).then(|| {
            let keys = LocalResource::new(move || client.keys());
            view! {
                <section aria-labelledby="rotation-title">
                    <h2 id="rotation-title">"Key rotation"</h2>
                    <p class="hint">"Create the new key in " <ServiceDashboard/> " with the same scopes, set it as the Worker's …_KEY_NEXT secret, verify it here, activate it, then revoke the old key."</p>
                    <Loader resource=keys loading="Loading keys…" let:k>
                        {k.modes.into_iter().map(|m| view! {
                            <Rotation keys=m on_changed=Callback::new(move |()| keys.refetch()) />
                        }).collect_view()}
                    </Loader>
                </section>
            }
        })}
    }
}
