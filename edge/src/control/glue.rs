//! Calls to the control store, fronted by this isolate's caches where a
//! short-lived answer is safe (signed-out sessions, the active key).

use super::active_keys;
use super::session_checks::{self, SessionSeen};
use super::{Activate, ActiveKey, Control, INSTANCE, IsRevoked, Problem, ReportProblem, Revoke};
use crate::config::{ModeKeys, fingerprint};
use crate::errors::EdgeError;
use crate::runtime::now_s;
use crate::runtime::objects::ask;
use api::session::KeySlot;
use api::{ApiKey, ErrorCode};
use worker::Env;

/// Whether `sid` was signed out: this isolate's memory first, then the store.
pub(crate) async fn is_revoked(env: &Env, sid: &str, now: u64) -> Result<bool, EdgeError> {
    match session_checks::seen(sid, now) {
        Some(SessionSeen::Revoked) => return Ok(true),
        Some(SessionSeen::ValidUntil(_)) => return Ok(false),
        None => {}
    }
    let revoked = ask::<Control, _>(env, INSTANCE, IsRevoked { sid: sid.into() }).await?;
    session_checks::remember(sid, revoked, now);
    Ok(revoked)
}

pub(crate) async fn revoke(env: &Env, sid: &str, expires_at: u64) -> Result<(), EdgeError> {
    session_checks::remember(sid, true, now_s());
    let call = Revoke {
        sid: sid.into(),
        expires_at,
    };
    ask::<Control, _>(env, INSTANCE, call).await
}

/// The stored active-key fingerprint of a mode; only asked when a next key exists.
pub(crate) async fn activated(env: &Env, keys: &ModeKeys) -> Option<String> {
    keys.next.as_ref()?;
    let now = now_s();
    if let Some(fp) = active_keys::get(keys.mode, now) {
        return fp;
    }
    // If the store cannot answer, keep using the current key (never a guess).
    let fp = ask::<Control, _>(env, INSTANCE, ActiveKey { mode: keys.mode })
        .await
        .ok()
        .flatten();
    active_keys::remember(keys.mode, fp.clone(), now);
    fp
}

pub(crate) async fn active_key<'a>(env: &Env, keys: &'a ModeKeys) -> (&'a ApiKey, KeySlot) {
    let fp = activated(env, keys).await;
    keys.active(fp.as_deref())
}

pub(crate) async fn activate(env: &Env, keys: &ModeKeys, key: &ApiKey) -> Result<(), EdgeError> {
    let fp = fingerprint(key);
    let call = Activate {
        mode: keys.mode,
        fingerprint: fp.clone(),
    };
    ask::<Control, _>(env, INSTANCE, call).await?;
    active_keys::remember(keys.mode, Some(fp), now_s());
    Ok(())
}

/// The problem reported for `key`; `None` also when the store cannot say
/// (the banner is advice, the call it decorates must not fail for it).
pub(crate) async fn key_problem(env: &Env, key: &ApiKey) -> Option<ErrorCode> {
    let call = Problem {
        fingerprint: fingerprint(key),
    };
    ask::<Control, _>(env, INSTANCE, call).await.ok().flatten()
}

pub(crate) async fn record_job(env: &Env, job: api::jobs::JobSummary) -> Result<(), EdgeError> {
    ask::<Control, _>(env, INSTANCE, super::RecordJob { job }).await
}

pub(crate) async fn list_jobs(
    env: &Env,
    mode: api::KeyEnv,
) -> Result<Vec<api::jobs::JobSummary>, EdgeError> {
    ask::<Control, _>(env, INSTANCE, super::ListJobs { mode }).await
}

pub(crate) async fn report_key_problem(env: &Env, key: &ApiKey, code: &ErrorCode) {
    let call = ReportProblem {
        fingerprint: fingerprint(key),
        code: code.clone(),
    };
    if let Err(e) = ask::<Control, _>(env, INSTANCE, call).await {
        // The answer stands; the alert waits for the next refusal.
        worker::console_error!("could not record the key problem {code}: {}", e.code());
    }
}
