use crate::api::ClientError;
use crate::state::clock::Clock;
use leptos::prelude::*;

/// The one error view: what happened and what to do next first; the
/// error's page (`api::errors_page`, served with the dashboard), and for a
/// refusal its code, HTTP status and a copyable request id folded under
/// "Details". A page that knows the next step better (an invitation
/// link, the last admin) gives it as `next`, in the suggestion's place, so
/// the view never says one thing twice. With `retry`, a 429 counts down from `Retry-After` and
/// retries by itself (give `retry` to reads only), and other errors offer a
/// "Try again" button.
#[component]
pub fn ErrorView(
    error: ClientError,
    #[prop(optional)] retry: Option<Callback<()>>,
    #[prop(default = None)] next: Option<&'static str>,
) -> impl IntoView {
    let kind = match &error {
        ClientError::Api { .. } => "refusal",
        ClientError::Network(_) => "network",
        ClientError::Decode(_) => "decode",
        ClientError::Passkey(_) => "passkey",
    };
    let suggestion = match &error {
        ClientError::Api { error: e, .. } => e.suggestion.clone(),
        ClientError::Network(_) => {
            "Check your connection. Nothing was refused; try again when you are back online."
                .to_string()
        }
        ClientError::Decode(_) => "Reload the page; if it persists, contact support.".to_string(),
        ClientError::Passkey(_) => "Try again, or use your email and password.".to_string(),
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
    let details = match &error {
        ClientError::Api { status, error: e } => {
            Some((*status, e.code.clone(), e.request_id.clone()))
        }
        _ => None,
    };
    view! {
        <div class="error-view" role="alert" data-kind=kind>
            <p class="error-title">{error.to_string()}</p>
            {match next {
                Some(next) => view! { <p class="error-suggestion" data-testid="refusal">{next}</p> }.into_any(),
                None => view! { <p class="error-suggestion">{suggestion}</p> }.into_any(),
            }}
            {countdown}
            <div class="error-actions">
                {details.as_ref().map(|(_, code, _)| view! {
                    <a href=api::errors_page(code) target="_blank" rel="noopener">"About this error"</a>
                })}
                {retry.filter(|_| !rate_limited).map(|retry| view! {
                    <button type="button" class="secondary" on:click=move |_| retry.run(())>"Try again"</button>
                })}
            </div>
            {details.map(|(status, code, id)| {
                let copy_id = id.clone();
                view! {
                    <details class="error-details">
                        <summary>"Details"</summary>
                        <p class="error-code request-id">
                            {format!("Code {code} · HTTP {status} · Request id ")}<code data-testid="request-id">{id}</code> " "
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
                    </details>
                }
            })}
        </div>
    }
}

/// A refusal in the one error view, with the page's own next step if it has one.
pub fn refused(error: ClientError, next: Option<&'static str>) -> impl IntoView {
    view! { <ErrorView error next /> }
}
