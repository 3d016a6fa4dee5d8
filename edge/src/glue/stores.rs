//! Calls to the two Durable Objects: the idempotency ledger (one per
//! purchase key) and the control store (one instance), each fronted by the
//! isolate's memory where a short-lived cache is safe.

use super::{now_s, with_memory};
use crate::config::{ModeKeys, fingerprint};
use crate::control::{ControlCall, ControlReply, INSTANCE};
use crate::errors::EdgeError;
use crate::memory::SessionSeen;
use crate::webhooks::InboxCall;
use api::session::KeySlot;
use api::{ApiKey, KeyEnv};
use worker::{Env, Method, Request, RequestInit, Stub, wasm_bindgen::JsValue, web_sys};

fn stub(env: &Env, binding: &str, name: &str) -> Result<Stub, EdgeError> {
    let namespace = env
        .durable_object(binding)
        .map_err(|_| EdgeError::LedgerUnavailable)?;
    let id = namespace
        .id_from_name(name)
        .map_err(|_| EdgeError::LedgerUnavailable)?;
    id.get_stub().map_err(|_| EdgeError::LedgerUnavailable)
}

async fn call<B: serde::Serialize, T: serde::de::DeserializeOwned>(
    stub: &Stub,
    path: &str,
    body: &B,
) -> Result<T, EdgeError> {
    let json = serde_json::to_string(body).map_err(|_| EdgeError::LedgerUnavailable)?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_body(Some(JsValue::from_str(&json)));
    let req = Request::new_with_init(&format!("https://do/{path}"), &init)
        .map_err(|_| EdgeError::LedgerUnavailable)?;
    let mut resp = stub.fetch_with_request(req).await.map_err(|e| {
        worker::console_error!("durable object call {path} failed: {e}");
        EdgeError::LedgerUnavailable
    })?;
    if resp.status_code() >= 300 {
        // The object's own error (SQL, storage): for the operator's log only.
        let text = resp.text().await.unwrap_or_default();
        worker::console_error!("durable object call {path}: {} {text}", resp.status_code());
        return Err(EdgeError::LedgerUnavailable);
    }
    resp.json().await.map_err(|_| EdgeError::LedgerUnavailable)
}

pub(crate) fn ledger(env: &Env, mode: KeyEnv, key: &str) -> Result<Stub, EdgeError> {
    stub(env, "IDEMPOTENCY", &format!("{}:{key}", mode.as_str()))
}

pub(crate) async fn ledger_call<B: serde::Serialize, T: serde::de::DeserializeOwned>(
    stub: &Stub,
    op: &str,
    body: &B,
) -> Result<T, EdgeError> {
    call(stub, op, body).await
}

pub(crate) async fn control(env: &Env, op: &ControlCall) -> Result<ControlReply, EdgeError> {
    let stub = stub(env, "CONTROL", INSTANCE).map_err(|_| EdgeError::ControlUnavailable)?;
    call(&stub, "control", op)
        .await
        .map_err(|_| EdgeError::ControlUnavailable)
}

/// Whether `sid` was signed out: this isolate's memory first, then the store.
pub(crate) async fn is_revoked(env: &Env, sid: &str, now: u64) -> Result<bool, EdgeError> {
    match with_memory(|m| m.session_seen(sid, now)) {
        Some(SessionSeen::Revoked) => return Ok(true),
        Some(SessionSeen::ValidUntil(_)) => return Ok(false),
        None => {}
    }
    let revoked = control(env, &ControlCall::IsRevoked { sid: sid.into() })
        .await?
        .revoked;
    with_memory(|m| m.remember_session(sid, revoked, now));
    Ok(revoked)
}

pub(crate) async fn revoke(env: &Env, sid: &str, expires_at: u64) -> Result<(), EdgeError> {
    with_memory(|m| m.remember_session(sid, true, now_s()));
    control(
        env,
        &ControlCall::Revoke {
            sid: sid.into(),
            expires_at,
        },
    )
    .await
    .map(drop)
}

/// The stored active-key fingerprint of a mode; only asked when a next key exists.
pub(crate) async fn activated(env: &Env, keys: &ModeKeys) -> Option<String> {
    keys.next.as_ref()?;
    let now = now_s();
    if let Some(fp) = with_memory(|m| m.active_key(keys.mode, now).map(|f| f.map(String::from))) {
        return fp;
    }
    // If the store cannot answer, keep using the current key (never a guess).
    let fp = control(env, &ControlCall::ActiveKey { mode: keys.mode })
        .await
        .ok()
        .and_then(|r| r.fingerprint);
    with_memory(|m| m.remember_active_key(keys.mode, fp.clone(), now));
    fp
}

pub(crate) async fn active_key<'a>(env: &Env, keys: &'a ModeKeys) -> (&'a ApiKey, KeySlot) {
    let fp = activated(env, keys).await;
    keys.active(fp.as_deref())
}

pub(crate) async fn activate(env: &Env, keys: &ModeKeys, key: &ApiKey) -> Result<(), EdgeError> {
    let fp = fingerprint(key);
    control(
        env,
        &ControlCall::Activate {
            mode: keys.mode,
            fingerprint: fp.clone(),
        },
    )
    .await?;
    with_memory(|m| m.remember_active_key(keys.mode, Some(fp), now_s()));
    Ok(())
}

pub(crate) async fn key_problem(env: &Env, key: &ApiKey) -> Option<api::ErrorCode> {
    control(
        env,
        &ControlCall::Problem {
            fingerprint: fingerprint(key),
        },
    )
    .await
    .ok()
    .and_then(|r| r.problem)
    .map(|code| api::ErrorCode::parse(&code))
}

pub(crate) async fn report_key_problem(env: &Env, key: &ApiKey, code: &api::ErrorCode) {
    let _ = control(
        env,
        &ControlCall::ReportProblem {
            fingerprint: fingerprint(key),
            code: code.to_string(),
        },
    )
    .await;
}

/// A call to the webhook inbox (one instance).
pub(crate) async fn inbox<T: serde::de::DeserializeOwned>(
    env: &Env,
    op: &InboxCall,
) -> Result<T, EdgeError> {
    let stub = stub(env, "INBOX", INSTANCE).map_err(|_| EdgeError::InboxUnavailable)?;
    call(&stub, "call", op)
        .await
        .map_err(|_| EdgeError::InboxUnavailable)
}

/// Hands a WebSocket upgrade to the inbox, which keeps the socket (hibernatable).
pub(crate) async fn inbox_live(env: &Env, mode: KeyEnv) -> Result<web_sys::Response, EdgeError> {
    let stub = stub(env, "INBOX", INSTANCE).map_err(|_| EdgeError::InboxUnavailable)?;
    let headers = worker::Headers::new();
    let _ = headers.set("Upgrade", "websocket");
    let mut init = RequestInit::new();
    init.with_headers(headers);
    let req = Request::new_with_init(&format!("https://do/live?mode={}", mode.as_str()), &init)
        .map_err(|_| EdgeError::InboxUnavailable)?;
    let resp = stub
        .fetch_with_request(req)
        .await
        .map_err(|_| EdgeError::InboxUnavailable)?;
    if resp.status_code() != 101 {
        return Err(EdgeError::InboxUnavailable);
    }
    Ok(resp.into())
}
