use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <h1>"Page not found"</h1>
        <p>"There is nothing at this address. " <A href="/ship">"Ship a parcel"</A></p>
    }
}
