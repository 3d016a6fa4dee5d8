//! Everything the Worker answers under `/api`: the v1 endpoints it forwards
//! (see `proxy`) and its own dashboard endpoints (`api::session`); and the
//! storefront widget page (`api::widget`).

use crate::errors::RouteError;
use crate::upstream::proxy::{self, Forward};
use api::endpoints::own_endpoint;
use api::orgs::{AccountId, OrgId};
use api::{KeyEnv, OwnId};

/// Every request the Worker answers itself, by feature, so each feature's
/// handler matches all of its own cases and nothing else.
#[derive(Debug)]
pub enum Route {
    /// A v1 endpoint, forwarded (`upstream`).
    V1(Forward),
    /// A CORS preflight for a v1 endpoint (the widget's).
    Preflight(Forward),
    /// Sign-in, the session, the mode switch, keys, limits (`access`).
    Access(AccessRoute),
    /// The webhook receiver and the dashboard's inbox reads (`webhooks`).
    Webhooks(WebhooksRoute),
    /// A label's PDF (`label_pdf`), as a download or `inline`.
    LabelPdf { id: String, inline: bool },
    /// The storefront widget page (`widget`).
    WidgetPage,
    /// Batch jobs (`jobs`).
    Jobs(JobsRoute),
    /// Organizations, people and invitations (`orgs`).
    Orgs(OrgsRoute),
    /// `label.created` deliveries to one organization's webhook URL.
    OrgWebhook(OrgId),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrgsRoute {
    /// Anyone: they carry their own credential (a password, a setup or invite token).
    PasswordSignIn,
    CreateOrg,
    PreviewInvite,
    AcceptInvite,
    /// Signed in.
    SwitchOrg,
    /// Admins.
    Members,
    SetMemberRole(AccountId),
    RemoveMember(AccountId),
    Invites,
    CreateInvite,
    RevokeInvite(String),
    Audit,
    OrgKeys,
    SetOrgKeys,
    OrgWebhook,
    SetOrgWebhook,
    /// Members (their own personal access tokens; admins: everyone's).
    AccessTokens,
    CreateAccessToken,
    RevokeAccessToken(String),
    /// Any member reads; admins change.
    OrgWidget,
    SetOrgWidget,
    /// Anyone (a passkey is its own credential).
    PasskeySignInOptions,
    PasskeySignIn,
    /// Members: their own passkeys (a person's, not the organization's).
    Passkeys,
    PasskeyOptions,
    AddPasskey,
    RemovePasskey(String),
    /// Anyone: whether sign-up is open (`api::orgs::Signup`).
    Signup,
    /// Members (writes: admins and operators): saved addresses and package
    /// presets, one of their endpoints (`api::presets`) and its id, if any.
    Saved(OwnId, String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobsRoute {
    Create,
    List,
    Get(String),
    Rows(String),
    Act(String, JobAction),
    Live(String),
    Results(String),
    Labels(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobAction {
    Start,
    Approve,
    Decide,
    Retry,
    Release,
    RetryReleased,
    Cancel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessRoute {
    SignIn,
    SignOut,
    /// The rest need a signed-in user.
    Session(SessionRoute),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionRoute {
    Get,
    SetMode,
    Keys,
    VerifyKey(KeyEnv),
    ActivateKey(KeyEnv),
    Limits,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhooksRoute {
    /// `label.created` deliveries from the service (no session: the signature is the credential).
    Receive,
    /// The dashboard's reads, for a signed-in user.
    Dashboard(InboxRoute),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboxRoute {
    Inbox,
    /// The inbox's live feed (a WebSocket upgrade).
    Live,
    Verify,
    Insights,
    History,
    Export,
}

impl OrgsRoute {
    /// Carries its own credential (a password, a setup or invitation token)
    /// or asks nothing of one (whether sign-up is open):
    /// no session needed.
    pub fn is_anonymous(&self) -> bool {
        matches!(
            self,
            OrgsRoute::PasswordSignIn
                | OrgsRoute::CreateOrg
                | OrgsRoute::Signup
                | OrgsRoute::PreviewInvite
                | OrgsRoute::AcceptInvite
                | OrgsRoute::PasskeySignInOptions
                | OrgsRoute::PasskeySignIn
        )
    }

    /// Its success is a session to start (the accounts Worker answers `wire::Started`).
    pub fn starts_session(&self) -> bool {
        matches!(
            self,
            OrgsRoute::PasswordSignIn
                | OrgsRoute::CreateOrg
                | OrgsRoute::AcceptInvite
                | OrgsRoute::SwitchOrg
                | OrgsRoute::PasskeySignIn
        )
    }
}

impl Route {
    /// Whether the route acts for the caller's session, and so works with
    /// the settings of the session's organization. The rest carry their own
    /// credential (a token, a password, a link, a signature) or are the
    /// storefront's, and work with the deployment's settings.
    pub fn acts_for_session(&self) -> bool {
        match self {
            Route::V1(_)
            | Route::LabelPdf { .. }
            | Route::Jobs(_)
            | Route::Webhooks(WebhooksRoute::Dashboard(_))
            | Route::Access(AccessRoute::SignOut | AccessRoute::Session(_)) => true,
            Route::Orgs(route) => !route.is_anonymous(),
            Route::Preflight(_)
            | Route::WidgetPage
            | Route::Webhooks(WebhooksRoute::Receive)
            | Route::OrgWebhook(_)
            | Route::Access(AccessRoute::SignIn) => false,
        }
    }

    /// The route pattern for the log line.
    pub fn pattern(&self) -> &'static str {
        match self {
            Route::Preflight(f) | Route::V1(f) => f.endpoint.pattern,
            Route::Access(route) => {
                own_endpoint(match route {
                    AccessRoute::SignIn
                    | AccessRoute::SignOut
                    | AccessRoute::Session(SessionRoute::Get) => OwnId::SignIn,
                    AccessRoute::Session(SessionRoute::SetMode) => OwnId::SetMode,
                    AccessRoute::Session(SessionRoute::Keys) => OwnId::Keys,
                    AccessRoute::Session(SessionRoute::VerifyKey(_)) => OwnId::VerifyKey,
                    AccessRoute::Session(SessionRoute::ActivateKey(_)) => OwnId::ActivateKey,
                    AccessRoute::Session(SessionRoute::Limits) => OwnId::Limits,
                })
                .pattern
            }
            Route::Webhooks(route) => {
                own_endpoint(match route {
                    WebhooksRoute::Receive => OwnId::ReceiveWebhook,
                    WebhooksRoute::Dashboard(InboxRoute::Inbox) => OwnId::Inbox,
                    WebhooksRoute::Dashboard(InboxRoute::Live) => OwnId::Live,
                    WebhooksRoute::Dashboard(InboxRoute::Verify) => OwnId::VerifyWebhook,
                    WebhooksRoute::Dashboard(InboxRoute::Insights) => OwnId::Insights,
                    WebhooksRoute::Dashboard(InboxRoute::History) => OwnId::LabelHistory,
                    WebhooksRoute::Dashboard(InboxRoute::Export) => OwnId::ExportLabels,
                })
                .pattern
            }
            Route::LabelPdf { .. } => own_endpoint(OwnId::LabelPdf).pattern,
            Route::WidgetPage => own_endpoint(OwnId::WidgetPage).pattern,
            Route::Jobs(route) => {
                own_endpoint(match route {
                    JobsRoute::Create => OwnId::CreateJob,
                    JobsRoute::List => OwnId::ListJobs,
                    JobsRoute::Get(_) => OwnId::GetJob,
                    JobsRoute::Rows(_) => OwnId::JobRows,
                    JobsRoute::Act(_, JobAction::Start) => OwnId::StartJob,
                    JobsRoute::Act(_, JobAction::Approve) => OwnId::ApproveJob,
                    JobsRoute::Act(_, JobAction::Decide) => OwnId::DecideJob,
                    JobsRoute::Act(_, JobAction::Retry) => OwnId::RetryJob,
                    JobsRoute::Act(_, JobAction::Release) => OwnId::ReleaseJob,
                    JobsRoute::Act(_, JobAction::RetryReleased) => OwnId::RetryReleasedRows,
                    JobsRoute::Act(_, JobAction::Cancel) => OwnId::CancelJob,
                    JobsRoute::Live(_) => OwnId::JobLive,
                    JobsRoute::Results(_) => OwnId::JobResults,
                    JobsRoute::Labels(_) => OwnId::JobLabels,
                })
                .pattern
            }
            Route::Orgs(route) => {
                own_endpoint(match route {
                    OrgsRoute::PasswordSignIn => OwnId::PasswordSignIn,
                    OrgsRoute::CreateOrg => OwnId::CreateOrg,
                    OrgsRoute::PreviewInvite => OwnId::PreviewInvite,
                    OrgsRoute::AcceptInvite => OwnId::AcceptInvite,
                    OrgsRoute::SwitchOrg => OwnId::SwitchOrg,
                    OrgsRoute::Members => OwnId::Members,
                    OrgsRoute::SetMemberRole(_) => OwnId::SetMemberRole,
                    OrgsRoute::RemoveMember(_) => OwnId::RemoveMember,
                    OrgsRoute::Invites => OwnId::Invites,
                    OrgsRoute::CreateInvite => OwnId::CreateInvite,
                    OrgsRoute::RevokeInvite(_) => OwnId::RevokeInvite,
                    OrgsRoute::Audit => OwnId::Audit,
                    OrgsRoute::OrgKeys => OwnId::OrgKeys,
                    OrgsRoute::SetOrgKeys => OwnId::SetOrgKeys,
                    OrgsRoute::OrgWebhook => OwnId::OrgWebhook,
                    OrgsRoute::SetOrgWebhook => OwnId::SetOrgWebhook,
                    OrgsRoute::AccessTokens => OwnId::AccessTokens,
                    OrgsRoute::CreateAccessToken => OwnId::CreateAccessToken,
                    OrgsRoute::RevokeAccessToken(_) => OwnId::RevokeAccessToken,
                    OrgsRoute::OrgWidget => OwnId::OrgWidget,
                    OrgsRoute::SetOrgWidget => OwnId::SetOrgWidget,
                    OrgsRoute::PasskeySignInOptions => OwnId::PasskeySignInOptions,
                    OrgsRoute::PasskeySignIn => OwnId::PasskeySignIn,
                    OrgsRoute::Passkeys => OwnId::Passkeys,
                    OrgsRoute::PasskeyOptions => OwnId::PasskeyOptions,
                    OrgsRoute::AddPasskey => OwnId::AddPasskey,
                    OrgsRoute::RemovePasskey(_) => OwnId::RemovePasskey,
                    OrgsRoute::Signup => OwnId::Signup,
                    OrgsRoute::Saved(id, _) => *id,
                })
                .pattern
            }
            Route::OrgWebhook(_) => own_endpoint(OwnId::ReceiveOrgWebhook).pattern,
        }
    }
}

/// Splits a serialized request URL (`http://host:port/path?query`) into
/// origin, raw path and query, without a full URL parse per request. The
/// path stays percent-encoded, so encoded slashes never match an id.
pub fn split_url(url: &str) -> Option<(&str, &str, Option<&str>)> {
    let after_scheme = url.find("://")? + 3;
    let path_start = url[after_scheme..]
        .find('/')
        .map_or(url.len(), |i| after_scheme + i);
    let origin = &url[..path_start];
    let rest = &url[path_start..];
    let rest = rest.split_once('#').map_or(rest, |(r, _)| r);
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    Some((origin, if path.is_empty() { "/" } else { path }, query))
}

/// One query parameter, percent-decoded (`+` is a space); `None` if absent.
pub fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    let value = query?
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(key, _)| *key == name)?
        .1;
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Where the forwarded v1 endpoints live.
const V1_PREFIX: &str = "/api/v1/";

pub fn route(
    method: &str,
    raw_path: &str,
    query: Option<&str>,
    upstream: &str,
) -> Result<Route, RouteError> {
    // The forwarded calls, the hot path, skip the Worker's own table: none
    // of its paths is under /api/v1/.
    let own = if raw_path.starts_with(V1_PREFIX) {
        Err(vec![])
    } else {
        api::match_own(method, raw_path)
    };
    let own = match own {
        Ok(own) => own,
        Err(allowed) if !allowed.is_empty() => {
            return Err(RouteError::MethodNotAllowed {
                method: method.to_string(),
                path: raw_path.to_string(),
                allowed: allowed.iter().map(|m| m.as_str()).collect(),
            });
        }
        Err(_) if method == "OPTIONS" => {
            // The preflight names the method it asks about; POST is the widget's.
            return proxy::plan("POST", raw_path, None, upstream).map(Route::Preflight);
        }
        Err(_) => return proxy::plan(method, raw_path, query, upstream).map(Route::V1),
    };
    let param = own.param.unwrap_or_default();
    let mode = || {
        param.parse::<KeyEnv>().map_err(|_| RouteError::NotFound {
            path: raw_path.to_string(),
        })
    };
    let session = |route| Ok::<_, RouteError>(Route::Access(AccessRoute::Session(route)));
    // A path naming a job needs a job id there; anything else is no route.
    let job = |route: fn(String) -> JobsRoute| {
        if crate::jobs::is_job_id(&param) {
            Ok(Route::Jobs(route(param.clone())))
        } else {
            Err(RouteError::NotFound {
                path: raw_path.to_string(),
            })
        }
    };
    let inbox = |route| Route::Webhooks(WebhooksRoute::Dashboard(route));
    let not_found = || RouteError::NotFound {
        path: raw_path.to_string(),
    };
    let account = || AccountId::parse(&param).ok_or_else(not_found);
    let orgs = Route::Orgs;
    Ok(match own.endpoint.id {
        OwnId::SignIn => Route::Access(AccessRoute::SignIn),
        OwnId::SignOut => Route::Access(AccessRoute::SignOut),
        OwnId::GetSession => session(SessionRoute::Get)?,
        OwnId::SetMode => session(SessionRoute::SetMode)?,
        OwnId::Keys => session(SessionRoute::Keys)?,
        OwnId::VerifyKey => session(SessionRoute::VerifyKey(mode()?))?,
        OwnId::ActivateKey => session(SessionRoute::ActivateKey(mode()?))?,
        OwnId::Limits => session(SessionRoute::Limits)?,
        OwnId::ReceiveWebhook => Route::Webhooks(WebhooksRoute::Receive),
        OwnId::Inbox => inbox(InboxRoute::Inbox),
        OwnId::Live => inbox(InboxRoute::Live),
        OwnId::VerifyWebhook => inbox(InboxRoute::Verify),
        OwnId::Insights => inbox(InboxRoute::Insights),
        OwnId::LabelHistory => inbox(InboxRoute::History),
        OwnId::ExportLabels => inbox(InboxRoute::Export),
        OwnId::LabelPdf => Route::LabelPdf {
            inline: query_param(query, "inline").as_deref() == Some("1"),
            id: param,
        },
        OwnId::WidgetPage => Route::WidgetPage,
        OwnId::CreateJob => Route::Jobs(JobsRoute::Create),
        OwnId::ListJobs => Route::Jobs(JobsRoute::List),
        OwnId::GetJob => job(JobsRoute::Get)?,
        OwnId::JobRows => job(JobsRoute::Rows)?,
        OwnId::StartJob => job(|id| JobsRoute::Act(id, JobAction::Start))?,
        OwnId::ApproveJob => job(|id| JobsRoute::Act(id, JobAction::Approve))?,
        OwnId::DecideJob => job(|id| JobsRoute::Act(id, JobAction::Decide))?,
        OwnId::RetryJob => job(|id| JobsRoute::Act(id, JobAction::Retry))?,
        OwnId::ReleaseJob => job(|id| JobsRoute::Act(id, JobAction::Release))?,
        OwnId::RetryReleasedRows => job(|id| JobsRoute::Act(id, JobAction::RetryReleased))?,
        OwnId::CancelJob => job(|id| JobsRoute::Act(id, JobAction::Cancel))?,
        OwnId::JobLive => job(JobsRoute::Live)?,
        OwnId::JobResults => job(JobsRoute::Results)?,
        OwnId::JobLabels => job(JobsRoute::Labels)?,
        OwnId::PasswordSignIn => orgs(OrgsRoute::PasswordSignIn),
        OwnId::CreateOrg => orgs(OrgsRoute::CreateOrg),
        OwnId::PreviewInvite => orgs(OrgsRoute::PreviewInvite),
        OwnId::AcceptInvite => orgs(OrgsRoute::AcceptInvite),
        OwnId::SwitchOrg => orgs(OrgsRoute::SwitchOrg),
        OwnId::Members => orgs(OrgsRoute::Members),
        OwnId::SetMemberRole => orgs(OrgsRoute::SetMemberRole(account()?)),
        OwnId::RemoveMember => orgs(OrgsRoute::RemoveMember(account()?)),
        OwnId::Invites => orgs(OrgsRoute::Invites),
        OwnId::CreateInvite => orgs(OrgsRoute::CreateInvite),
        OwnId::RevokeInvite => orgs(OrgsRoute::RevokeInvite(param)),
        OwnId::Audit => orgs(OrgsRoute::Audit),
        OwnId::OrgKeys => orgs(OrgsRoute::OrgKeys),
        OwnId::SetOrgKeys => orgs(OrgsRoute::SetOrgKeys),
        OwnId::OrgWebhook => orgs(OrgsRoute::OrgWebhook),
        OwnId::SetOrgWebhook => orgs(OrgsRoute::SetOrgWebhook),
        OwnId::AccessTokens => orgs(OrgsRoute::AccessTokens),
        OwnId::CreateAccessToken => orgs(OrgsRoute::CreateAccessToken),
        OwnId::RevokeAccessToken => orgs(OrgsRoute::RevokeAccessToken(param)),
        OwnId::OrgWidget => orgs(OrgsRoute::OrgWidget),
        OwnId::SetOrgWidget => orgs(OrgsRoute::SetOrgWidget),
        id @ (OwnId::Addresses
        | OwnId::SaveAddress
        | OwnId::UpdateAddress
        | OwnId::DeleteAddress
        | OwnId::DefaultAddress
        | OwnId::Packages
        | OwnId::SavePackage
        | OwnId::UpdatePackage
        | OwnId::DeletePackage) => orgs(OrgsRoute::Saved(id, param)),
        OwnId::ReceiveOrgWebhook => Route::OrgWebhook(OrgId::parse(&param).ok_or_else(not_found)?),
        OwnId::PasskeySignInOptions => orgs(OrgsRoute::PasskeySignInOptions),
        OwnId::PasskeySignIn => orgs(OrgsRoute::PasskeySignIn),
        OwnId::Passkeys => orgs(OrgsRoute::Passkeys),
        OwnId::PasskeyOptions => orgs(OrgsRoute::PasskeyOptions),
        OwnId::AddPasskey => orgs(OrgsRoute::AddPasskey),
        OwnId::RemovePasskey => orgs(OrgsRoute::RemovePasskey(param)),
        OwnId::Signup => orgs(OrgsRoute::Signup),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;

    const UP: &str = "http://127.0.0.1:8788";

    #[test]
    fn own_endpoints_and_their_methods() {
        assert!(matches!(
            route("POST", "/api/session", None, UP),
            Ok(Route::Access(AccessRoute::SignIn))
        ));
        assert!(matches!(
            route("DELETE", "/api/session", None, UP),
            Ok(Route::Access(AccessRoute::SignOut))
        ));
        assert!(matches!(
            route("PUT", "/api/session/mode", None, UP),
            Ok(Route::Access(AccessRoute::Session(SessionRoute::SetMode)))
        ));
        assert!(matches!(
            route("POST", "/api/keys/sandbox/verify", None, UP),
            Ok(Route::Access(AccessRoute::Session(
                SessionRoute::VerifyKey(KeyEnv::Sandbox)
            )))
        ));
        assert!(matches!(
            route("POST", "/api/keys/live/activate", None, UP),
            Ok(Route::Access(AccessRoute::Session(
                SessionRoute::ActivateKey(KeyEnv::Live)
            )))
        ));
        assert!(matches!(
            route("POST", "/hooks/v1/label-created", None, UP),
            Ok(Route::Webhooks(WebhooksRoute::Receive))
        ));
        assert!(matches!(
            route("GET", "/api/webhooks/live", None, UP),
            Ok(Route::Webhooks(WebhooksRoute::Dashboard(InboxRoute::Live)))
        ));
        assert!(matches!(
            route("GET", "/api/labels/lbl_1/pdf", Some("inline=1"), UP),
            Ok(Route::LabelPdf { id, inline: true }) if id == "lbl_1"
        ));
        assert_eq!(
            route("DELETE", "/api/labels/lbl_1/pdf", None, UP)
                .unwrap_err()
                .status(),
            405
        );
        for path in [
            "/api/labels/../pdf",
            "/api/labels/a%2Fb/pdf",
            "/api/labels//pdf",
        ] {
            assert_eq!(
                route("GET", path, None, UP).unwrap_err().status(),
                404,
                "{path}"
            );
        }
        for path in ["/widget", "/widget/"] {
            assert!(matches!(
                route("GET", path, Some("weight_oz=20"), UP),
                Ok(Route::WidgetPage)
            ));
        }
        assert_eq!(
            route("POST", "/widget/", None, UP).unwrap_err().status(),
            405
        );
        for (method, path) in [
            ("GET", "/hooks/v1/label-created"),
            ("GET", "/api/webhooks/verify"),
        ] {
            assert_eq!(route(method, path, None, UP).unwrap_err().status(), 405);
        }
        assert_eq!(
            route("POST", "/hooks/v1/label-created/", None, UP)
                .unwrap_err()
                .status(),
            404
        );
        assert_eq!(
            route("PUT", "/api/session", None, UP).unwrap_err().status(),
            405
        );
        assert_eq!(
            route("GET", "/api/keys/live/verify", None, UP)
                .unwrap_err()
                .status(),
            405
        );
        for path in [
            "/api/keys/prod/verify",
            "/api/keys/live/delete",
            "/api/session/",
            "/api/sessions",
        ] {
            assert_eq!(
                route("POST", path, None, UP).unwrap_err().status(),
                404,
                "{path}"
            );
        }
    }

    #[test]
    fn no_own_endpoint_hides_under_the_v1_prefix() {
        for e in &api::OWN_ENDPOINTS {
            assert!(!e.pattern.starts_with(V1_PREFIX), "{}", e.pattern);
        }
    }

    #[test]
    fn job_routes_need_a_job_id() {
        let id = "job_0123456789abcdef01234567";
        assert!(matches!(
            route("POST", "/api/jobs", None, UP),
            Ok(Route::Jobs(JobsRoute::Create))
        ));
        assert!(matches!(
            route("POST", &format!("/api/jobs/{id}/cancel"), None, UP),
            Ok(Route::Jobs(JobsRoute::Act(j, JobAction::Cancel))) if j == id
        ));
        assert!(matches!(
            route(
                "GET",
                &format!("/api/jobs/{id}/labels.pdf"),
                Some("part=2"),
                UP
            ),
            Ok(Route::Jobs(JobsRoute::Labels(_)))
        ));
        assert_eq!(
            route("GET", "/api/jobs/lbl_1/rows", None, UP)
                .unwrap_err()
                .status(),
            404
        );
        assert_eq!(
            route("DELETE", &format!("/api/jobs/{id}"), None, UP)
                .unwrap_err()
                .status(),
            405
        );
    }

    #[test]
    fn query_params_are_decoded() {
        let q = Some("state=rejected&q=1Z%20999+x&bad=%zz&last=%4");
        assert_eq!(query_param(q, "q").as_deref(), Some("1Z 999 x"));
        assert_eq!(query_param(q, "state").as_deref(), Some("rejected"));
        assert_eq!(query_param(q, "bad").as_deref(), Some("%zz"));
        assert_eq!(query_param(q, "last").as_deref(), Some("%4"));
        assert_eq!(query_param(q, "missing"), None);
        assert_eq!(query_param(None, "q"), None);
    }

    #[test]
    fn splits_urls_without_decoding() {
        assert_eq!(
            split_url("https://ship.example/api/v1/labels/..%2Fx?a=1&b=2"),
            Some((
                "https://ship.example",
                "/api/v1/labels/..%2Fx",
                Some("a=1&b=2")
            ))
        );
        assert_eq!(
            split_url("http://127.0.0.1:8787"),
            Some(("http://127.0.0.1:8787", "/", None))
        );
        assert_eq!(split_url("no scheme"), None);
    }

    #[test]
    fn v1_paths_are_forwarded_or_preflighted() {
        assert!(matches!(
            route("GET", "/api/v1/wallet", None, UP),
            Ok(Route::V1(_))
        ));
        let Ok(Route::Preflight(f)) = route("OPTIONS", "/api/v1/rates", None, UP) else {
            panic!("preflight")
        };
        assert_eq!(f.endpoint.pattern, "/v1/rates");
        assert_eq!(
            route("OPTIONS", "/api/v1/nope", None, UP)
                .unwrap_err()
                .status(),
            404
        );
    }
}
