//! The main Worker's one error: each feature's, as made, answered in the
//! v1 envelope by the entry (`entry::fetch`).

use domain::access::AccessError;
use domain::control::ControlUnavailable;
use domain::errors::{BadBody, Internal, ModeUnavailable, RouteError, SettingError};
use domain::jobs::JobError;
use domain::label_pdf::LabelPdfUnavailable;
use domain::orgs::OrgError;
use domain::purchases::PurchaseError;
use domain::upstream::UpstreamError;
use domain::webhooks::WebhookError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeError {
    Route(RouteError),
    Body(BadBody),
    Setting(SettingError),
    Internal(Internal),
    Access(AccessError),
    NoKey(ModeUnavailable),
    Upstream(UpstreamError),
    Purchase(PurchaseError),
    Control(ControlUnavailable),
    Webhook(WebhookError),
    Job(JobError),
    LabelPdf(LabelPdfUnavailable),
    Org(OrgError),
}

domain::failures!(EdgeError {
    Route(RouteError),
    Body(BadBody),
    Setting(SettingError),
    Internal(Internal),
    Access(AccessError),
    NoKey(ModeUnavailable),
    Upstream(UpstreamError),
    Purchase(PurchaseError),
    Control(ControlUnavailable),
    Webhook(WebhookError),
    Job(JobError),
    LabelPdf(LabelPdfUnavailable),
    Org(OrgError),
});
