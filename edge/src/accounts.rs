//! The accounts Worker as the main Worker calls it (`wire`): the
//! membership check and the settings of an organization's request, who a
//! person is, audit records, and the calls forwarded to it.

use std::rc::Rc;

use api::orgs::{AccountId, OrgId};
use api::session::KeySlot;
use api::{ApiKey, KeyEnv};
use domain::access::session::Session;
use domain::access::{AccessError, SignInReason};
use domain::config::Config;
use domain::errors::Failure;
use domain::orgs::OrgError;
use domain::orgs::member_checks::MemberChecks;
use domain::orgs::wire::{self, Caller, Checked, Me, Record, Started};
use domain::upstream::keys::{Keys, ModeKeys};
use platform::js::{lines, with_headers};
use platform::objects::new_request;
use worker::Env;
use worker::web_sys::Request;

use crate::error::EdgeError;

/// The caller the accounts Worker is told of: a member of an organization.
pub(crate) fn caller(session: &Session) -> Option<Caller> {
    Some(Caller {
        org: session.org.clone(),
        account: AccountId::parse(&session.user)?,
        via: session.via,
    })
}

/// One request to the accounts Worker.
async fn fetch(env: &Env, request: worker::Request) -> Result<worker::Response, EdgeError> {
    let service = env.service(wire::BINDING).map_err(|e| {
        worker::console_error!("service binding {} missing: {e}", wire::BINDING);
        OrgError::Unavailable
    })?;
    service
        .fetch_request(request)
        .await
        .map_err(|_| OrgError::Unavailable.into())
}

/// One of the accounts Worker's own reads (about the caller or the
/// organization `header` names): its status and body.
async fn send(env: &Env, url: &str, header: (&str, &str)) -> Result<(u16, String), EdgeError> {
    let unavailable = || OrgError::Unavailable;
    let headers = [header];
    let request = new_request(url, "POST", &headers, None).ok_or_else(unavailable)?;
    let mut response = fetch(env, request).await?;
    let text = response.text().await.map_err(|_| unavailable())?;
    Ok((response.status_code(), text))
}

/// The settings of a request of `org`: the deployment-wide ones with the
/// organization's keys, and the person's role if the accounts Worker was
/// asked about a caller (`header` names the caller or the organization).
async fn settings(
    env: &Env,
    base: &Config,
    org: OrgId,
    url: &str,
    header: (&str, &str),
) -> Result<Config, EdgeError> {
    let (status, text) = send(env, url, header).await?;
    let checked = (status == 200)
        .then(|| Checked::decode(&text))
        .flatten()
        .ok_or(OrgError::Unavailable)?;
    let mut config = base.for_org(org);
    config.member = checked.role;
    config.member_name = checked.name;
    config.operators_switch_mode = checked.operators_switch_mode;
    let (mut live, mut sandbox): (Option<ModeKeys>, Option<ModeKeys>) = (None, None);
    // Current keys come before next ones (the object lists them by mode, then slot).
    for key in checked.keys {
        let opened = ApiKey::parse(&key.key).map_err(|_| OrgError::Unavailable)?;
        let slot = match key.mode {
            KeyEnv::Live => &mut live,
            KeyEnv::Sandbox => &mut sandbox,
        };
        match (key.slot, slot.as_mut()) {
            (KeySlot::Current, _) => {
                *slot = Some(ModeKeys {
                    mode: key.mode,
                    current: opened,
                    next: None,
                    scopes: key.scopes,
                })
            }
            (KeySlot::Next, Some(keys)) => keys.next = Some(opened),
            (KeySlot::Next, None) => {}
        }
    }
    config.keys = Keys::of(live, sandbox);
    for (slot, secret) in checked.webhook {
        let secret = Some(secret.into_bytes());
        match slot {
            KeySlot::Current => config.webhook.current = secret,
            KeySlot::Next => config.webhook.next = secret,
        }
    }
    if let Some(widget) = checked.widget {
        config.widget.origins = widget.origins;
        config.widget.share = widget.share;
        config.widget.ship_from = widget.ship_from;
        config.widget.fallback = widget.fallback;
    }
    Ok(config)
}

thread_local! {
    static CHECKS: std::cell::RefCell<MemberChecks<Rc<Config>>> = Default::default();
}

/// The settings of a request of `session`: its organization's, with its
/// keys and the person's role as the organization's object says
/// (`member` is `None` once they are no longer a member): now, or for a
/// read (`reuse`), as it said moments ago (`member_checks`).
pub(crate) async fn session_settings(
    env: &Env,
    base: &Config,
    session: &Session,
    reuse: bool,
    now: u64,
) -> Result<Rc<Config>, EdgeError> {
    // A session that names no account is no member's.
    let Some(caller) = caller(session) else {
        return Ok(Rc::new(base.for_org(session.org.clone())));
    };
    if let Some(config) = reuse
        .then(|| CHECKS.with(|c| c.borrow().seen(&caller.org, &caller.account, now)))
        .flatten()
    {
        return Ok(config);
    }
    let header = caller.header();
    let header = (wire::CALLER_HEADER, header.as_str());
    let config = Rc::new(settings(env, base, session.org.clone(), wire::CHECK_URL, header).await?);
    if config.member.is_some() {
        CHECKS.with(|c| {
            c.borrow_mut()
                .remember(&caller.org, &caller.account, config.clone(), now)
        });
    }
    Ok(config)
}

/// An organization's settings with its keys and webhook secrets, for its
/// batch jobs, its webhook deliveries and a new session.
pub(crate) async fn org_settings(
    env: &Env,
    base: &Config,
    org: OrgId,
) -> Result<Config, EdgeError> {
    let named = org.to_string();
    settings(env, base, org, wire::KEYS_URL, (wire::ORG_HEADER, &named)).await
}

/// Adds a money decision of `session`'s person to their organization's
/// audit log. The decision stands either way (the money is committed);
/// a miss is logged for the operator, naming the entry.
pub(crate) async fn record(env: &Env, session: &Session, record: &Record) {
    let Some(caller) = caller(session).filter(|_| !session.org.is_deployment()) else {
        return;
    };
    let caller = caller.header();
    let headers = [(wire::CALLER_HEADER, caller.as_str())];
    let body = record.encode();
    let sent = match new_request(wire::RECORD_URL, "POST", &headers, Some(&body)) {
        Some(request) => fetch(env, request).await.map(|r| r.status_code()),
        None => Err(OrgError::Unavailable.into()),
    };
    if !matches!(sent, Ok(204)) {
        let why = sent.map_or_else(|e| e.code().to_string(), |status| status.to_string());
        worker::console_error!(
            "an audit entry was not recorded ({why}; {}): {}",
            record.action.as_str(),
            record.detail
        );
    }
}

/// An organization's settings for its storefront widget: its keys and its
/// widget's (`crate::widget` keeps them briefly per isolate).
pub(crate) async fn widget_settings(
    env: &Env,
    base: &Config,
    org: OrgId,
) -> Result<Config, EdgeError> {
    let named = org.to_string();
    settings(env, base, org, wire::WIDGET_URL, (wire::ORG_HEADER, &named)).await
}

/// Who the person is and their organizations, for the session answer.
pub(crate) async fn me(env: &Env, session: &Session) -> Result<Me, EdgeError> {
    let ended = || AccessError::SignInRequired(SignInReason::SessionEnded);
    let header = caller(session).ok_or_else(ended)?.header();
    let (status, text) = send(env, wire::ME_URL, (wire::CALLER_HEADER, &header)).await?;
    if status != 200 {
        return Err(OrgError::Unavailable.into());
    }
    // An empty answer: no longer a member.
    if text.is_empty() {
        return Err(ended().into());
    }
    Me::decode(&text).ok_or(OrgError::Unavailable.into())
}

/// `POST /api/session` with a personal access token, checked by the
/// accounts Worker: the session to start, or its refusal as it made it.
pub(crate) async fn token(
    env: &Env,
    token: &str,
    address: Option<&str>,
    request_id: &str,
) -> Result<Result<Started, worker::Response>, EdgeError> {
    let mut headers = vec![(wire::REQUEST_ID_HEADER, request_id)];
    if let Some(address) = address {
        headers.push(("CF-Connecting-IP", address));
    }
    let request =
        new_request(wire::TOKEN_URL, "POST", &headers, Some(token)).ok_or(OrgError::Unavailable)?;
    let mut answer = fetch(env, request).await?;
    if answer.status_code() != 200 {
        return Ok(Err(answer));
    }
    let text = answer.text().await.map_err(|_| OrgError::Unavailable)?;
    Ok(Ok(Started::decode(&text).ok_or(OrgError::Unavailable)?))
}

/// A request forwarded as it came (the accounts Worker reads the same path
/// and body, and the client address), naming this request and the caller.
pub(crate) async fn forward(
    env: &Env,
    req: &Request,
    request_id: &str,
    caller: Option<&str>,
) -> Result<worker::Response, EdgeError> {
    let mut added = vec![(wire::REQUEST_ID_HEADER, request_id)];
    if let Some(caller) = caller {
        added.push((wire::CALLER_HEADER, caller));
    }
    fetch(env, worker::Request::from(with_headers(req, &lines(added)))).await
}

/// A change forwarded through this isolate counts from its next request.
pub(crate) fn forget(org: &OrgId) {
    CHECKS.with(|c| c.borrow_mut().forget(org));
}
