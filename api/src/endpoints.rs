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
}

impl Method {
    pub const ALL: [Method; 5] = [
        Method::Get,
        Method::Head,
        Method::Post,
        Method::Put,
        Method::Delete,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
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
    ExportLabels,
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

use crate::{access_tokens, inbox, insights, jobs, orgs, passkeys, presets, session, widget};

pub static OWN_ENDPOINTS: [OwnEndpoint; 72] = [
    own(
        OwnId::SignIn,
        Method::Post,
        session::SESSION_PATH,
        Caller::StartsSession,
    ),
    own(
        OwnId::GetSession,
        Method::Get,
        session::SESSION_PATH,
        Caller::Session,
    ),
    own(
        OwnId::SignOut,
        Method::Delete,
        session::SESSION_PATH,
        Caller::Session,
    ),
    own(
        OwnId::SetMode,
        Method::Put,
        session::MODE_PATH,
        Caller::Session,
    ),
    own(
        OwnId::Keys,
        Method::Get,
        session::KEYS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::VerifyKey,
        Method::Post,
        session::VERIFY_KEY_PATH,
        Caller::Session,
    ),
    own(
        OwnId::ActivateKey,
        Method::Post,
        session::ACTIVATE_KEY_PATH,
        Caller::Session,
    ),
    own(
        OwnId::Limits,
        Method::Get,
        session::LIMITS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::ReceiveWebhook,
        Method::Post,
        inbox::RECEIVE_PATH,
        Caller::Service,
    ),
    own(
        OwnId::Inbox,
        Method::Get,
        inbox::INBOX_PATH,
        Caller::Session,
    ),
    own(OwnId::Live, Method::Get, inbox::LIVE_PATH, Caller::Session),
    own(
        OwnId::VerifyWebhook,
        Method::Post,
        inbox::VERIFY_PATH,
        Caller::Session,
    ),
    own(
        OwnId::LabelPdf,
        Method::Get,
        inbox::LABEL_PDF_PATH,
        Caller::Session,
    ),
    own(
        OwnId::WidgetPage,
        Method::Get,
        widget::PAGE_PATH,
        Caller::Storefront,
    ),
    own(
        OwnId::WidgetPage,
        Method::Head,
        widget::PAGE_PATH,
        Caller::Storefront,
    ),
    own(
        OwnId::WidgetPage,
        Method::Get,
        widget::PAGE_PATH_BARE,
        Caller::Storefront,
    ),
    own(
        OwnId::WidgetPage,
        Method::Head,
        widget::PAGE_PATH_BARE,
        Caller::Storefront,
    ),
    own(
        OwnId::CreateJob,
        Method::Post,
        jobs::JOBS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::ListJobs,
        Method::Get,
        jobs::JOBS_PATH,
        Caller::Session,
    ),
    own(OwnId::GetJob, Method::Get, jobs::JOB_PATH, Caller::Session),
    own(
        OwnId::JobRows,
        Method::Get,
        jobs::JOB_ROWS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::StartJob,
        Method::Post,
        jobs::JOB_START_PATH,
        Caller::Session,
    ),
    own(
        OwnId::ApproveJob,
        Method::Post,
        jobs::JOB_APPROVE_PATH,
        Caller::Session,
    ),
    own(
        OwnId::DecideJob,
        Method::Post,
        jobs::JOB_DECIDE_PATH,
        Caller::Session,
    ),
    own(
        OwnId::RetryJob,
        Method::Post,
        jobs::JOB_RETRY_PATH,
        Caller::Session,
    ),
    own(
        OwnId::ReleaseJob,
        Method::Post,
        jobs::JOB_RELEASE_PATH,
        Caller::Session,
    ),
    own(
        OwnId::RetryReleasedRows,
        Method::Post,
        jobs::JOB_RETRY_RELEASED_PATH,
        Caller::Session,
    ),
    own(
        OwnId::CancelJob,
        Method::Post,
        jobs::JOB_CANCEL_PATH,
        Caller::Session,
    ),
    own(
        OwnId::JobLive,
        Method::Get,
        jobs::JOB_LIVE_PATH,
        Caller::Session,
    ),
    own(
        OwnId::JobResults,
        Method::Get,
        jobs::JOB_RESULTS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::JobLabels,
        Method::Get,
        jobs::JOB_LABELS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::PasswordSignIn,
        Method::Post,
        orgs::PASSWORD_SIGN_IN_PATH,
        Caller::StartsSession,
    ),
    own(
        OwnId::SwitchOrg,
        Method::Put,
        orgs::SWITCH_ORG_PATH,
        Caller::SessionStartsSession,
    ),
    own(
        OwnId::CreateOrg,
        Method::Post,
        orgs::CREATE_ORG_PATH,
        Caller::StartsSession,
    ),
    own(
        OwnId::Members,
        Method::Get,
        orgs::MEMBERS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::SetMemberRole,
        Method::Put,
        orgs::MEMBER_PATH,
        Caller::Session,
    ),
    own(
        OwnId::RemoveMember,
        Method::Delete,
        orgs::MEMBER_PATH,
        Caller::Session,
    ),
    own(
        OwnId::Invites,
        Method::Get,
        orgs::INVITES_PATH,
        Caller::Session,
    ),
    own(
        OwnId::CreateInvite,
        Method::Post,
        orgs::INVITES_PATH,
        Caller::Session,
    ),
    own(
        OwnId::RevokeInvite,
        Method::Delete,
        orgs::INVITE_PATH,
        Caller::Session,
    ),
    own(
        OwnId::PreviewInvite,
        Method::Post,
        orgs::PREVIEW_INVITE_PATH,
        Caller::Anyone,
    ),
    own(
        OwnId::AcceptInvite,
        Method::Post,
        orgs::ACCEPT_INVITE_PATH,
        Caller::StartsSession,
    ),
    own(OwnId::Audit, Method::Get, orgs::AUDIT_PATH, Caller::Session),
    own(
        OwnId::OrgKeys,
        Method::Get,
        orgs::ORG_KEYS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::SetOrgKeys,
        Method::Put,
        orgs::ORG_KEYS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::ReceiveOrgWebhook,
        Method::Post,
        inbox::ORG_RECEIVE_PATH,
        Caller::Service,
    ),
    own(
        OwnId::OrgWebhook,
        Method::Get,
        orgs::ORG_WEBHOOK_PATH,
        Caller::Session,
    ),
    own(
        OwnId::SetOrgWebhook,
        Method::Put,
        orgs::ORG_WEBHOOK_PATH,
        Caller::Session,
    ),
    own(
        OwnId::AccessTokens,
        Method::Get,
        access_tokens::TOKENS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::CreateAccessToken,
        Method::Post,
        access_tokens::TOKENS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::RevokeAccessToken,
        Method::Delete,
        access_tokens::TOKEN_PATH,
        Caller::Session,
    ),
    own(
        OwnId::OrgWidget,
        Method::Get,
        orgs::ORG_WIDGET_PATH,
        Caller::Session,
    ),
    own(
        OwnId::SetOrgWidget,
        Method::Put,
        orgs::ORG_WIDGET_PATH,
        Caller::Session,
    ),
    own(
        OwnId::PasskeySignInOptions,
        Method::Post,
        passkeys::SIGN_IN_OPTIONS_PATH,
        Caller::Anyone,
    ),
    own(
        OwnId::PasskeySignIn,
        Method::Post,
        passkeys::SIGN_IN_PATH,
        Caller::StartsSession,
    ),
    own(
        OwnId::Passkeys,
        Method::Get,
        passkeys::PASSKEYS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::PasskeyOptions,
        Method::Post,
        passkeys::CREATE_OPTIONS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::AddPasskey,
        Method::Post,
        passkeys::PASSKEYS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::RemovePasskey,
        Method::Delete,
        passkeys::PASSKEY_PATH,
        Caller::Session,
    ),
    own(
        OwnId::Signup,
        Method::Get,
        orgs::CREATE_ORG_PATH,
        Caller::Anyone,
    ),
    own(
        OwnId::Addresses,
        Method::Get,
        presets::ADDRESSES_PATH,
        Caller::Session,
    ),
    own(
        OwnId::SaveAddress,
        Method::Post,
        presets::ADDRESSES_PATH,
        Caller::Session,
    ),
    own(
        OwnId::UpdateAddress,
        Method::Put,
        presets::ADDRESS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::DeleteAddress,
        Method::Delete,
        presets::ADDRESS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::DefaultAddress,
        Method::Put,
        presets::DEFAULT_ADDRESS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::Packages,
        Method::Get,
        presets::PACKAGES_PATH,
        Caller::Session,
    ),
    own(
        OwnId::SavePackage,
        Method::Post,
        presets::PACKAGES_PATH,
        Caller::Session,
    ),
    own(
        OwnId::UpdatePackage,
        Method::Put,
        presets::PACKAGE_PATH,
        Caller::Session,
    ),
    own(
        OwnId::DeletePackage,
        Method::Delete,
        presets::PACKAGE_PATH,
        Caller::Session,
    ),
    own(
        OwnId::Insights,
        Method::Get,
        insights::INSIGHTS_PATH,
        Caller::Session,
    ),
    own(
        OwnId::LabelHistory,
        Method::Get,
        insights::HISTORY_PATH,
        Caller::Session,
    ),
    own(
        OwnId::ExportLabels,
        Method::Get,
        insights::EXPORT_PATH,
        Caller::Session,
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
