//! Calls to an organization's control store, fronted by this isolate's
//! caches where a short-lived answer is safe (signed-out sessions, the
//! active key).

use domain::errors::Failure;
use domain::jobs::JobError;
pub(crate) mod store;

/// The organization's control store.
fn control(org: &OrgId) -> String {
    object_name(org, Named::Control)
}

use crate::error::EdgeError;
use api::orgs::OrgId;
use api::session::KeySlot;
use api::{ApiKey, ErrorCode};
use domain::control::active_keys;
use domain::control::session_checks::{self, SessionSeen};
use domain::control::{Activate, ActiveKey, Control, IsRevoked, Problem, ReportProblem, Revoke};
use domain::orgs::{Named, object_name};
use domain::upstream::keys::{ModeKeys, fingerprint};
use platform::now_s;
use platform::objects::ask;
use worker::Env;

/// Whether `sid` was signed out: this isolate's memory first, then the store.
pub(crate) async fn is_revoked(
    env: &Env,
    org: &OrgId,
    sid: &str,
    now: u64,
) -> Result<bool, EdgeError> {
    match session_checks::seen(sid, now) {
        Some(SessionSeen::Revoked) => return Ok(true),
        Some(SessionSeen::ValidUntil(_)) => return Ok(false),
        None => {}
    }
    let revoked = ask::<Control, _>(env, &control(org), IsRevoked { sid: sid.into() }).await?;
    session_checks::remember(sid, revoked, now);
    Ok(revoked)
}

pub(crate) async fn revoke(
    env: &Env,
    org: &OrgId,
    sid: &str,
    expires_at: u64,
) -> Result<(), EdgeError> {
    session_checks::remember(sid, true, now_s());
    let call = Revoke {
        sid: sid.into(),
        expires_at,
    };
    Ok(ask::<Control, _>(env, &control(org), call).await?)
}

/// The stored active-key fingerprint of a mode; only asked when a next key exists.
pub(crate) async fn activated(env: &Env, org: &OrgId, keys: &ModeKeys) -> Option<String> {
    keys.next.as_ref()?;
    let now = now_s();
    if let Some(fp) = active_keys::get(org, keys.mode, now) {
        return fp;
    }
    // If the store cannot answer, keep using the current key (never a guess).
    let fp = ask::<Control, _>(env, &control(org), ActiveKey { mode: keys.mode })
        .await
        .ok()
        .flatten();
    active_keys::remember(org, keys.mode, fp.clone(), now);
    fp
}

pub(crate) async fn active_key<'a>(
    env: &Env,
    org: &OrgId,
    keys: &'a ModeKeys,
) -> (&'a ApiKey, KeySlot) {
    let fp = activated(env, org, keys).await;
    keys.active(fp.as_deref())
}

pub(crate) async fn activate(
    env: &Env,
    org: &OrgId,
    keys: &ModeKeys,
    key: &ApiKey,
) -> Result<(), EdgeError> {
    let fp = fingerprint(key);
    let call = Activate {
        mode: keys.mode,
        fingerprint: fp.clone(),
    };
    ask::<Control, _>(env, &control(org), call).await?;
    active_keys::remember(org, keys.mode, Some(fp), now_s());
    Ok(())
}

/// The problem reported for `key`; `None` also when the store cannot say
/// (the banner is advice, the call it decorates must not fail for it).
pub(crate) async fn key_problem(env: &Env, org: &OrgId, key: &ApiKey) -> Option<ErrorCode> {
    let call = Problem {
        fingerprint: fingerprint(key),
    };
    ask::<Control, _>(env, &control(org), call)
        .await
        .ok()
        .flatten()
}

pub(crate) async fn record_job(
    env: &Env,
    org: &OrgId,
    job: api::jobs::JobSummary,
) -> Result<(), EdgeError> {
    let job = serde_json::to_string(&job).map_err(|_| JobError::Unavailable)?;
    Ok(ask::<Control, _>(env, &control(org), domain::control::RecordJob { job }).await?)
}

pub(crate) async fn list_jobs(
    env: &Env,
    org: &OrgId,
    mode: api::KeyEnv,
) -> Result<Vec<api::jobs::JobSummary>, EdgeError> {
    Ok(ask::<Control, _>(env, &control(org), domain::control::ListJobs { mode }).await?)
}

pub(crate) async fn report_key_problem(env: &Env, org: &OrgId, key: &ApiKey, code: &ErrorCode) {
    let call = ReportProblem {
        fingerprint: fingerprint(key),
        code: code.clone(),
    };
    if let Err(e) = ask::<Control, _>(env, &control(org), call).await {
        // The answer stands; the alert waits for the next refusal.
        worker::console_error!("could not record the key problem {code}: {}", e.code());
    }
}
