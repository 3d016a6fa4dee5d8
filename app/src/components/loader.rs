use crate::api::ClientError;
use crate::components::error_view::ErrorView;
use leptos::prelude::*;

/// The one frame around a page's fetched data: a busy line until the first
/// answer, the error view with "Try again" (and the 429 countdown) when it
/// fails, else `children` with the data. A refetch keeps the last answer on
/// screen until the new one arrives.
#[component]
pub fn Loader<T, V, F>(
    resource: LocalResource<Result<T, ClientError>>,
    /// The busy line, e.g. "Loading labels…".
    loading: &'static str,
    children: F,
) -> impl IntoView
where
    T: Clone + 'static,
    V: IntoView + 'static,
    F: Fn(T) -> V + Send + 'static,
{
    move || match resource.get() {
        None => busy(loading),
        Some(Err(error)) => failed(error, Callback::new(move |()| resource.refetch())),
        Some(Ok(value)) => children(value).into_any(),
    }
}

// Not generic, so every page shares one copy of them; the app's first
// session check uses them too.
pub fn busy(loading: &'static str) -> AnyView {
    view! { <p class="loading" aria-busy="true">{loading}</p> }.into_any()
}

pub fn failed(error: ClientError, retry: Callback<()>) -> AnyView {
    view! { <ErrorView error retry /> }.into_any()
}
