//! The main Worker's own endpoints, one line each: `api::OWN_ENDPOINTS`
//! names them (path, method, who calls), this says which handler answers.
//! Every handler has one signature (`context::Cx`). The organizations'
//! endpoints are the accounts Worker's, forwarded after the origin and
//! session checks; the job actions share one handler, as do the ledger's
//! reads and the tracking page's. Each group is one arm: an `.await` per arm is a state of this future, and
//! every state costs the Worker's wasm.

use api::{OwnEndpoint, OwnId};
use worker::web_sys::{Request, Response};

use crate::context::Cx;
use crate::error::EdgeError;
use crate::{access, jobs, label_pdf, orgs, tracking, webhooks, widget};

pub(crate) async fn own(
    endpoint: &'static OwnEndpoint,
    req: Request,
    cx: &mut Cx<'_>,
) -> Result<Response, EdgeError> {
    match endpoint.id {
        OwnId::SignIn => access::sign_in(req, cx).await,
        OwnId::GetSession => access::session(req, cx).await,
        OwnId::SignOut => access::sign_out(req, cx).await,
        OwnId::SetMode => access::set_mode(req, cx).await,
        OwnId::Keys => access::keys(req, cx).await,
        OwnId::VerifyKey => access::verify_key(req, cx).await,
        OwnId::ActivateKey => access::activate_key(req, cx).await,
        OwnId::Limits => access::limits(req, cx).await,
        OwnId::ReceiveWebhook => webhooks::receive(req, cx).await,
        OwnId::ReceiveOrgWebhook => webhooks::receive_for_org(req, cx).await,
        OwnId::Inbox => webhooks::inbox(req, cx).await,
        OwnId::Live => webhooks::live(req, cx).await,
        OwnId::VerifyWebhook => webhooks::verify(req, cx).await,
        id @ (OwnId::Insights
        | OwnId::LabelHistory
        | OwnId::LabelRecord
        | OwnId::ExportLabels
        | OwnId::Shipments) => webhooks::ledger_read(req, cx, id).await,
        id @ (OwnId::TrackingPage
        | OwnId::TrackingLookup
        | OwnId::TrackingSettings
        | OwnId::TrackingEvents) => tracking::read(req, cx, id).await,
        id @ (OwnId::SetTrackingSettings
        | OwnId::SetTrackingEvents
        | OwnId::ResendTrackingEvent) => tracking::write(req, cx, id).await,
        OwnId::LabelPdf => label_pdf::pdf(req, cx).await,
        id @ (OwnId::WidgetPage | OwnId::WidgetStatus) => widget::serve(req, cx, id).await,
        OwnId::CreateJob => jobs::create(req, cx).await,
        OwnId::ListJobs => jobs::list(req, cx).await,
        OwnId::GetJob => jobs::get(req, cx).await,
        OwnId::JobRows => jobs::rows(req, cx).await,
        OwnId::JobLive => jobs::live(req, cx).await,
        OwnId::JobResults => jobs::results(req, cx).await,
        OwnId::JobLabels => jobs::labels(req, cx).await,
        id @ (OwnId::StartJob
        | OwnId::ApproveJob
        | OwnId::RetryJob
        | OwnId::ReleaseJob
        | OwnId::CancelJob
        | OwnId::DecideJob
        | OwnId::RetryReleasedRows) => jobs::act(req, cx, id).await,
        OwnId::PasswordSignIn
        | OwnId::SwitchOrg
        | OwnId::CreateOrg
        | OwnId::Signup
        | OwnId::Members
        | OwnId::SetMemberRole
        | OwnId::RemoveMember
        | OwnId::Invites
        | OwnId::CreateInvite
        | OwnId::RevokeInvite
        | OwnId::PreviewInvite
        | OwnId::AcceptInvite
        | OwnId::CreateReset
        | OwnId::PreviewReset
        | OwnId::UseReset
        | OwnId::Audit
        | OwnId::OrgKeys
        | OwnId::SetOrgKeys
        | OwnId::OrgWebhook
        | OwnId::SetOrgWebhook
        | OwnId::AccessTokens
        | OwnId::CreateAccessToken
        | OwnId::RevokeAccessToken
        | OwnId::OrgWidget
        | OwnId::SetOrgWidget
        | OwnId::OrgModeSwitch
        | OwnId::SetOrgModeSwitch
        | OwnId::PasskeySignInOptions
        | OwnId::PasskeySignIn
        | OwnId::Passkeys
        | OwnId::PasskeyOptions
        | OwnId::AddPasskey
        | OwnId::RemovePasskey
        | OwnId::Addresses
        | OwnId::SaveAddress
        | OwnId::UpdateAddress
        | OwnId::DeleteAddress
        | OwnId::DefaultAddress
        | OwnId::Packages
        | OwnId::SavePackage
        | OwnId::UpdatePackage
        | OwnId::DeletePackage => orgs::forward(req, cx, endpoint.caller).await,
    }
}
