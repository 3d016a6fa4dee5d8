//! The shipping service behind the deployment, as its session names it
//! (`SERVICE_NAME`): "NAME's dashboard", a link to it (in a new tab) when
//! the deployment gives its URL (`SERVICE_DASHBOARD_URL`). Every sentence
//! that sends merchants there says it through these.

use crate::api::Client;
use api::session::Service;
use leptos::either::Either;
use leptos::prelude::*;

/// Marks where a sentence names the service's dashboard, for sentences
/// made as text (a verdict, a step, a field's problem).
pub const DASHBOARD: &str = "{dashboard}";

/// The session's service; before a session, the deployment's default name.
pub fn service() -> Service {
    Client::get()
        .session
        .with_untracked(|s| s.as_ref().map(|s| s.service.clone()))
        .unwrap_or_else(|| Service {
            name: Service::DEFAULT_NAME.into(),
            dashboard_url: None,
        })
}

/// "NAME's dashboard" in a sentence; a link when its URL is known.
#[component]
pub fn ServiceDashboard() -> impl IntoView {
    let service = service();
    let words = service.dashboard();
    match service.dashboard_url {
        Some(href) => Either::Left(view! {
            <a href=href target="_blank" rel="noopener" data-testid="service-dashboard">{words}</a>
        }),
        None => Either::Right(words),
    }
}

/// `text` with each `DASHBOARD` in it said by `ServiceDashboard`.
pub fn with_dashboard(text: &str) -> impl IntoView + use<> {
    let mut parts = text.split(DASHBOARD).map(str::to_string).peekable();
    let mut views = Vec::new();
    while let Some(part) = parts.next() {
        let more = parts.peek().is_some();
        views.push(view! { {part} {more.then(|| view! { <ServiceDashboard/> })} });
    }
    views
}

/// `text` with each `DASHBOARD` in it as words, where a link cannot go
/// (an input's hint, a field's problem).
pub fn dashboard_words(text: &str) -> String {
    text.replace(DASHBOARD, &service().dashboard())
}
