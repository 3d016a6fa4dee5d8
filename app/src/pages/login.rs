use crate::api::Client;
use crate::components::error_view::ErrorView;
use crate::state::write::Write;
use leptos::prelude::*;

/// Sign-in with the access token an admin gave the user. The token goes to
/// the Worker once; the browser keeps only the HttpOnly session cookie.
#[component]
pub fn LoginPage() -> impl IntoView {
    let client = Client::get();
    let token = RwSignal::new(String::new());
    let sign_in = Write::new(move || async move {
        let typed = token.get_untracked().trim().to_string();
        client.sign_in(typed).await.map(drop)
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if !token.get_untracked().trim().is_empty() {
            sign_in.submit();
        }
    };
    view! {
        <section class="login card" aria-labelledby="login-title">
            <h1 id="login-title">"Sign in to Parcel"</h1>
            <form on:submit=submit>
                <label for="token">"Access token"</label>
                <input
                    id="token"
                    name="token"
                    type="password"
                    autocomplete="current-password"
                    required
                    prop:value=move || token.get()
                    on:input=move |ev| token.set(event_target_value(&ev))
                />
                <p class="hint">"Your administrator gives you this token; it starts with pt_."</p>
                <button type="submit" disabled=move || sign_in.pending()>
                    {move || sign_in.label("Sign in", "Signing in…")}
                </button>
            </form>
            {move || sign_in.error().map(|error| view! { <ErrorView error /> })}
        </section>
    }
}
