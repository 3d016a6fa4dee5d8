//! The Worker's own dashboard endpoints (`api::session`): sign-in and out,
//! the session, the mode switch, key rotation and the limits last seen.

use super::{Trace, json_body, now_s, random_hex, stores, upstream, with_memory};
use crate::config::Config;
use crate::console;
use crate::errors::EdgeError;
use crate::gate::{self, Facts, Principal};
use crate::proxy::{self, Forward};
use crate::routes::Route;
use crate::session::{self, SESSION_SECONDS, Session};
use api::session::{KeySlot, KeyVerification, ModeRequest, SignInRequest};
use api::{ErrorCode, ErrorEnvelope, KeyEnv};
use worker::Env;
use worker::web_sys::{Request, Response};

const SET_COOKIE: &str = "Set-Cookie";

/// The session answer, with the alert on the active key if the store has one.
async fn session_response(
    env: &Env,
    config: &Config,
    principal: &Principal,
    cookie: Option<String>,
) -> Result<Response, EdgeError> {
    let keys = config.keys_for(principal.mode(config));
    let (key, _) = stores::active_key(env, keys).await;
    let problem = stores::key_problem(env, key).await;
    let info = with_memory(|m| console::session_info(principal, config, m, problem));
    let extra: Vec<_> = cookie.map(|c| (SET_COOKIE, c)).into_iter().collect();
    upstream::json(200, &info, &extra)
}

pub(crate) async fn sign_in(
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    // Login CSRF: only the dashboard's own page may sign in.
    gate::check_same_origin(facts)?;
    if config.users.is_empty() {
        return Err(EdgeError::Config {
            setting: crate::config::names::USERS,
            problem: "no users are configured, so nobody can sign in".into(),
        });
    }
    let request: SignInRequest = json_body(&req, 4096).await?;
    let user = config
        .users
        .sign_in(request.token.trim())
        .ok_or(EdgeError::InvalidToken)?;
    let now = now_s();
    let session = Session {
        sid: random_hex(16),
        user: user.name.clone(),
        role: user.role,
        mode: config.default_mode(),
        expires_at: now + SESSION_SECONDS,
    };
    let principal = Principal::User {
        session: session.clone(),
        role: user.role,
    };
    trace.principal = Some(principal.label());
    trace.role = Some(principal.role());
    let cookie = session.set_cookie(&config.session_secret, now);
    session_response(env, config, &principal, Some(cookie)).await
}

/// Signing out always clears the cookie; a valid session is also revoked
/// everywhere, so a copy of the cookie stops working.
pub(crate) async fn sign_out(
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    gate::check_same_origin(facts)?;
    if let Ok(Some(Principal::User { session, role })) =
        gate::signed_in_user(config, facts, |_| false)
    {
        trace.principal = Some(format!("user:{}", session.user));
        trace.role = Some(role.as_str());
        stores::revoke(env, &session.sid, session.expires_at).await?;
    }
    upstream::empty(204, &[(SET_COOKIE, session::clear_cookie())])
}

pub(crate) async fn handle(
    route: Route,
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    principal: &Principal,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    match route {
        Route::GetSession => session_response(env, config, principal, None).await,
        Route::SetMode => {
            gate::require_admin(principal, "switch between live and sandbox")?;
            let request: ModeRequest = json_body(&req, 4096).await?;
            if config.mode(request.mode).is_none() {
                return Err(EdgeError::ModeUnavailable {
                    mode: request.mode.as_str(),
                });
            }
            let Principal::User { session, role } = principal else {
                unreachable!("require_admin admits users only")
            };
            let session = Session {
                mode: request.mode,
                ..session.clone()
            };
            let cookie = session.set_cookie(&config.session_secret, facts.now);
            let principal = Principal::User {
                session,
                role: *role,
            };
            session_response(env, config, &principal, Some(cookie)).await
        }
        Route::Limits => {
            let mode = principal.mode(config);
            upstream::json(200, &with_memory(|m| console::limits(mode, m)), &[])
        }
        Route::Keys => {
            gate::require_admin(principal, "see and rotate the API keys")?;
            keys_status(env, config).await
        }
        Route::VerifyKey(mode) => {
            gate::require_admin(principal, "verify a new API key")?;
            let verification = verify_next(config, mode, trace).await?;
            upstream::json(200, &verification, &[])
        }
        Route::ActivateKey(mode) => {
            gate::require_admin(principal, "activate a new API key")?;
            // Activation verifies first: a key that does not work is never made active.
            let verification = verify_next(config, mode, trace).await?;
            if !verification.ok {
                return upstream::json(409, &verification, &[]);
            }
            let keys = config.mode(mode).expect("verify_next checked the mode");
            let next = keys
                .slot(KeySlot::Next)
                .expect("verify_next checked the slot");
            stores::activate(env, keys, next).await?;
            keys_status(env, config).await
        }
        Route::SignIn
        | Route::SignOut
        | Route::Preflight(_)
        | Route::V1(_)
        | Route::ReceiveWebhook
        | Route::Ledger
        | Route::Inbox
        | Route::Live
        | Route::VerifyWebhook
        | Route::WidgetPage
        | Route::LabelPdf { .. } => {
            unreachable!("routed in glue::handle")
        }
    }
}

async fn keys_status(env: &Env, config: &Config) -> Result<Response, EdgeError> {
    let mut modes = Vec::new();
    for mode in config.modes() {
        let keys = config.keys_for(mode);
        let activated = stores::activated(env, keys).await;
        let (key, _) = keys.active(activated.as_deref());
        let problem = stores::key_problem(env, key).await;
        modes.push(with_memory(|m| {
            console::mode_keys(keys, activated.as_deref(), problem, m)
        }));
    }
    upstream::json(200, &console::keys_status(modes), &[])
}

/// One read with the next key: does the service accept it?
async fn verify_next(
    config: &Config,
    mode: KeyEnv,
    trace: &mut Trace,
) -> Result<KeyVerification, EdgeError> {
    let keys = config.mode(mode).ok_or(EdgeError::ModeUnavailable {
        mode: mode.as_str(),
    })?;
    let next = keys.next.as_ref().ok_or(EdgeError::NoNextKey {
        setting: match mode {
            KeyEnv::Live => crate::config::names::LIVE_KEY_NEXT,
            KeyEnv::Sandbox => crate::config::names::SANDBOX_KEY_NEXT,
        },
    })?;
    let forward: Forward = proxy::plan("GET", "/api/v1/wallet", None, &config.upstream)?;
    let answer = match upstream::send(
        &forward,
        "GET",
        next.expose(),
        &[],
        config.upstream_timeout_ms,
        trace,
    )
    .await
    {
        Ok(answer) => answer.store().await,
        Err(e) => Err(e),
    };
    let redacted = next.redacted();
    Ok(match answer {
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
            let ok = code == Some(api::ErrorCode::AuthKeyInsufficientScope);
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
            code: Some(ErrorCode::parse(e.code())),
            message: format!(
                "Could not verify {redacted}: {}",
                e.to_api_error("").message
            ),
        },
    })
}
