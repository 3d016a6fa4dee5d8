//! The endpoint tables: v1's (parts 4, 5 and 8: method, path, scope and
//! limit), and the Worker's own beside it (`OWN_ENDPOINTS`), so the app, the
//! Worker and the simulator route and build paths from one statement.

use crate::scopes::Scope;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Delete,
    /// A CORS preflight, for the one own endpoint a shop's page reads.
    Options,
}

impl Method {
    pub const ALL: [Method; 6] = [
        Method::Get,
        Method::Head,
        Method::Post,
        Method::Put,
        Method::Delete,
        Method::Options,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
        }
    }

    pub fn parse(method: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_str() == method)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndpointId {
    ValidateAddress,
    GetRates,
    BuyLabel,
    GetLabel,
    VoidLabel,
    CreateTracker,
    GetTracker,
    ListCarrierAccounts,
    CreateBatch,
    BuyBatch,
    GetBatch,
    GetWallet,
    ListWebhookDeliveries,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    pub id: EndpointId,
    pub method: Method,
    /// Path pattern; `{id}` stands for one id segment.
    pub pattern: &'static str,
    pub scope: Scope,
    pub limit_per_minute: u32,
}

impl Endpoint {
    /// True for the calls that can spend money (`Idempotency-Key` applies).
    pub fn spends_money(&self) -> bool {
        matches!(
            self.id,
            EndpointId::BuyLabel | EndpointId::CreateBatch | EndpointId::BuyBatch
        )
    }
}

const fn ep(
    id: EndpointId,
    method: Method,
    pattern: &'static str,
    scope: Scope,
    limit_per_minute: u32,
) -> Endpoint {
    Endpoint {
        id,
        method,
        pattern,
        scope,
        limit_per_minute,
    }
}

/// Every v1 endpoint. The deliveries listing has no scope in the interface;
/// we require `labels:read`, since its only events are `label.created`.
pub static ENDPOINTS: [Endpoint; 13] = [
    ep(
        EndpointId::ValidateAddress,
        Method::Post,
        "/v1/addresses/validate",
        Scope::AddressesRead,
        200,
    ),
    ep(
        EndpointId::GetRates,
        Method::Post,
        "/v1/rates",
        Scope::RatesRead,
        100,
    ),
    ep(
        EndpointId::BuyLabel,
        Method::Post,
        "/v1/labels",
        Scope::LabelsWrite,
        60,
    ),
    ep(
        EndpointId::GetLabel,
        Method::Get,
        "/v1/labels/{id}",
        Scope::LabelsRead,
        300,
    ),
    ep(
        EndpointId::VoidLabel,
        Method::Delete,
        "/v1/labels/{id}",
        Scope::LabelsWrite,
        30,
    ),
    ep(
        EndpointId::CreateTracker,
        Method::Post,
        "/v1/trackers",
        Scope::TrackingRead,
        200,
    ),
    ep(
        EndpointId::GetTracker,
        Method::Get,
        "/v1/trackers/{id}",
        Scope::TrackingRead,
        300,
    ),
    ep(
        EndpointId::ListCarrierAccounts,
        Method::Get,
        "/v1/carrier-accounts",
        Scope::CarrierAccountsRead,
        300,
    ),
    ep(
        EndpointId::CreateBatch,
        Method::Post,
        "/v1/batches",
        Scope::BatchesWrite,
        10,
    ),
    ep(
        EndpointId::BuyBatch,
        Method::Post,
        "/v1/batches/{id}/buy",
        Scope::BatchesWrite,
        10,
    ),
    ep(
        EndpointId::GetBatch,
        Method::Get,
        "/v1/batches/{id}",
        Scope::BatchesRead,
        300,
    ),
    ep(
        EndpointId::GetWallet,
        Method::Get,
        "/v1/wallet",
        Scope::WalletRead,
        300,
    ),
    ep(
        EndpointId::ListWebhookDeliveries,
        Method::Get,
        "/v1/webhooks/deliveries",
        Scope::LabelsRead,
        300,
    ),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteMatch {
    pub endpoint: &'static Endpoint,
    pub id: Option<String>,
}

/// An id segment: 1 to 64 of `[A-Za-z0-9_-]`. Percent signs, dots and
/// slashes never match, so encoded slashes and `..` cannot reach another path.
pub fn is_valid_id(segment: &str) -> bool {
    (1..=64).contains(&segment.len())
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether `path` fits `pattern` segment by segment; gives the one `{id}`
/// or `{mode}` segment if the pattern has one. Ids must be [`is_valid_id`];
/// a mode is `live` or `sandbox`.
fn fit(pattern: &str, path: &str) -> Option<Option<String>> {
    let segments = path.strip_prefix('/')?.split('/');
    let mut pattern = pattern.strip_prefix('/')?.split('/');
    let mut param = None;
    for s in segments {
        match pattern.next()? {
            "{id}" if is_valid_id(s) => param = Some(s.to_string()),
            "{mode}" if s.parse::<crate::KeyEnv>().is_ok() => param = Some(s.to_string()),
            p if p == s && !p.starts_with('{') => {}
            _ => return None,
        }
    }
    pattern.next().is_none().then_some(param)
}

/// Matches a request to a v1 endpoint, strictly: exact segments, no empty
/// segments, no trailing slash, no query in `path`.
pub fn match_route(method: &str, path: &str) -> Option<RouteMatch> {
    let method = Method::parse(method)?;
    ENDPOINTS
        .iter()
        .filter(|e| e.method == method)
        .find_map(|endpoint| fit(endpoint.pattern, path).map(|id| RouteMatch { endpoint, id }))
}

/// The methods a v1 path does answer to (empty: no such path), to tell a
/// wrong method (405, with these named) from a wrong path (404).
pub fn allowed_methods(path: &str) -> Vec<Method> {
    ENDPOINTS
        .iter()
        .filter(|e| fit(e.pattern, path).is_some())
        .map(|e| e.method)
        .collect()
}

/// The Worker's own endpoints (not v1): sign-in and the session
/// (`session`), the webhook receiver, inbox and ledger (`inbox`), label
/// PDFs, and the storefront widget page (`widget`). Types and who may call
/// each are documented where their paths are declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OwnId {
    SignIn,
    GetSession,
    SignOut,
    SetMode,
    Keys,
    VerifyKey,
    ActivateKey,
    Limits,
    ReceiveWebhook,
    Inbox,
    Live,
    VerifyWebhook,
    LabelPdf,
    WidgetPage,
    WidgetStatus,
    CreateJob,
    ListJobs,
    GetJob,
    JobRows,
    StartJob,
    ApproveJob,
    DecideJob,
    RetryJob,
    ReleaseJob,
    RetryReleasedRows,
    CancelJob,
    JobLive,
    JobResults,
    JobLabels,
    PasswordSignIn,
    SwitchOrg,
    CreateOrg,
    Members,
    SetMemberRole,
    RemoveMember,
    Invites,
    CreateInvite,
    RevokeInvite,
    PreviewInvite,
    AcceptInvite,
    CreateReset,
    PreviewReset,
    UseReset,
    Audit,
    OrgKeys,
    SetOrgKeys,
    ReceiveOrgWebhook,
    OrgWebhook,
    SetOrgWebhook,
    AccessTokens,
    CreateAccessToken,
    RevokeAccessToken,
    OrgWidget,
    SetOrgWidget,
    OrgModeSwitch,
    SetOrgModeSwitch,
    PasskeySignInOptions,
    PasskeySignIn,
    Passkeys,
    PasskeyOptions,
    AddPasskey,
    RemovePasskey,
    Signup,
    Addresses,
    SaveAddress,
    UpdateAddress,
    DeleteAddress,
    DefaultAddress,
    Packages,
    SavePackage,
    UpdatePackage,
    DeletePackage,
    Insights,
    LabelHistory,
    LabelRecord,
    ExportLabels,
    Shipments,
    TrackingSettings,
    SetTrackingSettings,
    TrackingPage,
    TrackingLookup,
    TrackingEvents,
    SetTrackingEvents,
    ResendTrackingEvent,
}

/// Who calls one of the Worker's own endpoints, and so which settings it
/// works with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// A signed-in person: the settings of the session's organization.
    Session,
    /// A signed-in person whose success is a new session (switching organization).
    SessionStartsSession,
    /// Anyone: the call carries its own credential (a password, a token, a
    /// link) or needs none; the deployment's settings.
    Anyone,
    /// Anyone, and its success is a session to start (a sign-in, a new
    /// organization, an accepted invitation).
    StartsSession,
    /// The storefront framing the widget page.
    Storefront,
    /// The service delivering a signed webhook.
    Service,
}

impl Caller {
    /// Whether the endpoint acts for the caller's session.
    pub fn acts_for_session(self) -> bool {
        matches!(self, Caller::Session | Caller::SessionStartsSession)
    }

    /// Whether its success is a session to start.
    pub fn starts_session(self) -> bool {
        matches!(self, Caller::StartsSession | Caller::SessionStartsSession)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnEndpoint {
    pub id: OwnId,
    pub method: Method,
    /// Path pattern; `{id}` is one id segment, `{mode}` is `live` or `sandbox`.
    pub pattern: &'static str,
    pub caller: Caller,
}

impl OwnEndpoint {
    /// The path with its one placeholder filled in.
    pub fn path(&self, param: &str) -> String {
        self.pattern.replace("{id}", param).replace("{mode}", param)
    }
}

const fn own(id: OwnId, method: Method, pattern: &'static str, caller: Caller) -> OwnEndpoint {
    OwnEndpoint {
        id,
        method,
        pattern,
        caller,
    }
}

use crate::{
    access_tokens, inbox, insights, jobs, orgs, passkeys, presets, session, shipments, widget,
};

// The table reads as one row per endpoint.
use Caller::{Anyone, Service, Session, SessionStartsSession, StartsSession, Storefront};
use Method::{Delete, Get, Head, Options, Post, Put};

pub static OWN_ENDPOINTS: [OwnEndpoint; 88] = [
    own(OwnId::SignIn, Post, session::SESSION_PATH, StartsSession),
    own(OwnId::GetSession, Get, session::SESSION_PATH, Session),
    own(OwnId::SignOut, Delete, session::SESSION_PATH, Session),
    own(OwnId::SetMode, Put, session::MODE_PATH, Session),
    own(OwnId::Keys, Get, session::KEYS_PATH, Session),
    own(OwnId::VerifyKey, Post, session::VERIFY_KEY_PATH, Session),
    own(
        OwnId::ActivateKey,
        Post,
        session::ACTIVATE_KEY_PATH,
        Session,
    ),
    own(OwnId::Limits, Get, session::LIMITS_PATH, Session),
    own(OwnId::ReceiveWebhook, Post, inbox::RECEIVE_PATH, Service),
    own(OwnId::Inbox, Get, inbox::INBOX_PATH, Session),
    own(OwnId::Live, Get, inbox::LIVE_PATH, Session),
    own(OwnId::VerifyWebhook, Post, inbox::VERIFY_PATH, Session),
    own(OwnId::LabelPdf, Get, inbox::LABEL_PDF_PATH, Session),
    own(OwnId::WidgetPage, Get, widget::PAGE_PATH, Storefront),
    own(OwnId::WidgetPage, Head, widget::PAGE_PATH, Storefront),
    own(OwnId::WidgetPage, Get, widget::PAGE_PATH_BARE, Storefront),
    own(OwnId::WidgetPage, Head, widget::PAGE_PATH_BARE, Storefront),
    own(OwnId::WidgetStatus, Get, widget::STATUS_PATH, Anyone),
    own(OwnId::WidgetStatus, Options, widget::STATUS_PATH, Anyone),
    own(OwnId::CreateJob, Post, jobs::JOBS_PATH, Session),
    own(OwnId::ListJobs, Get, jobs::JOBS_PATH, Session),
    own(OwnId::GetJob, Get, jobs::JOB_PATH, Session),
    own(OwnId::JobRows, Get, jobs::JOB_ROWS_PATH, Session),
    own(OwnId::StartJob, Post, jobs::JOB_START_PATH, Session),
    own(OwnId::ApproveJob, Post, jobs::JOB_APPROVE_PATH, Session),
    own(OwnId::DecideJob, Post, jobs::JOB_DECIDE_PATH, Session),
    own(OwnId::RetryJob, Post, jobs::JOB_RETRY_PATH, Session),
    own(OwnId::ReleaseJob, Post, jobs::JOB_RELEASE_PATH, Session),
    own(
        OwnId::RetryReleasedRows,
        Post,
        jobs::JOB_RETRY_RELEASED_PATH,
        Session,
    ),
    own(OwnId::CancelJob, Post, jobs::JOB_CANCEL_PATH, Session),
    own(OwnId::JobLive, Get, jobs::JOB_LIVE_PATH, Session),
    own(OwnId::JobResults, Get, jobs::JOB_RESULTS_PATH, Session),
    own(OwnId::JobLabels, Get, jobs::JOB_LABELS_PATH, Session),
    own(
        OwnId::PasswordSignIn,
        Post,
        orgs::PASSWORD_SIGN_IN_PATH,
        StartsSession,
    ),
    own(
        OwnId::SwitchOrg,
        Put,
        orgs::SWITCH_ORG_PATH,
        SessionStartsSession,
    ),
    own(OwnId::CreateOrg, Post, orgs::CREATE_ORG_PATH, StartsSession),
    own(OwnId::Members, Get, orgs::MEMBERS_PATH, Session),
    own(OwnId::SetMemberRole, Put, orgs::MEMBER_PATH, Session),
    own(OwnId::RemoveMember, Delete, orgs::MEMBER_PATH, Session),
    own(OwnId::Invites, Get, orgs::INVITES_PATH, Session),
    own(OwnId::CreateInvite, Post, orgs::INVITES_PATH, Session),
    own(OwnId::RevokeInvite, Delete, orgs::INVITE_PATH, Session),
    own(
        OwnId::PreviewInvite,
        Post,
        orgs::PREVIEW_INVITE_PATH,
        Anyone,
    ),
    own(
        OwnId::AcceptInvite,
        Post,
        orgs::ACCEPT_INVITE_PATH,
        StartsSession,
    ),
    own(OwnId::CreateReset, Post, orgs::RESET_LINK_PATH, Session),
    own(OwnId::PreviewReset, Post, orgs::PREVIEW_RESET_PATH, Anyone),
    own(OwnId::UseReset, Post, orgs::USE_RESET_PATH, StartsSession),
    own(OwnId::Audit, Get, orgs::AUDIT_PATH, Session),
    own(OwnId::OrgKeys, Get, orgs::ORG_KEYS_PATH, Session),
    own(OwnId::SetOrgKeys, Put, orgs::ORG_KEYS_PATH, Session),
    own(
        OwnId::ReceiveOrgWebhook,
        Post,
        inbox::ORG_RECEIVE_PATH,
        Service,
    ),
    own(OwnId::OrgWebhook, Get, orgs::ORG_WEBHOOK_PATH, Session),
    own(OwnId::SetOrgWebhook, Put, orgs::ORG_WEBHOOK_PATH, Session),
    own(
        OwnId::AccessTokens,
        Get,
        access_tokens::TOKENS_PATH,
        Session,
    ),
    own(
        OwnId::CreateAccessToken,
        Post,
        access_tokens::TOKENS_PATH,
        Session,
    ),
    own(
        OwnId::RevokeAccessToken,
        Delete,
        access_tokens::TOKEN_PATH,
        Session,
    ),
    own(OwnId::OrgWidget, Get, orgs::ORG_WIDGET_PATH, Session),
    own(OwnId::SetOrgWidget, Put, orgs::ORG_WIDGET_PATH, Session),
    own(
        OwnId::OrgModeSwitch,
        Get,
        orgs::ORG_MODE_SWITCH_PATH,
        Session,
    ),
    own(
        OwnId::SetOrgModeSwitch,
        Put,
        orgs::ORG_MODE_SWITCH_PATH,
        Session,
    ),
    own(
        OwnId::PasskeySignInOptions,
        Post,
        passkeys::SIGN_IN_OPTIONS_PATH,
        Anyone,
    ),
    own(
        OwnId::PasskeySignIn,
        Post,
        passkeys::SIGN_IN_PATH,
        StartsSession,
    ),
    own(OwnId::Passkeys, Get, passkeys::PASSKEYS_PATH, Session),
    own(
        OwnId::PasskeyOptions,
        Post,
        passkeys::CREATE_OPTIONS_PATH,
        Session,
    ),
    own(OwnId::AddPasskey, Post, passkeys::PASSKEYS_PATH, Session),
    own(
        OwnId::RemovePasskey,
        Delete,
        passkeys::PASSKEY_PATH,
        Session,
    ),
    own(OwnId::Signup, Get, orgs::CREATE_ORG_PATH, Anyone),
    own(OwnId::Addresses, Get, presets::ADDRESSES_PATH, Session),
    own(OwnId::SaveAddress, Post, presets::ADDRESSES_PATH, Session),
    own(OwnId::UpdateAddress, Put, presets::ADDRESS_PATH, Session),
    own(OwnId::DeleteAddress, Delete, presets::ADDRESS_PATH, Session),
    own(
        OwnId::DefaultAddress,
        Put,
        presets::DEFAULT_ADDRESS_PATH,
        Session,
    ),
    own(OwnId::Packages, Get, presets::PACKAGES_PATH, Session),
    own(OwnId::SavePackage, Post, presets::PACKAGES_PATH, Session),
    own(OwnId::UpdatePackage, Put, presets::PACKAGE_PATH, Session),
    own(OwnId::DeletePackage, Delete, presets::PACKAGE_PATH, Session),
    own(OwnId::Insights, Get, insights::INSIGHTS_PATH, Session),
    own(OwnId::LabelHistory, Get, insights::HISTORY_PATH, Session),
    own(
        OwnId::LabelRecord,
        Get,
        insights::LABEL_RECORD_PATH,
        Session,
    ),
    own(OwnId::ExportLabels, Get, insights::EXPORT_PATH, Session),
    own(OwnId::Shipments, Get, shipments::SHIPMENTS_PATH, Session),
    own(
        OwnId::TrackingSettings,
        Get,
        shipments::TRACKING_SETTINGS_PATH,
        Session,
    ),
    own(
        OwnId::SetTrackingSettings,
        Put,
        shipments::TRACKING_SETTINGS_PATH,
        Session,
    ),
    own(
        OwnId::TrackingPage,
        Get,
        shipments::TRACKING_PAGE_PATH,
        Anyone,
    ),
    own(
        OwnId::TrackingLookup,
        Get,
        shipments::TRACKING_LOOKUP_PATH,
        Anyone,
    ),
    own(
        OwnId::TrackingEvents,
        Get,
        shipments::TRACKING_EVENTS_PATH,
        Session,
    ),
    own(
        OwnId::SetTrackingEvents,
        Put,
        shipments::TRACKING_EVENTS_PATH,
        Session,
    ),
    own(
        OwnId::ResendTrackingEvent,
        Post,
        shipments::RESEND_EVENT_PATH,
        Session,
    ),
];

/// A request to one of the Worker's own endpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnMatch {
    pub endpoint: &'static OwnEndpoint,
    /// The `{id}` or `{mode}` segment, if the pattern has one.
    pub param: Option<String>,
}

/// What the Worker's own table says of `method path`: `Ok` the endpoint;
/// `Err` with the methods the path does answer to (empty: not one of ours).
pub fn match_own(method: &str, path: &str) -> Result<OwnMatch, Vec<Method>> {
    let method = Method::parse(method);
    let mut allowed = Vec::new();
    for endpoint in &OWN_ENDPOINTS {
        if let Some(param) = fit(endpoint.pattern, path) {
            if Some(endpoint.method) == method {
                return Ok(OwnMatch { endpoint, param });
            }
            if !allowed.contains(&endpoint.method) {
                allowed.push(endpoint.method);
            }
        }
    }
    Err(allowed)
}

/// The Worker's own endpoint `id` (its first entry in the table).
pub fn own_endpoint(id: OwnId) -> &'static OwnEndpoint {
    // Every OwnId has an entry; the test below checks it. The fallback keeps this total.
    OWN_ENDPOINTS
        .iter()
        .find(|e| e.id == id)
        .unwrap_or(&OWN_ENDPOINTS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_of_part_4_with_its_limit() {
        let limits: Vec<(&str, &str, u32)> = ENDPOINTS
            .iter()
            .map(|e| (e.method.as_str(), e.pattern, e.limit_per_minute))
            .collect();
        assert_eq!(limits.len(), 13);
        assert!(limits.contains(&("POST", "/v1/rates", 100)));
        assert!(limits.contains(&("POST", "/v1/labels", 60)));
        assert!(limits.contains(&("DELETE", "/v1/labels/{id}", 30)));
        assert!(limits.contains(&("POST", "/v1/batches/{id}/buy", 10)));
        assert!(limits.contains(&("GET", "/v1/webhooks/deliveries", 300)));
    }

    #[test]
    fn matches_ids_and_methods() {
        let m = match_route("GET", "/v1/labels/lbl_123").unwrap();
        assert_eq!(
            (m.endpoint.id, m.id.as_deref()),
            (EndpointId::GetLabel, Some("lbl_123"))
        );
        let m = match_route("DELETE", "/v1/labels/lbl_123").unwrap();
        assert_eq!(m.endpoint.id, EndpointId::VoidLabel);
        assert_eq!(
            match_route("POST", "/v1/batches/b_1/buy")
                .unwrap()
                .endpoint
                .id,
            EndpointId::BuyBatch
        );
        assert_eq!(
            match_route("GET", "/v1/batches/b_1")
                .unwrap()
                .endpoint
                .scope,
            Scope::BatchesRead
        );
        assert!(match_route("PUT", "/v1/wallet").is_none());
        assert!(match_route("POST", "/v1/wallet").is_none());
    }

    #[test]
    fn allowed_methods_tell_405_from_404() {
        assert_eq!(
            allowed_methods("/v1/labels/lbl_1"),
            vec![Method::Get, Method::Delete]
        );
        assert_eq!(allowed_methods("/v1/wallet"), vec![Method::Get]);
        assert!(allowed_methods("/v1/nope").is_empty());
        assert!(allowed_methods("/v1/labels/a%2Fb").is_empty());
    }

    #[test]
    fn own_endpoints_route_and_fill_paths() {
        let m = match_own("POST", "/api/keys/live/verify").unwrap();
        assert_eq!(
            (m.endpoint.id, m.param.as_deref()),
            (OwnId::VerifyKey, Some("live"))
        );
        assert_eq!(
            match_own("GET", "/api/labels/lbl_1/pdf")
                .unwrap()
                .endpoint
                .id,
            OwnId::LabelPdf
        );
        for path in ["/widget", "/widget/"] {
            assert_eq!(
                match_own("GET", path).unwrap().endpoint.id,
                OwnId::WidgetPage
            );
        }
        // The batch pages are the dashboard's (the assets' single-page fallback).
        for path in ["/batches", "/batches/new", "/batches/job_0a"] {
            assert_eq!(match_own("GET", path), Err(vec![]));
        }
        assert_eq!(
            match_own("PUT", "/api/session").unwrap_err(),
            vec![Method::Post, Method::Get, Method::Delete]
        );
        for path in [
            "/api/keys/prod/verify",
            "/api/labels/../pdf",
            "/api/labels/a%2Fb/pdf",
            "/api/session/",
            "/api/v1/wallet",
        ] {
            assert_eq!(match_own("POST", path), Err(vec![]), "{path}");
        }
        assert_eq!(
            own_endpoint(OwnId::ActivateKey).path("sandbox"),
            "/api/keys/sandbox/activate"
        );
        assert_eq!(
            own_endpoint(OwnId::LabelPdf).path("lbl_9"),
            "/api/labels/lbl_9/pdf"
        );
        for e in &OWN_ENDPOINTS {
            assert_eq!(own_endpoint(e.id).id, e.id);
        }
        // A member's reset link is made under their path; its token travels in bodies.
        let reset = match_own("POST", "/api/org/members/acct_0a1b/reset").unwrap();
        assert_eq!(
            (reset.endpoint.id, reset.param.as_deref()),
            (OwnId::CreateReset, Some("acct_0a1b"))
        );
        assert_eq!(
            match_own("GET", "/api/org/members/acct_0a1b/reset").unwrap_err(),
            vec![Method::Post]
        );
        assert_eq!(
            match_own("POST", "/api/resets/use")
                .unwrap()
                .endpoint
                .caller,
            Caller::StartsSession
        );
        assert_eq!(
            match_own("POST", "/api/resets/preview")
                .unwrap()
                .endpoint
                .caller,
            Caller::Anyone
        );
    }

    #[test]
    fn path_tricks_never_match() {
        for path in [
            "/v1/labels/..",
            "/v1/labels/%2e%2e",
            "/v1/labels/a%2Fb",
            "/v1/labels/a/b",
            "/v1//wallet",
            "/v1/wallet/",
            "//v1/wallet",
            "/v1/labels/",
            "v1/wallet",
            "/v1/labels/a.b",
            "/V1/wallet",
            "/v1/wallet?x=1",
        ] {
            assert!(match_route("GET", path).is_none(), "{path}");
        }
        assert!(match_route("GET", &format!("/v1/labels/{}", "a".repeat(65))).is_none());
    }

    #[test]
    fn only_purchases_spend_money() {
        let spending: Vec<_> = ENDPOINTS
            .iter()
            .filter(|e| e.spends_money())
            .map(|e| e.id)
            .collect();
        assert_eq!(
            spending,
            vec![
                EndpointId::BuyLabel,
                EndpointId::CreateBatch,
                EndpointId::BuyBatch
            ]
        );
    }
}
