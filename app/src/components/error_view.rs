use crate::api::ClientError;
use leptos::prelude::*;

/// The one error view: what happened, what to do next, the docs link and a
/// request id to quote to support.
#[component]
pub fn ErrorView(error: ClientError) -> impl IntoView {
    let (title, suggestion, docs, request_id) = match &error {
        ClientError::Api { error, .. } => (
            error.message.clone(),
            error.suggestion.clone(),
            Some(error.docs_url.clone()),
            Some(error.request_id.clone()),
        ),
        ClientError::Network(_) => (
            error.to_string(),
            "Check your connection; nothing was sent. Try again when you are back online."
                .to_string(),
            None,
            None,
        ),
        ClientError::Decode(_) => (
            error.to_string(),
            "Reload the page; if it persists, contact support.".to_string(),
            None,
            None,
        ),
    };
    view! {
        <div class="error-view" role="alert">
            <p class="error-title">{title}</p>
            <p class="error-suggestion">{suggestion}</p>
            {docs.map(|href| view! { <a href=href target="_blank" rel="noopener">"Read the docs"</a> })}
            {request_id.map(|id| view! { <p class="request-id">"Request id: " <code>{id}</code></p> })}
        </div>
    }
}
