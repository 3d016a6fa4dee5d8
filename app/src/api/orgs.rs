//! Organizations, their people, invitations, keys and webhook secrets (`api::orgs`) on the one
//! typed client. A call that signs someone in (a password, an accepted
//! invitation, a new organization, a switch) makes its answer the session.

use super::{Client, ClientError, encode};
use api::orgs::{
    ACCEPT_INVITE_PATH, AUDIT_PATH, AcceptInvite, AccountId, AuditPage, CREATE_ORG_PATH, CreateOrg,
    INVITE_PATH, INVITES_PATH, InviteCreated, InviteList, InvitePreview, InviteRequest,
    InviteToken, KeyChange, MEMBER_PATH, MEMBERS_PATH, MemberList, ORG_KEYS_PATH, ORG_WEBHOOK_PATH,
    OrgId, OrgKeyList, OrgWebhook, PASSWORD_SIGN_IN_PATH, PREVIEW_INVITE_PATH, PasswordSignIn,
    RoleChange, SWITCH_ORG_PATH, SwitchOrg, WebhookSecretChange,
};
use api::orgs::{ModeSwitch, ORG_MODE_SWITCH_PATH, ORG_WIDGET_PATH, OrgWidget, WidgetSettings};
use api::orgs::{
    PREVIEW_RESET_PATH, RESET_LINK_PATH, ResetCreated, ResetPreview, ResetToken, USE_RESET_PATH,
    UseReset,
};
use api::session::{Role, SessionInfo};
use gloo_net::http::Request;
use leptos::prelude::*;

/// One of the table's `{id}` paths for `id`.
pub(super) fn with_id(pattern: &str, id: &str) -> String {
    pattern.replace("{id}", &encode(id))
}

impl Client {
    pub async fn sign_in_password(self, request: PasswordSignIn) -> Result<(), ClientError> {
        let info: SessionInfo = self
            .send_json(Request::post(PASSWORD_SIGN_IN_PATH), &request)
            .await?;
        self.session.set(Some(info));
        Ok(())
    }

    /// Makes another of the person's organizations the session's.
    pub async fn switch_org(self, org: OrgId) -> Result<(), ClientError> {
        let info: SessionInfo = self
            .send_json(Request::put(SWITCH_ORG_PATH), &SwitchOrg { org })
            .await?;
        self.session.set(Some(info));
        Ok(())
    }

    /// Whether anyone may create an organization without a setup link.
    pub async fn signup(self) -> Result<api::orgs::Signup, ClientError> {
        self.send(Request::get(CREATE_ORG_PATH)).await
    }

    /// A new organization (from a setup link, or by anyone where sign-up
    /// is open); its first admin is signed in.
    pub async fn create_org(self, request: CreateOrg) -> Result<(), ClientError> {
        let info: SessionInfo = self
            .send_json(Request::post(CREATE_ORG_PATH), &request)
            .await?;
        self.session.set(Some(info));
        Ok(())
    }

    pub async fn members(self) -> Result<MemberList, ClientError> {
        self.send(Request::get(MEMBERS_PATH)).await
    }

    pub async fn set_member_role(
        self,
        account: AccountId,
        role: Role,
    ) -> Result<MemberList, ClientError> {
        self.send_json(
            Request::put(&with_id(MEMBER_PATH, account.as_str())),
            &RoleChange { role },
        )
        .await
    }

    pub async fn remove_member(self, account: AccountId) -> Result<MemberList, ClientError> {
        self.send(Request::delete(&with_id(MEMBER_PATH, account.as_str())))
            .await
    }

    pub async fn invites(self) -> Result<InviteList, ClientError> {
        self.send(Request::get(INVITES_PATH)).await
    }

    /// The answer holds the link's token: shown once, never stored here.
    pub async fn create_invite(self, request: InviteRequest) -> Result<InviteCreated, ClientError> {
        self.send_json(Request::post(INVITES_PATH), &request).await
    }

    pub async fn revoke_invite(self, id: String) -> Result<InviteList, ClientError> {
        self.send(Request::delete(&with_id(INVITE_PATH, &id))).await
    }

    /// What accepting the invitation `token` would do (anyone may ask).
    pub async fn invite_preview(self, token: String) -> Result<InvitePreview, ClientError> {
        self.send_json(Request::post(PREVIEW_INVITE_PATH), &InviteToken { token })
            .await
    }

    /// Joins the invitation's organization, creating the account if the
    /// email has none; the person is signed in to it.
    pub async fn accept_invite(self, request: AcceptInvite) -> Result<(), ClientError> {
        let info: SessionInfo = self
            .send_json(Request::post(ACCEPT_INVITE_PATH), &request)
            .await?;
        self.session.set(Some(info));
        Ok(())
    }

    /// A password reset link for a member (replacing any earlier one);
    /// the answer holds its token: shown once, never stored here.
    pub async fn create_reset(self, account: AccountId) -> Result<ResetCreated, ClientError> {
        self.send(Request::post(&with_id(RESET_LINK_PATH, account.as_str())))
            .await
    }

    /// Whose password the reset link `token` sets (anyone may ask).
    pub async fn reset_preview(self, token: String) -> Result<ResetPreview, ClientError> {
        self.send_json(Request::post(PREVIEW_RESET_PATH), &ResetToken { token })
            .await
    }

    /// Sets the new password with the link; its person is signed in.
    pub async fn use_reset(self, request: UseReset) -> Result<(), ClientError> {
        let info: SessionInfo = self
            .send_json(Request::post(USE_RESET_PATH), &request)
            .await?;
        self.session.set(Some(info));
        Ok(())
    }

    /// The audit log, newest first: the latest page, or the one before `before`.
    pub async fn audit(self, before: Option<u64>) -> Result<AuditPage, ClientError> {
        let url = match before {
            Some(seq) => format!("{AUDIT_PATH}?before={seq}"),
            None => AUDIT_PATH.to_string(),
        };
        self.send(Request::get(&url)).await
    }

    /// The organization's keys as admins see them: never a key, only its
    /// redacted form.
    pub async fn org_keys(self) -> Result<OrgKeyList, ClientError> {
        self.send(Request::get(ORG_KEYS_PATH)).await
    }

    /// A key entered (the Worker checks it upstream first: up to nine
    /// calls, so it can take a second), or a rotation ended.
    pub async fn change_org_key(self, change: &KeyChange) -> Result<OrgKeyList, ClientError> {
        self.send_json(Request::put(ORG_KEYS_PATH), change).await
    }

    /// The organization's webhook URL (a path on this origin) and its
    /// secrets as admins see them: never a secret, only its last four.
    pub async fn org_webhook(self) -> Result<OrgWebhook, ClientError> {
        self.send(Request::get(ORG_WEBHOOK_PATH)).await
    }

    /// A webhook secret entered, or its rotation ended.
    pub async fn change_org_webhook(
        self,
        change: &WebhookSecretChange,
    ) -> Result<OrgWebhook, ClientError> {
        self.send_json(Request::put(ORG_WEBHOOK_PATH), change).await
    }

    /// The organization's storefront widget: its id and settings.
    pub async fn org_widget(self) -> Result<OrgWidget, ClientError> {
        self.send(Request::get(ORG_WIDGET_PATH)).await
    }

    /// New widget settings (the Worker checks them; a refusal names the field).
    pub async fn change_org_widget(
        self,
        settings: &WidgetSettings,
    ) -> Result<OrgWidget, ClientError> {
        self.send_json(Request::put(ORG_WIDGET_PATH), settings)
            .await
    }

    /// Whether the organization's operators may switch between live and sandbox.
    pub async fn org_mode_switch(self) -> Result<ModeSwitch, ClientError> {
        self.send(Request::get(ORG_MODE_SWITCH_PATH)).await
    }

    pub async fn set_org_mode_switch(self, setting: ModeSwitch) -> Result<ModeSwitch, ClientError> {
        self.send_json(Request::put(ORG_MODE_SWITCH_PATH), &setting)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_fill_the_table_paths_encoded() {
        assert_eq!(with_id(MEMBER_PATH, "acct_01"), "/api/org/members/acct_01");
        assert_eq!(with_id(INVITE_PATH, "a/b"), "/api/org/invites/a%2Fb");
    }
}
