//! The audit log (admins): who changed what in the organization, newest
//! first, a page at a time.

use crate::api::Client;
use crate::components::dates::When;
use crate::components::error_view::ErrorView;
use crate::components::loader::Loader;
use crate::state::write::Write;
use api::orgs::{AuditAction, AuditEntry, AuditPage};
use leptos::prelude::*;

/// An entry's action in words.
pub fn action_words(action: AuditAction) -> &'static str {
    match action {
        AuditAction::OrgCreated => "Created the organization",
        AuditAction::MemberJoined => "Joined",
        AuditAction::RoleChanged => "Changed a role",
        AuditAction::MemberRemoved => "Removed a member",
        AuditAction::InviteCreated => "Invited someone",
        AuditAction::InviteRevoked => "Revoked an invitation",
        AuditAction::ResetLinkCreated => "Made a password reset link",
        AuditAction::PasswordReset => "Set a new password with a reset link",
        AuditAction::KeySet => "Set an API key",
        AuditAction::WebhookSecretSet => "Set the webhook secret",
        AuditAction::WidgetChanged => "Changed the widget",
        AuditAction::LiveModeChanged => "Turned live mode on or off",
        AuditAction::ModeSwitchChanged => "Changed who may switch between live and sandbox",
        AuditAction::BatchApproved => "Approved a batch total",
        AuditAction::LargePurchase => "Bought a label above the threshold",
        AuditAction::TokenCreated => "Made an access token",
        AuditAction::TokenRevoked => "Revoked an access token",
        AuditAction::PasskeyAdded => "Added a passkey",
        AuditAction::PasskeyRemoved => "Removed a passkey",
        AuditAction::AddressSaved => "Changed a saved address",
        AuditAction::PackageSaved => "Changed a package preset",
        AuditAction::SignInLocked => "Refused an address's sign-ins",
        AuditAction::SignInSlowed => "Slowed sign-ins to an account",
        AuditAction::SignInUnlocked => "Lifted a sign-in lock",
        AuditAction::TrackingChanged => "Changed the tracking page",
    }
}

/// The log so far with the next page added at its end (older entries).
pub fn extend(log: &mut AuditPage, older: AuditPage) {
    log.entries.extend(older.entries);
    log.next_before = older.next_before;
}

fn row(e: AuditEntry) -> impl IntoView {
    view! {
        <tr>
            <td data-label="When"><When unix=e.at /></td>
            <td data-label="Who">{e.actor}</td>
            <td data-label="What">{action_words(e.action)}</td>
            <td data-label="Detail">{e.detail}</td>
        </tr>
    }
}

#[component]
pub fn AuditLogPage() -> impl IntoView {
    let client = Client::get();
    let log = LocalResource::new(move || client.audit(None));
    let next_before = move || log.with(|l| l.as_ref().and_then(|l| l.as_ref().ok()?.next_before));
    let older = Write::new(move || async move {
        let Some(before) =
            log.with_untracked(|l| l.as_ref().and_then(|l| l.as_ref().ok()?.next_before))
        else {
            return Ok(());
        };
        let page = client.audit(Some(before)).await?;
        log.update(|l| {
            if let Some(Ok(l)) = l {
                extend(l, page);
            }
        });
        Ok(())
    });
    view! {
        <h1>"Audit log"</h1>
        <p class="hint">"Who changed keys, secrets, roles, members, invitations and widget settings, who approved batch totals, and every purchase above the threshold. Nothing in it can be changed or deleted."</p>
        <Loader resource=log loading="Loading the audit log…" let:page>
            {if page.entries.is_empty() {
                view! { <p class="empty">"Nothing recorded yet."</p> }.into_any()
            } else {
                let shown = page.entries.len();
                view! {
                    <div class="table-wrap">
                        <table class="wrap-words">
                            <caption class="visually-hidden">"The organization's audit log, newest first"</caption>
                            <thead><tr>
                                <th scope="col">"When"</th><th scope="col">"Who"</th>
                                <th scope="col">"What"</th><th scope="col">"Detail"</th>
                            </tr></thead>
                            <tbody>{page.entries.into_iter().map(row).collect_view()}</tbody>
                        </table>
                    </div>
                    <p class="hint" role="status">
                        {format!("{shown} {} shown", if shown == 1 { "entry" } else { "entries" })}
                        {page.next_before.is_none().then_some(": the whole log.")}
                    </p>
                }.into_any()
            }}
        </Loader>
        // Outside the table so focus stays on it as entries arrive.
        <button type="button" class="secondary" hidden=move || next_before().is_none()
            disabled=move || older.pending() on:click=move |_| older.submit()>
            {move || older.label("Older entries", "Loading older entries…")}
        </button>
        {move || older.error().map(|error| view! { <ErrorView error /> })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64) -> AuditEntry {
        AuditEntry {
            seq,
            at: 1_700_000_000 + seq,
            actor: "Ada <ada@example.com>".into(),
            action: AuditAction::RoleChanged,
            detail: "Bob: viewer → operator".into(),
        }
    }

    #[test]
    fn older_pages_go_after_and_carry_the_next_cursor() {
        let mut log = AuditPage {
            entries: vec![entry(9), entry(8)],
            next_before: Some(8),
        };
        extend(
            &mut log,
            AuditPage {
                entries: vec![entry(7)],
                next_before: None,
            },
        );
        let seqs: Vec<_> = log.entries.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [9, 8, 7]);
        assert_eq!(log.next_before, None);
    }
}
