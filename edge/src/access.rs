//! The Worker's own dashboard endpoints (`api::session`): sign-in and out,
//! the session, the mode switch, key rotation and the limits last seen; and
//! who the caller of any endpoint is (`principal`, `signed_in`).

use crate::accounts;
use crate::context::Cx;
use crate::control;
use crate::error::EdgeError;
use api::session::{KeyVerification, ModeRequest, SignInRequest};
use api::{ApiKey, ErrorCode, ErrorEnvelope, KeyEnv};
use domain::access::AccessError;
use domain::access::SignInReason;
use domain::access::console;
use domain::access::gate::{self, Facts, Principal, Tenant};
use domain::access::session::{self, SESSION_SECONDS, Session};
use domain::config::Config;
use domain::errors::Failure;
use domain::errors::Managed;
use domain::errors::SettingError;
use domain::orgs::via::Via;
use domain::orgs::wire::Started;
use domain::upstream::budget::with_budgets;
use domain::upstream::key_scopes;
use domain::upstream::keys::ModeKeys;
use domain::upstream::proxy;
use platform::reply;
use platform::send;
use platform::{Trace, json_body, now_s, random_hex};
use worker::Env;
use worker::web_sys::{Request, Response};

const SET_COOKIE: &str = "Set-Cookie";

/// The session answer, with the alert on the active key if the store has
/// one; for an organization's session, its name and the person's other
/// organizations (the menu's switcher).
pub(crate) async fn session_response(
    env: &Env,
    config: &Config,
    principal: &Principal,
    cookie: Option<String>,
) -> Result<Response, EdgeError> {
    let mode = principal.mode(config);
    let (scopes, problem) = match config.keys_for(mode) {
        Ok(keys) => {
            let (key, _) = control::active_key(env, &config.org, keys).await;
            let problem = control::key_problem(env, &config.org, key).await;
            (
                key_scopes::current(&config.org, mode, &keys.scopes),
                problem,
            )
        }
        // An organization without keys yet: signed in, nothing to call with.
        Err(_) => (Vec::new(), None),
    };
    let orgs = match principal {
        Principal::User { session, .. } if !session.org.is_deployment() => {
            Some(crate::accounts::me(env, session).await?)
        }
        _ => None,
    };
    let info = console::session_info(
        principal,
        config,
        &scopes,
        problem,
        orgs,
        &config.upstream.service,
    );
    let extra: Vec<_> = cookie.map(|c| (SET_COOKIE, c)).into_iter().collect();
    reply::json(200, &info, &extra)
}

/// The caller of a v1 endpoint: a user (sign-out checked across isolates) or the widget.
pub(crate) async fn principal(
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
) -> Result<Principal, EdgeError> {
    not_signed_out(env, config, gate::identify(config, facts)?, facts.now).await
}

/// A signed-in dashboard user (the widget cannot reach the dashboard endpoints).
pub(crate) async fn signed_in(cx: &mut Cx<'_>) -> Result<Principal, EdgeError> {
    let (env, config, facts) = (cx.env, &*cx.config, &cx.facts);
    let user = gate::signed_in_user(config, facts)?
        .ok_or(AccessError::SignInRequired(SignInReason::NoSession))?;
    gate::check_same_origin(facts)?;
    let principal = not_signed_out(env, config, user, facts.now).await?;
    cx.trace.caller(&principal);
    Ok(principal)
}

/// A user's session, checked across isolates: not signed out, and, in an
/// organization, still a member, with the role the organization's object
/// gives now (asked on every request, so a removal or a role change
/// counts from the next one).
async fn not_signed_out(
    env: &Env,
    config: &Config,
    principal: Principal,
    now: u64,
) -> Result<Principal, EdgeError> {
    let Principal::User { session, role } = principal else {
        return Ok(principal);
    };
    let ended = AccessError::SignInRequired(SignInReason::SessionEnded);
    if control::is_revoked(env, &session.org, &session.sid, now).await? {
        return Err(ended.into());
    }
    if session.org.is_deployment() {
        return Ok(Principal::User { session, role });
    }
    // The request's settings were made for this session (`entry::tenant`)
    // with the role the organization's object gives the person now.
    let role = if config.org == session.org {
        config.member
    } else {
        crate::accounts::session_settings(env, config, &session, false, now)
            .await?
            .member
    };
    let role = role.ok_or(ended)?;
    Ok(Principal::User { session, role })
}

/// `POST /api/session`: an access token, the deployment's (`USERS`) or an
/// organization member's (the accounts Worker checks those).
pub(crate) async fn sign_in(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    // Login CSRF: only the dashboard's own page may sign in.
    gate::check_same_origin(&cx.facts)?;
    let request: SignInRequest = json_body(&req, 4096).await?;
    let token = request.token.trim();
    let (env, config) = (cx.env, &*cx.config);
    // An organization member's own token: the accounts Worker's to check.
    if token.starts_with(api::access_tokens::PREFIX) {
        let address = platform::request::header(&req, "CF-Connecting-IP");
        return token_sign_in(env, config, token, address, cx.request_id, cx.trace).await;
    }
    if config.access.users.is_empty() {
        return Err(EdgeError::from(SettingError {
            setting: domain::access::settings::USERS,
            problem: "no users are configured, so nobody can sign in".into(),
        }));
    }
    let user = config
        .access
        .users
        .sign_in(token)
        .ok_or(AccessError::InvalidToken)?;
    let now = now_s();
    let session = Session {
        sid: random_hex(16)?,
        org: config.org.clone(),
        user: user.name.clone(),
        role: user.role,
        mode: config.keys.default_mode(),
        via: Via::Token,
        expires_at: now + SESSION_SECONDS,
    };
    let principal = Principal::User {
        session: session.clone(),
        role: user.role,
    };
    cx.trace.caller(&principal);
    let cookie = session.set_cookie(&config.access.session_secret, now);
    session_response(env, config, &principal, Some(cookie)).await
}

/// `POST /api/session` with a personal access token: the accounts Worker
/// checks it; its refusals pass on as it made them.
async fn token_sign_in(
    env: &Env,
    config: &Config,
    token: &str,
    address: Option<String>,
    request_id: &str,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    match accounts::token(env, token, address.as_deref(), request_id).await? {
        Ok(started) => start(env, config, started, trace).await,
        Err(refusal) => Ok(refusal.into()),
    }
}

/// Starts the session the accounts Worker answered (a sign-in, a new
/// organization, an accepted invitation, a switch) and answers as `GET /api/session`.
pub(crate) async fn start(
    env: &Env,
    config: &Config,
    started: Started,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let now = now_s();
    let org_config = accounts::org_settings(env, config, started.org.clone()).await?;
    let session = Session {
        sid: random_hex(16)?,
        org: started.org,
        user: started.account.to_string(),
        role: started.role,
        mode: org_config.keys.default_mode(),
        via: started.via,
        expires_at: now + SESSION_SECONDS,
    };
    let cookie = session.set_cookie(&config.access.session_secret, now);
    let principal = Principal::User {
        session,
        role: started.role,
    };
    trace.caller(&principal);
    session_response(env, &org_config, &principal, Some(cookie)).await
}

/// `GET /api/session`.
pub(crate) async fn session(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    session_response(cx.env, &cx.config, &principal, None).await
}

/// Signing out always clears the cookie; a valid session is also revoked
/// everywhere, so a copy of the cookie stops working.
pub(crate) async fn sign_out(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    gate::check_same_origin(&cx.facts)?;
    if let Ok(Some(principal)) = gate::signed_in_user(&*cx.config, &cx.facts) {
        cx.trace.caller(&principal);
        if let Principal::User { session, .. } = &principal {
            control::revoke(cx.env, &session.org, &session.sid, session.expires_at).await?;
        }
    }
    reply::empty(204, &[(SET_COOKIE, session::clear_cookie())])
}

/// `PUT /api/session/mode`: an admin switches between live and sandbox.
pub(crate) async fn set_mode(req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    let config = &*cx.config;
    let (session, role) = gate::require_mode_switch(&principal, config.operators_switch_mode)?;
    let request: ModeRequest = json_body(&req, 4096).await?;
    config.keys_for(request.mode)?;
    let session = Session {
        mode: request.mode,
        ..session.clone()
    };
    let cookie = session.set_cookie(&config.access.session_secret, cx.facts.now);
    let principal = Principal::User { session, role };
    session_response(cx.env, config, &principal, Some(cookie)).await
}

/// `GET /api/limits`: the budgets this isolate last saw.
pub(crate) async fn limits(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    let mode = principal.mode(&*cx.config);
    let limits = with_budgets(&cx.config.org, |b| console::limits(mode, b));
    reply::json(200, &limits, &[])
}

/// `GET /api/keys` (admins).
pub(crate) async fn keys(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    gate::require_admin(&principal, "see and rotate the API keys")?;
    keys_status(cx.env, &cx.config).await
}

/// `POST /api/keys/{mode}/verify` (admins): one read with the next key.
pub(crate) async fn verify_key(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    gate::require_admin(&principal, "verify a new API key")?;
    let mode = cx.mode_param()?;
    let (_, next) = next_key(&cx.config, mode)?;
    let verification = verify(&cx.config, mode, next, cx.trace).await;
    reply::json(200, &verification, &[])
}

/// `POST /api/keys/{mode}/activate` (admins). Activation verifies first: a
/// key that does not work is never made active.
pub(crate) async fn activate_key(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = signed_in(cx).await?;
    gate::require_admin(&principal, "activate a new API key")?;
    let mode = cx.mode_param()?;
    let config = &*cx.config;
    let (keys, next) = next_key(config, mode)?;
    let verification = verify(config, mode, next, cx.trace).await;
    if !verification.ok {
        return reply::json(409, &verification, &[]);
    }
    control::activate(cx.env, &config.org, keys, next).await?;
    keys_status(cx.env, config).await
}

async fn keys_status(env: &Env, config: &Config) -> Result<Response, EdgeError> {
    let mut modes = Vec::new();
    for mode in config.keys.modes() {
        let keys = config.keys_for(mode)?;
        let activated = control::activated(env, &config.org, keys).await;
        let (key, _) = keys.active(activated.as_deref());
        let problem = control::key_problem(env, &config.org, key).await;
        let scopes = key_scopes::current(&config.org, mode, &keys.scopes);
        modes.push(console::mode_keys(
            keys,
            activated.as_deref(),
            problem,
            &scopes,
        ));
    }
    reply::json(200, &console::keys_status(modes), &[])
}

/// The mode's keys and its configured next key, or why there is none.
fn next_key(config: &Config, mode: KeyEnv) -> Result<(&ModeKeys, &ApiKey), EdgeError> {
    let keys = config.keys_for(mode)?;
    let next = keys.next.as_ref().ok_or(AccessError::NoNextKey {
        mode,
        managed: Managed::of(&config.org),
    })?;
    Ok((keys, next))
}

/// One read with the next key: does the service accept it?
async fn verify(
    config: &Config,
    mode: KeyEnv,
    next: &ApiKey,
    trace: &mut Trace,
) -> KeyVerification {
    let redacted = next.redacted();
    let answer = match proxy::plan("GET", "/api/v1/wallet", None, &config.upstream.url) {
        Ok(forward) => {
            match send::send(
                &forward,
                "GET",
                next.expose(),
                &[],
                send::Reading::Whole,
                config.upstream.timeout_ms,
                trace,
            )
            .await
            {
                Ok(answer) => answer.store().await.map_err(EdgeError::from),
                Err(e) => Err(e.into()),
            }
        }
        Err(e) => Err(e.into()),
    };
    match answer {
        Ok(r) if r.status < 300 => KeyVerification {
            mode,
            ok: true,
            code: None,
            message: format!("The service accepted {redacted}."),
        },
        Ok(r) => {
            let error = serde_json::from_str::<ErrorEnvelope>(&r.body)
                .ok()
                .map(|e| e.error);
            let code = error.as_ref().map(|e| e.code.clone());
            // A key without wallet:read still authenticated: that is what rotation needs.
            let ok = code == Some(ErrorCode::AuthKeyInsufficientScope);
            KeyVerification {
                mode,
                ok,
                message: match (&error, ok) {
                    (_, true) => {
                        format!("The service accepted {redacted} (it has no wallet:read scope).")
                    }
                    (Some(e), false) => format!("The service refused {redacted}: {}", e.message),
                    (None, false) => format!("The service answered {} for {redacted}.", r.status),
                },
                code: if ok { None } else { code },
            }
        }
        Err(e) => KeyVerification {
            mode,
            ok: false,
            code: Some(e.code()),
            message: format!(
                "Could not verify {redacted}: {}",
                e.to_api_error("").message
            ),
        },
    }
}
