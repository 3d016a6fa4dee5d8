use crate::api::ClientError;
use crate::state::clock::Clock;
use leptos::prelude::*;

/// The one error view: whether the request was refused or never answered,
/// what happened, what to do next, the docs link and a copyable request id.
/// With `retry`, a 429 counts down from `Retry-After` and retries by itself
/// (give `retry` to reads only), and other errors offer a "Try again" button.
#[component]
pub fn ErrorView(
    error: ClientError,
    #[prop(optional)] retry: Option<Callback<()>>,
) -> impl IntoView {
    let kind = match &error {
        ClientError::Api { .. } => "refusal",
        ClientError::Network(_) => "network",
        ClientError::Decode(_) => "decode",
        ClientError::Passkey(_) => "passkey",
    };
    let (kicker, title, suggestion, docs, request_id) = match &error {
        ClientError::Api { status, error: e } => (
            format!("Refused by the server: {} (HTTP {status})", e.code),
            e.message.clone(),
            e.suggestion.clone(),
            Some(e.docs_url.clone()),
            Some(e.request_id.clone()),
        ),
        ClientError::Network(_) => (
            "Network problem: no answer".to_string(),
            error.to_string(),
            "Check your connection. Nothing was refused; try again when you are back online."
                .to_string(),
            None,
            None,
        ),
        ClientError::Decode(_) => (
            "Unexpected answer".to_string(),
            error.to_string(),
            "Reload the page; if it persists, contact support.".to_string(),
            None,
            None,
        ),
        ClientError::Passkey(_) => (
            "Passkey not used".to_string(),
            error.to_string(),
            "Try again, or use your email and password.".to_string(),
            None,
            None,
        ),
    };
    let countdown = error.retry_after().map(|secs| {
        let clock = Clock::get();
        let deadline = clock.now_untracked() + secs as f64 * 1000.0;
        let left = clock.seconds_until(deadline);
        if let Some(retry) = retry {
            let fired = StoredValue::new(false);
            Effect::new(move |_| {
                if left.get() == 0 && !fired.get_value() {
                    fired.set_value(true);
                    retry.run(());
                }
            });
        }
        let auto = retry.is_some();
        view! {
            <p class="countdown" role="status" data-testid="retry-countdown">
                {move || {
                    let s = left.get();
                    if auto {
                        format!("Too many requests. Retrying automatically in {s} s.")
                    } else {
                        format!("Too many requests. You can try again in {s} s.")
                    }
                }}
            </p>
        }
    });
    let rate_limited = countdown.is_some();
    let copied = RwSignal::new(false);
    view! {
        <div class="error-view" role="alert" data-kind=kind>
            <p class="error-kicker">{kicker}</p>
            <p class="error-title">{title}</p>
            <p class="error-suggestion">{suggestion}</p>
            {countdown}
            <div class="error-actions">
                {docs.map(|href| view! { <a href=href target="_blank" rel="noopener">"Read the docs"</a> })}
                {retry.filter(|_| !rate_limited).map(|retry| view! {
                    <button type="button" class="secondary" on:click=move |_| retry.run(())>"Try again"</button>
                })}
            </div>
            {request_id.map(|id| {
                let copy_id = id.clone();
                view! {
                    <p class="request-id">
                        "Request id: " <code data-testid="request-id">{id}</code> " "
                        <button
                            type="button"
                            class="secondary small"
                            on:click=move |_| {
                                if let Some(w) = web_sys::window() {
                                    let _ = w.navigator().clipboard().write_text(&copy_id);
                                }
                                copied.set(true);
                            }
                        >
                            {move || if copied.get() { "Copied" } else { "Copy request id" }}
                        </button>
                    </p>
                }
            })}
        </div>
    }
}

/// A refusal: what to do next, then the one error view.
pub fn refused(error: ClientError, next: Option<&'static str>) -> impl IntoView {
    view! {
        {next.map(|text| view! { <p class="notice notice-warn" data-testid="refusal">{text}</p> })}
        <ErrorView error />
    }
}
