//! Team (admins): the members with their role and last sign-in, role
//! changes, password reset links (shown once) and removal; invitations by
//! link (the link shown once), their states, and revoking the pending ones;
//! whether operators may switch between live and sandbox.

use super::invite::role_words;
use crate::api::{Client, ClientError};
use crate::components::confirm_inline::ConfirmInline;
use crate::components::dates::When;
use crate::components::error_view::{ErrorView, refused};
use crate::components::field::{advice, advice_id, focus};
use crate::components::loader::Loader;
use crate::components::status_badge::{StatusBadge, Tone};
use crate::state::session::reread;
use crate::state::write::Write;
use api::ErrorCode;
use api::orgs::{
    AccountId, INVITE_DEFAULT_DAYS, INVITE_MAX_DAYS, INVITE_PAGE, Invite, InviteCreated,
    InviteList, InviteRequest, InviteState, Member, MemberList, ModeSwitch, RESET_PAGE,
    ResetCreated,
};
use api::session::Role;
use leptos::prelude::*;

/// The link an invitation's token makes: the token in the fragment, which
/// browsers never send to a server.
pub fn invite_link(origin: &str, token: &str) -> String {
    format!("{origin}{INVITE_PAGE}#{token}")
}

/// The link a password reset token makes, likewise.
pub fn reset_link(origin: &str, token: &str) -> String {
    format!("{origin}{RESET_PAGE}#{token}")
}

/// How long a new invitation lasts, as typed.
pub fn expiry_days(typed: &str) -> Result<u32, String> {
    match typed.trim().parse::<u32>() {
        Ok(days) if (1..=INVITE_MAX_DAYS).contains(&days) => Ok(days),
        _ => Err(format!("Choose 1 to {INVITE_MAX_DAYS} days.")),
    }
}

/// What a refused change to a member asks of the admin.
pub fn member_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    match code? {
        ErrorCode::EdgeMemberLastAdmin => Some(
            "An organization keeps at least one admin: make another member admin first, then change or remove this one.",
        ),
        ErrorCode::EdgeMemberNotFound => {
            Some("This person is no longer a member. The list below is current.")
        }
        _ => None,
    }
}

fn state_badge(state: InviteState) -> (&'static str, Tone) {
    match state {
        InviteState::Pending => ("Pending", Tone::Warn),
        InviteState::Accepted => ("Accepted", Tone::Good),
        InviteState::Revoked => ("Revoked", Tone::Bad),
        InviteState::Expired => ("Expired", Tone::Neutral),
    }
}

fn role_options(selected: Role) -> impl IntoView {
    Role::ALL
        .iter()
        .map(|r| view! { <option value=r.as_str() selected=*r == selected>{r.as_str()}</option> })
        .collect_view()
}

#[component]
pub fn TeamPage() -> impl IntoView {
    let client = Client::get();
    let members = LocalResource::new(move || client.members());
    let invites = LocalResource::new(move || client.invites());
    view! {
        <h1>"Team"</h1>
        <section aria-labelledby="members-title">
            <h2 id="members-title">"Members"</h2>
            <Members members />
        </section>
        <section aria-labelledby="invite-title">
            <h2 id="invite-title">"Invite someone"</h2>
            <NewInvite invites />
        </section>
        <section aria-labelledby="invites-title">
            <h2 id="invites-title">"Invitations"</h2>
            <Invites invites />
        </section>
        <section aria-labelledby="mode-switch-title">
            <h2 id="mode-switch-title">"Live and sandbox"</h2>
            <ModeSwitchSetting />
        </section>
    }
}

/// Whether operators may switch their sessions between live and sandbox
/// (admins always may, viewers never); each change is in the audit log.
#[component]
fn ModeSwitchSetting() -> impl IntoView {
    let client = Client::get();
    let setting = LocalResource::new(move || client.org_mode_switch());
    let wanted = RwSignal::new(false);
    let save = Write::new(move || async move {
        let operators = wanted.get_untracked();
        client.set_org_mode_switch(ModeSwitch { operators }).await?;
        setting.refetch();
        Ok(())
    });
    view! {
        <Loader resource=setting loading="Loading the setting…" let:current>
            <label class="checkbox">
                <input id="operators-switch-mode" type="checkbox" prop:checked=current.operators
                    disabled=move || save.pending()
                    on:change=move |ev| { wanted.set(event_target_checked(&ev)); save.submit() } />
                "Operators may switch between live and sandbox"
            </label>
            <p class="hint">"Admins always may; viewers never do. Each change is in the audit log."</p>
        </Loader>
        {move || save.error().map(|error| view! { <ErrorView error /> })}
    }
}

#[component]
fn Members(members: LocalResource<Result<MemberList, ClientError>>) -> impl IntoView {
    let client = Client::get();
    let role_change = RwSignal::new(None::<(AccountId, Role)>);
    let change = Write::new(move || async move {
        let Some((account, role)) = role_change.get_untracked() else {
            return Ok(());
        };
        let answer = client.set_member_role(account, role).await;
        settle(client, members, answer).await
    });
    // The member whose removal waits for "Yes, remove".
    let removing = RwSignal::new(None::<AccountId>);
    let remove = Write::new(move || async move {
        let Some(account) = removing.get_untracked() else {
            return Ok(());
        };
        let answer = client.remove_member(account).await;
        removing.set(None);
        settle(client, members, answer).await
    });
    // The member a reset link is asked for (by name, for its card), and the link made.
    let resetting = RwSignal::new(None::<(AccountId, String)>);
    let made = RwSignal::new(None::<(String, ResetCreated)>);
    let reset = Write::new(move || async move {
        made.set(None);
        let Some((account, name)) = resetting.get_untracked() else {
            return Ok(());
        };
        made.set(Some((name, client.create_reset(account).await?)));
        request_animation_frame(|| focus("copy-reset"));
        Ok(())
    });
    view! {
        <Loader resource=members loading="Loading members…" let:list>
            <div class="table-wrap">
                <table class="wrap-words">
                    <caption class="visually-hidden">"Members of the organization, with their role and last sign-in"</caption>
                    <thead><tr>
                        <th scope="col">"Name"</th><th scope="col">"Email"</th><th scope="col">"Role"</th>
                        <th scope="col">"Joined"</th><th scope="col">"Last sign-in"</th>
                        <th scope="col"><span class="visually-hidden">"Reset link and removal"</span></th>
                    </tr></thead>
                    <tbody>
                        {list.members.into_iter().map(|m| view! {
                            <MemberRow member=m role_change change removing remove resetting reset />
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </Loader>
        {move || change.error().or_else(|| remove.error()).or_else(|| reset.error()).map(|error| {
            let next = member_refusal(error.code());
            refused(error, next)
        })}
        {move || made.get().map(|(name, c)| {
            let link = reset_link(&window().location().origin().unwrap_or_default(), &c.token);
            view! {
                <section class="card wide invite-link" aria-labelledby="reset-title">
                    <h3 id="reset-title">{format!("Password reset link for {name}")}</h3>
                    <p><strong>"This link is shown once."</strong>
                        " Give it to " {name.clone()} " yourself (Parcel sends no e-mail). It works once, until "
                        <When unix=c.expires_at /> ", for whoever opens it: they choose a new password and are signed in. An earlier link for them no longer works."</p>
                    <CopyLink id="reset-link" copy_id="copy-reset" label="Password reset link" link on_done=move || made.set(None) />
                </section>
            }
        })}
    }
}

/// A link shown once, selected on focus, with "Copy link" and "Done".
#[component]
fn CopyLink(
    id: &'static str,
    copy_id: &'static str,
    label: &'static str,
    link: String,
    on_done: impl Fn() + 'static,
) -> impl IntoView {
    let copied = RwSignal::new(false);
    let to_copy = link.clone();
    view! {
        <label for=id>{label}</label>
        <input id=id class="copyable" readonly prop:value=link
            on:focus=move |ev| { event_target::<web_sys::HtmlInputElement>(&ev).select() } />
        <div class="dialog-actions">
            <button type="button" id=copy_id on:click=move |_| {
                let _ = window().navigator().clipboard().write_text(&to_copy);
                copied.set(true);
            }>{move || if copied.get() { "Copied" } else { "Copy link" }}</button>
            <button type="button" class="secondary" on:click=move |_| on_done()>"Done"</button>
        </div>
    }
}

/// A member change's answer becomes the list (a refused one re-reads it:
/// the refusal may say it moved on); the session is read again, since the
/// admin may have changed or removed themselves.
async fn settle(
    client: Client,
    members: LocalResource<Result<MemberList, ClientError>>,
    answer: Result<MemberList, ClientError>,
) -> Result<(), ClientError> {
    match answer {
        Ok(list) => {
            members.set(Some(Ok(list)));
            reread(client).await;
            Ok(())
        }
        Err(error) => {
            if error.code() == Some(&ErrorCode::EdgeMemberNotFound) {
                members.refetch();
            }
            Err(error)
        }
    }
}

#[component]
fn MemberRow(
    member: Member,
    role_change: RwSignal<Option<(AccountId, Role)>>,
    change: Write,
    removing: RwSignal<Option<AccountId>>,
    remove: Write,
    resetting: RwSignal<Option<(AccountId, String)>>,
    reset: Write,
) -> impl IntoView {
    let Member {
        account,
        name,
        email,
        role,
        joined_at,
        last_sign_in,
    } = member;
    let chosen = RwSignal::new(role);
    let for_change = account.clone();
    let save = move |_| {
        change.clear();
        role_change.set(Some((for_change.clone(), chosen.get_untracked())));
        change.submit();
    };
    let who = name.clone();
    let for_reset = (account.clone(), name.clone());
    let resetting_this = {
        let account = account.clone();
        move || {
            reset.pending() && resetting.with(|r| r.as_ref().is_some_and(|(a, _)| *a == account))
        }
    };
    view! {
        <tr data-account=account.to_string()>
            <td data-label="Name">{name.clone()}</td>
            <td data-label="Email">{email}</td>
            <td data-label="Role">
                <div class="role-edit">
                    <select aria-label=format!("Role of {name}")
                        on:change=move |ev| if let Some(r) = Role::from_name(&event_target_value(&ev)) { chosen.set(r) }>
                        {role_options(role)}
                    </select>
                    {move || (chosen.get() != role).then(|| view! {
                        <button type="button" class="small" disabled=move || change.pending() on:click=save.clone()>
                            {move || change.label("Save role", "Saving…")}
                            <span class="visually-hidden">{format!(" of {}", who)}</span>
                        </button>
                    })}
                </div>
            </td>
            <td data-label="Joined"><When unix=joined_at /></td>
            <td data-label="Last sign-in">
                {match last_sign_in {
                    Some(unix) => view! { <When unix /> }.into_any(),
                    None => view! { <span class="empty">"Never"</span> }.into_any(),
                }}
            </td>
            <td class="action">
                <button type="button" class="secondary small" disabled=move || reset.pending()
                    on:click=move |_| { resetting.set(Some(for_reset.clone())); reset.submit() }>
                    <span class="visually-hidden">"Make a "</span>
                    {move || if resetting_this() { "Making…" } else { "Reset link" }}
                    <span class="visually-hidden">{format!(" for {}", name)}</span>
                </button>
                <ConfirmInline
                    id=format!("remove-{account}")
                    row=account.clone()
                    asking=removing
                    write=remove
                    verb="Remove"
                    name=name.clone()
                    question=format!("Remove {name}? They lose access at their next request.")
                    yes=("Yes, remove", "Removing…")
                />
            </td>
        </tr>
    }
}

#[component]
fn NewInvite(invites: LocalResource<Result<InviteList, ClientError>>) -> impl IntoView {
    let client = Client::get();
    let role = RwSignal::new(Role::Viewer);
    let days = RwSignal::new(INVITE_DEFAULT_DAYS.to_string());
    let checked = RwSignal::new(false);
    let days_problem = move || {
        checked
            .get()
            .then(|| days.with(|d| expiry_days(d).err()))
            .flatten()
    };
    let created = RwSignal::new(None::<InviteCreated>);
    let create = Write::new(move || async move {
        created.set(None);
        let request = InviteRequest {
            role: role.get_untracked(),
            expires_in_days: expiry_days(&days.get_untracked()).ok(),
        };
        created.set(Some(client.create_invite(request).await?));
        invites.refetch();
        request_animation_frame(|| focus("copy-link"));
        Ok(())
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        checked.set(true);
        if days_problem().is_some() {
            focus("invite-days");
        } else {
            create.submit();
        }
    };
    let origin = window().location().origin().unwrap_or_default();
    view! {
        <form class="inline-form" on:submit=submit novalidate>
            <div class="field">
                <label for="invite-role">"Role"</label>
                <select id="invite-role" aria-describedby="invite-role-hint"
                    on:change=move |ev| if let Some(r) = Role::from_name(&event_target_value(&ev)) { role.set(r) }>
                    {role_options(Role::Viewer)}
                </select>
            </div>
            <div class="field">
                <label for="invite-days">"Expires after (days)"</label>
                <input id="invite-days" type="number" inputmode="numeric" min="1" max=INVITE_MAX_DAYS.to_string()
                    aria-invalid=move || days_problem().map(|_| "true")
                    aria-describedby=move || days_problem().map(|_| advice_id("invite-days"))
                    prop:value=move || days.get() on:input=move |ev| days.set(event_target_value(&ev)) />
                {advice("invite-days".to_string(), days_problem)}
            </div>
            <button type="submit" disabled=move || create.pending()>
                {move || create.label("Create invitation link", "Creating…")}
            </button>
        </form>
        <p class="hint" id="invite-role-hint">{move || role_words(role.get())}</p>
        {move || create.error().map(|error| refused(error, None))}
        {move || created.get().map(|c| {
            let link = invite_link(&origin, &c.token);
            view! {
                <section class="card wide invite-link" aria-labelledby="link-title">
                    <h3 id="link-title">{format!("Invitation link for a new {}", c.invite.role)}</h3>
                    <p><strong>"This link is shown once."</strong>
                        " Copy it now and send it to the person you invite. It works once, until "
                        <When unix=c.invite.expires_at /> ", and whoever opens it first joins as " {c.invite.role.as_str()} "."</p>
                    <CopyLink id="invite-link" copy_id="copy-link" label="Invitation link" link on_done=move || created.set(None) />
                </section>
            }
        })}
    }
}

#[component]
fn Invites(invites: LocalResource<Result<InviteList, ClientError>>) -> impl IntoView {
    let client = Client::get();
    let revoking = RwSignal::new(None::<String>);
    let revoke = Write::new(move || async move {
        let Some(id) = revoking.get_untracked() else {
            return Ok(());
        };
        let list = client.revoke_invite(id).await?;
        invites.set(Some(Ok(list)));
        Ok(())
    });
    view! {
        <Loader resource=invites loading="Loading invitations…" let:list>
            {if list.invites.is_empty() {
                view! { <p class="empty">"No invitations yet."</p> }.into_any()
            } else {
                view! {
                    // Focusable: with no link left to revoke, a keyboard still scrolls it.
                    <div class="table-wrap" tabindex="0" role="region" aria-label="Invitations table">
                        <table class="wrap-words">
                            <caption class="visually-hidden">"Invitations of the organization and their state"</caption>
                            <thead><tr>
                                <th scope="col">"Role"</th><th scope="col">"State"</th><th scope="col">"Created by"</th>
                                <th scope="col">"Created"</th><th scope="col">"Expires"</th><th scope="col">"Accepted by"</th>
                                <th scope="col"><span class="visually-hidden">"Revoke"</span></th>
                            </tr></thead>
                            <tbody>
                                {list.invites.into_iter().map(|i| invite_row(i, revoking, revoke)).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }.into_any()
            }}
        </Loader>
        {move || revoke.error().map(|error| refused(error, None))}
    }
}

fn invite_row(invite: Invite, revoking: RwSignal<Option<String>>, revoke: Write) -> impl IntoView {
    let (state, tone) = state_badge(invite.state);
    let id = invite.id.clone();
    let busy = {
        let id = id.clone();
        move || revoke.pending() && revoking.with(|r| r.as_ref() == Some(&id))
    };
    let action = (invite.state == InviteState::Pending).then(|| {
        view! {
            <button type="button" class="secondary small" disabled=move || revoke.pending()
                on:click=move |_| { revoking.set(Some(id.clone())); revoke.submit() }>
                {move || if busy() { "Revoking…" } else { "Revoke" }}
                <span class="visually-hidden">{format!(" the {} invitation", invite.role)}</span>
            </button>
        }
    });
    view! {
        <tr data-invite=invite.id.clone()>
            <td data-label="Role">{invite.role.as_str()}</td>
            <td data-label="State"><StatusBadge text=state tone /></td>
            <td data-label="Created by">{invite.created_by}</td>
            <td data-label="Created"><When unix=invite.created_at /></td>
            <td data-label="Expires"><When unix=invite.expires_at /></td>
            <td data-label="Accepted by">{invite.accepted_by.unwrap_or_default()}</td>
            <td class="action">{action}</td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_carries_the_token_in_its_fragment() {
        assert_eq!(
            invite_link("https://ship.example", "tok_1"),
            "https://ship.example/invite#tok_1"
        );
    }

    #[test]
    fn a_reset_link_carries_its_token_in_its_fragment() {
        assert_eq!(
            reset_link("https://ship.example", "reset_1"),
            "https://ship.example/reset#reset_1"
        );
    }

    #[test]
    fn invitations_last_one_to_thirty_days() {
        assert_eq!(expiry_days(" 7 "), Ok(7));
        assert_eq!(expiry_days("1"), Ok(1));
        assert_eq!(expiry_days("30"), Ok(30));
        for bad in ["0", "31", "", "seven", "-1", "2.5"] {
            assert!(expiry_days(bad).unwrap_err().contains("1 to 30"), "{bad}");
        }
    }

    #[test]
    fn the_last_admin_refusal_says_what_to_do_first() {
        assert!(
            member_refusal(Some(&ErrorCode::EdgeMemberLastAdmin))
                .unwrap()
                .contains("make another member admin first")
        );
        assert_eq!(member_refusal(Some(&ErrorCode::EdgeRoleForbidden)), None);
    }
}
