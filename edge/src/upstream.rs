//! The one path every v1 call of the Worker takes, whoever makes it (a
//! forwarded call, a purchase through its record, the read behind a label's
//! PDF, a batch job's calls): the mode's active key → the call → the budget
//! its answer reports → the answer read where needed → what an error
//! teaches (the key's real scopes; a revoked or expired key raises the
//! admins' "rotate the key" alert, whoever met it).

use crate::control;
use crate::error::EdgeError;
use api::{ApiKey, ErrorCode, ErrorEnvelope, KeyEnv, Scope};
use domain::access::gate::Tenant;
use domain::config::Config;
use domain::control::is_key_problem;
use domain::upstream::budget::{Window, with_budgets};
use domain::upstream::proxy::Forward;
use domain::upstream::{StoredResponse, key_scopes};
use platform::send::{self, Reading};
use platform::{Trace, now_s};
use worker::Env;
use worker::web_sys::Response;

/// An answer from upstream, its body not read yet.
pub(crate) struct Called<'a> {
    pub status: u16,
    /// The key that made the call (a label's PDF is fetched with it too).
    pub key: &'a ApiKey,
    answer: send::Answer,
    mode: KeyEnv,
    /// Whose key it is (a revoked key's alert goes to its organization).
    org: &'a api::orgs::OrgId,
}

/// Makes one v1 call with `mode`'s active key and records the budget it reports.
pub(crate) async fn call<'a>(
    env: &Env,
    config: &'a Config,
    mode: KeyEnv,
    forward: &Forward,
    body: &[u8],
    reading: Reading,
    trace: &mut Trace,
) -> Result<Called<'a>, EdgeError> {
    let keys = config.keys_for(mode)?;
    let (key, _) = control::active_key(env, &config.org, keys).await;
    let method = forward.endpoint.method.as_str();
    let answer = send::send(
        forward,
        method,
        key.expose(),
        body,
        reading,
        config.upstream.timeout_ms,
        trace,
    )
    .await?;
    if let Some(window) = window(&answer.headers) {
        with_budgets(&config.org, |b| {
            b.record(mode, forward.endpoint.id, window, now_s())
        });
    }
    Ok(Called {
        status: answer.status,
        key,
        answer,
        mode,
        org: &config.org,
    })
}

/// The budget an answer reports in its `X-RateLimit-*` headers.
pub(crate) fn window(headers: &[(String, String)]) -> Option<Window> {
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    Window::from_headers(
        get("x-ratelimit-limit"),
        get("x-ratelimit-remaining"),
        get("x-ratelimit-reset"),
    )
}

impl Called<'_> {
    /// The budget this answer reported.
    pub fn window(&self) -> Option<Window> {
        window(&self.answer.headers)
    }

    /// The answer to the browser, its body streamed through unread (a success).
    pub fn stream(self, extra: &[(&'static str, String)]) -> Response {
        self.answer.stream(extra)
    }

    /// The answer read whole and answered from its bytes, which are kept too.
    pub async fn answer_keeping(
        self,
        extra: &[(&'static str, String)],
    ) -> Result<(Response, Vec<u8>), EdgeError> {
        Ok(self.answer.answer_keeping(extra).await?)
    }

    /// The answer read whole; an error teaches what it can first.
    pub async fn read(self, env: &Env) -> Result<StoredResponse, EdgeError> {
        let stored = self.answer.store().await?;
        learn_from_error(env, &stored, self.mode, self.org, self.key).await;
        Ok(stored)
    }
}

/// What an upstream error teaches: the key's real scopes, or that it was
/// revoked or expired (an alert for admins).
async fn learn_from_error(
    env: &Env,
    stored: &StoredResponse,
    mode: KeyEnv,
    org: &api::orgs::OrgId,
    key: &ApiKey,
) {
    if stored.status < 400 {
        return;
    }
    let Ok(envelope) = serde_json::from_str::<ErrorEnvelope>(&stored.body) else {
        return;
    };
    let code = envelope.error.code;
    if code == ErrorCode::AuthKeyInsufficientScope {
        if let Some(scopes) = envelope.error.key_scopes {
            let scopes: Vec<Scope> = scopes.iter().filter_map(|s| s.parse().ok()).collect();
            key_scopes::learn(org, mode, scopes);
        }
    } else if is_key_problem(&code) {
        control::report_key_problem(env, org, key, &code).await;
    }
}
