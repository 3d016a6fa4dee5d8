//! Webhook settings (an organization's admins): the organization's own
//! webhook URL, to paste into the service's dashboard; the secret the
//! service signs its deliveries with, entered here and from then on shown
//! only by its last four characters; and its rotation: the new secret
//! waits beside the current one (both verify), the service is changed,
//! then the new one is made the only one, or given up. What arrives is on
//! the Webhooks page.

use crate::api::{Client, ClientError};
use crate::components::credentials::{
    CredentialForm, CredentialTable, RotationEnd, SecretInput, Submit, rotation_steps, slot_name,
};
use crate::components::dates::When;
use crate::components::loader::{busy, failed};
use crate::components::service::{DASHBOARD, ServiceDashboard, dashboard_words};
use crate::state::write::Write;
use api::ErrorCode;
use api::orgs::{OrgWebhook, WEBHOOK_SECRET_MIN_CHARS, WebhookSecretChange, WebhookSecretInfo};
use api::session::KeySlot;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;

/// The input's id; what is said under it is named after it.
const INPUT: &str = "webhook-secret";
/// The field the Worker names when it refuses the typed secret itself.
const FIELD: &str = "secret";

/// Where the organization's secrets are in their life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// No secret: every delivery to the URL is refused.
    Empty,
    /// One secret verifies: a secret entered starts a rotation.
    Steady,
    /// A new secret waits beside the current one; both verify.
    Rotating,
}

/// The rotation, as the page lists it (`{dashboard}`: `service::DASHBOARD`).
pub const STEPS: [&str; 3] = [
    "Enter the new secret here. Until the rotation ends, a delivery signed with either secret is accepted.",
    "Change the secret in {dashboard} to the new one.",
    "Make the new secret the only one (or discard it and keep the old one).",
];

impl Stage {
    pub fn of(secrets: &[WebhookSecretInfo]) -> Stage {
        let has = |slot| secrets.iter().any(|s| s.slot == slot);
        match (has(KeySlot::Current), has(KeySlot::Next)) {
            (_, true) => Stage::Rotating,
            (true, false) => Stage::Steady,
            (false, false) => Stage::Empty,
        }
    }

    /// The slot a secret entered now takes: the first one is the current
    /// one; after that, a new one waits beside it (replacing a waiting one).
    pub fn slot_for_new_secret(self) -> KeySlot {
        match self {
            Stage::Empty => KeySlot::Current,
            Stage::Steady | Stage::Rotating => KeySlot::Next,
        }
    }

    /// The index in `STEPS` of the step to take now (`None`: nothing to rotate).
    pub fn step(self) -> Option<usize> {
        match self {
            Stage::Empty => None,
            Stage::Steady => Some(0),
            Stage::Rotating => Some(1),
        }
    }
}

/// The redacted form (`…1234`) of the secret in `slot`, if there is one.
fn redacted(secrets: &[WebhookSecretInfo], slot: KeySlot) -> Option<&str> {
    secrets
        .iter()
        .find(|s| s.slot == slot)
        .map(|s| s.redacted.as_str())
}

/// What saving a secret would do, given the secrets as read.
pub fn effect(secrets: &[WebhookSecretInfo]) -> String {
    let current = redacted(secrets, KeySlot::Current).unwrap_or_default();
    match (Stage::of(secrets), redacted(secrets, KeySlot::Next)) {
        (Stage::Empty, _) => {
            "Saving makes it the organization's webhook secret: deliveries to the URL above signed with it are accepted.".into()
        }
        (Stage::Rotating, Some(next)) => {
            format!("Saving replaces the new secret {next}; {current} keeps verifying.")
        }
        _ => format!(
            "Saving starts a rotation: the new secret waits beside {current}, and a delivery signed with either is accepted until you end it."
        ),
    }
}

/// Why the typed secret cannot be saved as it is (said with
/// `service::dashboard_words`). The Worker checks the rest (its longest
/// length, no spaces) and says so at the field.
pub fn typed_problem(typed: &str) -> Option<String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Some(format!("Paste the webhook secret from {DASHBOARD}."));
    }
    (typed.chars().count() < WEBHOOK_SECRET_MIN_CHARS).then(|| {
        format!(
            "That is too short for a webhook secret: those from {DASHBOARD} are at least {WEBHOOK_SECRET_MIN_CHARS} characters. Paste all of it."
        )
    })
}

/// What the refusal of a rotation's end asks of the admin.
fn move_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    (code? == &ErrorCode::EdgeKeyNoNext).then_some(
        "The rotation has already ended (another admin, or another tab): the secrets below are current.",
    )
}

/// The organization's webhook as last read or changed: `None` until the
/// first answer. A signal, not a `LocalResource` with the `Loader`, as on
/// the API keys page: each resource type costs the chunk kilobytes of wasm.
#[derive(Clone, Copy)]
struct Hook {
    client: Client,
    state: RwSignal<Option<Result<OrgWebhook, ClientError>>>,
}

impl Hook {
    fn read(self) {
        spawn_local(async move {
            let read = self.client.org_webhook().await;
            self.state.set(Some(read));
        });
    }

    /// Sends `change`; the answer is the webhook as it now stands. Refused,
    /// the webhook is read again (another admin may have changed it).
    async fn change(self, change: WebhookSecretChange) -> Result<(), ClientError> {
        match self.client.change_org_webhook(&change).await {
            Ok(hook) => {
                self.state.set(Some(Ok(hook)));
                Ok(())
            }
            Err(error) => {
                self.read();
                Err(error)
            }
        }
    }

    /// The secrets as read (tracked; `None` until read).
    fn secrets(self) -> Option<Vec<WebhookSecretInfo>> {
        self.state.with(|s| match s {
            Some(Ok(hook)) => Some(hook.secrets.clone()),
            _ => None,
        })
    }
}

#[component]
pub fn WebhookSettingsPage() -> impl IntoView {
    let hook = Hook {
        client: Client::get(),
        state: RwSignal::new(None),
    };
    hook.read();
    let retry = Callback::new(move |()| hook.read());
    // The rotation's end: the new secret kept, or given up. Made here, not
    // in the list: its refusal outlives the list read again.
    let end = RotationEnd::new(move |keep| {
        hook.change(if keep {
            WebhookSecretChange::Promote
        } else {
            WebhookSecretChange::DiscardNext
        })
    });
    let origin = window().location().origin().unwrap_or_default();
    view! {
        <h1>"Webhook settings"</h1>
        <p class="lead">"The service tells the organization about each label it makes (label.created) by a delivery to the organization's own URL, signed with a secret from its dashboard."</p>
        <p class="hint">
            "Only deliveries signed with this organization's secret are accepted; they appear on the "
            <A href="/webhooks">"Webhooks"</A> " page. The secret is kept encrypted: once saved, only its last four characters are shown."
        </p>
        {move || match hook.state.get() {
            None => busy("Loading the webhook settings…"),
            Some(Err(error)) => failed(error, retry),
            Some(Ok(loaded)) => view! {
                {url_section(format!("{origin}{}", loaded.path))}
                {secrets_section(loaded.secrets, end)}
            }.into_any(),
        }}
        <section aria-labelledby="enter-secret-title">
            <h2 id="enter-secret-title">"Enter the secret"</h2>
            {secret_form(hook)}
        </section>
    }
}

/// The URL to paste into the service's dashboard, with a Copy button.
fn url_section(url: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let to_copy = url.clone();
    view! {
        <section aria-labelledby="webhook-url-title">
            <h2 id="webhook-url-title">"Webhook URL"</h2>
            <div class="inline-form">
                <input id="webhook-url" class="copyable" readonly prop:value=url
                    aria-labelledby="webhook-url-title" aria-describedby="webhook-url-hint"
                    on:focus=move |ev| { event_target::<web_sys::HtmlInputElement>(&ev).select() } />
                <button type="button" class="secondary" on:click=move |_| {
                    let _ = window().navigator().clipboard().write_text(&to_copy);
                    copied.set(true);
                }>{move || if copied.get() { "Copied" } else { "Copy URL" }}</button>
            </div>
            <p class="hint" id="webhook-url-hint">"In " <ServiceDashboard/> ", set it as the webhook URL for label.created events. It names this organization: a delivery to it lands only in this organization's inbox."</p>
        </section>
    }
}

/// The secrets, and the rotation's step to take now with its buttons.
fn secrets_section(secrets: Vec<WebhookSecretInfo>, end: RotationEnd) -> impl IntoView {
    let stage = Stage::of(&secrets);
    let current = redacted(&secrets, KeySlot::Current)
        .unwrap_or_default()
        .to_string();
    let next = redacted(&secrets, KeySlot::Next)
        .unwrap_or_default()
        .to_string();
    let steps = stage
        .step()
        .map(|at| rotation_steps("Rotating the secret".into(), &STEPS, at));
    let keep = format!("Make {next} the only secret");
    view! {
        <section class="card wide" aria-labelledby="secrets-title">
            <h2 id="secrets-title">"Signing secrets"</h2>
            {(stage == Stage::Empty).then(|| view! {
                <p class="notice notice-warn">"No secret yet: every delivery to the URL above is refused until one is entered below."</p>
            })}
            {(stage != Stage::Empty).then(|| secret_table(secrets))}
            {steps}
            {(stage == Stage::Rotating).then(|| view! {
                <p class="hint">{format!(
                    "Deliveries signed with {current} or {next} are accepted. Once the service signs with {next}, make it the only secret: {current} stops verifying."
                )}</p>
                <div class="dialog-actions">
                    {end.keep_button(keep)}
                    {end.give_up_button(format!("Discard the new secret {next}"))}
                </div>
            })}
            {end.refusal(move_refusal)}
        </section>
    }
}

fn secret_table(secrets: Vec<WebhookSecretInfo>) -> impl IntoView {
    view! {
        <CredentialTable caption="The organization's webhook secrets"
            columns=vec!["Secret", "Slot", "Set by", "Set"]>
            {secrets.into_iter().map(|s| view! {
                <tr data-slot=s.slot.as_str()>
                    <td data-label="Secret"><code>{s.redacted}</code></td>
                    <td data-label="Slot">{slot_name(s.slot)}</td>
                    <td data-label="Set by">{s.set_by}</td>
                    <td data-label="Set"><When unix=s.set_at /></td>
                </tr>
            }).collect_view()}
        </CredentialTable>
    }
}

/// The one place a secret is typed: masked, and cleared once saved.
fn secret_form(hook: Hook) -> impl IntoView {
    let typed = RwSignal::new(String::new());
    let tried = RwSignal::new(false);
    let problem = move || {
        tried
            .get()
            .then(|| typed.with(|t| typed_problem(t)))
            .flatten()
            .map(|p| dashboard_words(&p))
    };
    let save = Write::new(move || async move {
        let Some(secrets) = untrack(|| hook.secrets()) else {
            return Ok(());
        };
        let change = WebhookSecretChange::Set {
            secret: typed.get_untracked().trim().to_string(),
            slot: Stage::of(&secrets).slot_for_new_secret(),
        };
        hook.change(change).await?;
        // Saved: the secret leaves the page; its last four are in the list.
        typed.set(String::new());
        tried.set(false);
        Ok(())
    });
    let check = move || {
        if typed.with_untracked(|t| typed_problem(t)).is_some() {
            Submit::Fix(INPUT)
        } else {
            Submit::Send
        }
    };
    // What saving would do, once the secrets are read and one is typed.
    let effect = move || {
        let whole = typed.with(|t| typed_problem(t).is_none());
        whole.then(|| hook.secrets().map(|s| effect(&s))).flatten()
    };
    view! {
        <CredentialForm class="account-form" write=save tried check
            button=("Save the secret", "Saving the secret…")
            ready=Signal::derive(move || hook.secrets().is_some()) at_field=FIELD>
            <SecretInput id=INPUT label="Webhook secret"
                hint="As {dashboard} shows it for the URL above."
                typed problem effect effect_id="secret-effect" save field=FIELD />
        </CredentialForm>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(slot: KeySlot, last4: &str) -> WebhookSecretInfo {
        WebhookSecretInfo {
            slot,
            redacted: format!("…{last4}"),
            set_at: 1,
            set_by: "Ada".into(),
        }
    }

    #[test]
    fn a_rotation_goes_step_by_step() {
        let current = secret(KeySlot::Current, "aaaa");
        let next = secret(KeySlot::Next, "bbbb");
        let cases = [
            (vec![], Stage::Empty, KeySlot::Current, None),
            (vec![current.clone()], Stage::Steady, KeySlot::Next, Some(0)),
            (vec![current, next], Stage::Rotating, KeySlot::Next, Some(1)),
        ];
        for (secrets, stage, slot, step) in cases {
            assert_eq!(Stage::of(&secrets), stage, "{secrets:?}");
            assert_eq!(stage.slot_for_new_secret(), slot);
            assert_eq!(stage.step(), step);
        }
    }

    #[test]
    fn saving_says_what_it_does_by_the_last_four_only() {
        let current = secret(KeySlot::Current, "aaaa");
        let next = secret(KeySlot::Next, "bbbb");
        assert!(effect(&[]).starts_with("Saving makes it the organization's webhook secret"));
        assert_eq!(
            effect(std::slice::from_ref(&current)),
            "Saving starts a rotation: the new secret waits beside …aaaa, and a delivery signed with either is accepted until you end it."
        );
        assert_eq!(
            effect(&[current, next]),
            "Saving replaces the new secret …bbbb; …aaaa keeps verifying."
        );
    }

    #[test]
    fn a_typed_secret_is_whole_before_it_is_sent() {
        assert!(typed_problem("  ").unwrap().starts_with("Paste"));
        assert!(typed_problem("whsec_0123").unwrap().contains("at least 16"));
        assert_eq!(typed_problem(" whsec_0123456789abcdef "), None);
        // Spaces inside and the longest length are the Worker's to refuse, at the field.
        assert_eq!(typed_problem("whsec_0123 456789abcdef"), None);
        assert!(move_refusal(Some(&ErrorCode::EdgeKeyNoNext)).is_some());
        assert_eq!(move_refusal(Some(&ErrorCode::EdgeRoleForbidden)), None);
        assert_eq!(move_refusal(None), None);
    }
}
