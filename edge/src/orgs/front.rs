//! The main Worker's side of organizations (`wire`): the membership check
//! on every request of an organization's session, and the organization
//! endpoints forwarded to the accounts Worker after the origin and session
//! checks; a sign-in it answers becomes a session cookie here.

use api::orgs::AccountId;
use api::session::Role;
use worker::Env;
use worker::web_sys::{Request, Response};

use super::wire::{self, Caller, Me, Started};
use crate::access::gate::{self, Facts, Principal};
use crate::access::glue::{session_response, signed_in};
use crate::access::session::{SESSION_SECONDS, Session};
use crate::config::Config;
use crate::errors::{EdgeError, SignInReason};
use crate::routes::OrgsRoute;
use crate::runtime::js::{lines, with_headers};
use crate::runtime::objects::new_request;
use crate::runtime::{Trace, now_s, random_hex};

fn caller(session: &Session) -> Option<Caller> {
    Some(Caller {
        org: session.org.clone(),
        account: AccountId::parse(&session.user)?,
    })
}

/// One request to the accounts Worker.
async fn fetch(env: &Env, request: worker::Request) -> Result<worker::Response, EdgeError> {
    let service = env.service(wire::BINDING).map_err(|e| {
        worker::console_error!("service binding {} missing: {e}", wire::BINDING);
        EdgeError::OrgUnavailable
    })?;
    service
        .fetch_request(request)
        .await
        .map_err(|_| EdgeError::OrgUnavailable)
}

/// One of the accounts Worker's own reads about `caller`: its status and body.
async fn send(env: &Env, url: &str, caller: &str) -> Result<(u16, String), EdgeError> {
    let unavailable = || EdgeError::OrgUnavailable;
    let headers = [(wire::CALLER_HEADER, caller)];
    let request = new_request(url, "POST", &headers, None).ok_or_else(unavailable)?;
    let mut response = fetch(env, request).await?;
    let text = response.text().await.map_err(|_| unavailable())?;
    Ok((response.status_code(), text))
}

/// The person's role in their session's organization, as its object says
/// now (`None`: no longer a member).
pub(crate) async fn member_role(env: &Env, session: &Session) -> Result<Option<Role>, EdgeError> {
    let Some(caller) = caller(session) else {
        return Ok(None);
    };
    let header = caller.header();
    let (status, text) = send(env, wire::CHECK_URL, &header).await?;
    if status != 200 {
        return Err(EdgeError::OrgUnavailable);
    }
    Ok(Role::from_name(&text))
}

/// Who the person is and their organizations, for the session answer.
pub(crate) async fn me(env: &Env, session: &Session) -> Result<Me, EdgeError> {
    let ended = || EdgeError::SignInRequired(SignInReason::SessionEnded);
    let header = caller(session).ok_or_else(ended)?.header();
    let (status, text) = send(env, wire::ME_URL, &header).await?;
    if status != 200 {
        return Err(EdgeError::OrgUnavailable);
    }
    // An empty answer: no longer a member.
    if text.is_empty() {
        return Err(ended());
    }
    Me::decode(&text).ok_or(EdgeError::OrgUnavailable)
}

/// Starts the session the accounts Worker answered and answers as `GET /api/session`.
async fn start(
    env: &Env,
    config: &Config,
    started: Started,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let now = now_s();
    let org_config = config.for_org(started.org.clone());
    let session = Session {
        sid: random_hex(16)?,
        org: started.org,
        user: started.account.to_string(),
        role: started.role,
        mode: org_config.default_mode(),
        expires_at: now + SESSION_SECONDS,
    };
    let cookie = session.set_cookie(&config.session_secret, now);
    let principal = Principal::User {
        session,
        role: started.role,
    };
    trace.caller(&principal);
    session_response(env, &org_config, &principal, Some(cookie)).await
}

pub(crate) async fn handle(
    route: OrgsRoute,
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    request_id: &str,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    // Every one of them is a write or carries a secret: only our own page
    // may call them (login CSRF included).
    gate::require_own_origin(facts)?;
    let signed = !matches!(
        route,
        OrgsRoute::PasswordSignIn
            | OrgsRoute::CreateOrg
            | OrgsRoute::PreviewInvite
            | OrgsRoute::AcceptInvite
    );
    let session = if signed {
        let principal = signed_in(env, config, facts, trace).await?;
        let Principal::User { session, .. } = principal else {
            return Err(EdgeError::SignInRequired(SignInReason::NoSession));
        };
        // The deployment's own organization has its people in settings.
        if session.org.is_deployment() && route != OrgsRoute::SwitchOrg {
            return Err(EdgeError::ManagedBySettings);
        }
        Some(session)
    } else {
        None
    };
    let caller = match &session {
        Some(session) => Some(caller(session).ok_or(EdgeError::OrgNotFound)?.header()),
        None => None,
    };
    // The request goes on as it came (the accounts Worker reads the same
    // path and body, and the client address), naming this request and the caller.
    let mut added = vec![(wire::REQUEST_ID_HEADER, request_id)];
    if let Some(caller) = &caller {
        added.push((wire::CALLER_HEADER, caller));
    }
    let forwarded = with_headers(&req, &lines(added));
    let mut answer = fetch(env, worker::Request::from(forwarded)).await?;
    let starts = matches!(
        route,
        OrgsRoute::PasswordSignIn
            | OrgsRoute::CreateOrg
            | OrgsRoute::AcceptInvite
            | OrgsRoute::SwitchOrg
    );
    if starts && answer.status_code() == 200 {
        let text = answer.text().await.map_err(|_| EdgeError::OrgUnavailable)?;
        let started = Started::decode(&text).ok_or(EdgeError::OrgUnavailable)?;
        if let Some(old) = &session {
            // One cookie, one organization: the switched-from session ends.
            crate::control::glue::revoke(env, &old.org, &old.sid, old.expires_at).await?;
        }
        return start(env, config, started, trace).await;
    }
    // Answers and refusals pass through as the accounts Worker made them
    // (its envelopes carry this request's id and any `Retry-After`).
    Ok(answer.into())
}
