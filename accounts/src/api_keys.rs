//! The organization's API keys for the v1 service (`api::orgs`), an
//! admin's: each checked against the service before it is stored (sealed
//! under the master key), a sandbox and a live one, each with a current
//! and a next slot for rotation.

use api::orgs::{KeyChange, OrgKeyList};
use api::{ApiKey, Scope};
use domain::errors::Failure;
use domain::orgs::AccountError;
use domain::upstream::UpstreamError;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::caller::admin;
use crate::error::AccountsError;
use crate::input::MAX_BODY;
use crate::sealing::{self, master_keys};
use domain::orgs::keys::{self, Sealed, StoredKey, Verdict};
use domain::orgs::sealing::Purpose;
use domain::orgs::wire::Caller;
use domain::orgs::{MoveKey, Org, SetKey, SetLive};
use platform::objects::ask;
use platform::{json_body, now_s, reply};

/// Checks `key` with harmless calls (`keys::PROBES`): its scopes, or why
/// it cannot be stored.
async fn check_key(env: &Env, key: &ApiKey) -> Result<Vec<Scope>, AccountsError> {
    use domain::upstream::settings::{
        DEFAULT_UPSTREAM_TIMEOUT_MS, UPSTREAM_URL, validate_upstream,
    };
    let upstream = env.var(UPSTREAM_URL).map(|v| v.to_string());
    let upstream = validate_upstream(&upstream.unwrap_or_default())?;
    let mut trace = platform::Trace::default();
    let unknown = |e: UpstreamError| AccountError::KeyCheckUnavailable(e.message());
    for probe in &keys::PROBES {
        let forward = domain::upstream::proxy::plan(probe.method, probe.path, None, &upstream)?;
        let body = probe.body.unwrap_or_default().as_bytes();
        let answer = platform::send::send(
            &forward,
            probe.method,
            key.expose(),
            body,
            platform::send::Reading::Whole,
            DEFAULT_UPSTREAM_TIMEOUT_MS,
            &mut trace,
        )
        .await
        .map_err(unknown)?;
        let answer = answer.store().await.map_err(unknown)?;
        match keys::judge(answer.status, &answer.body) {
            Verdict::Passed => {}
            Verdict::Scopes(scopes) => return Ok(scopes),
            Verdict::Refused { code, message } => {
                return Err(AccountError::KeyRefused {
                    redacted: key.redacted(),
                    code,
                    message,
                }
                .into());
            }
            Verdict::Unknown(why) => return Err(AccountError::KeyCheckUnavailable(why).into()),
        }
    }
    Ok(Scope::ALL.to_vec())
}

fn key_list(sealed: Sealed) -> OrgKeyList {
    OrgKeyList {
        keys: sealed.keys.iter().map(StoredKey::view).collect(),
        live: sealed.live,
    }
}

/// `GET /api/org/keys`: redacted, with their scopes, and whether live mode is on.
pub(crate) async fn list(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    let (org, _) = admin(caller, env, "see the API keys").await?;
    let sealed = ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {}).await?;
    reply::json(200, &key_list(sealed), &[])
}

/// `PUT /api/org/keys`: a key set in a slot, or a rotation promoted or abandoned.
pub(crate) async fn change(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let now = now_s();
    let (org, actor) = admin(caller, env, "change the API keys").await?;
    match json_body::<KeyChange>(&req, MAX_BODY).await? {
        KeyChange::Set { key, slot } => {
            let key =
                ApiKey::parse(key.trim()).map_err(|e| AccountError::KeyMalformed(e.to_string()))?;
            let masters = master_keys(env)?;
            let scopes = check_key(env, &key).await?;
            let before = ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {})
                .await?
                .keys;
            let stored = StoredKey {
                mode: key.env(),
                slot: keys::rotation::slot_for(
                    before
                        .iter()
                        .filter(|k| k.mode == key.env())
                        .map(|k| k.slot),
                    slot,
                ),
                sealed: sealing::seal(&masters, &org, Purpose::V1Key, key.expose()).await?,
                redacted: key.redacted(),
                scopes,
                set_at: now,
                set_by: actor.label,
            };
            ask::<Org, _>(env, org.as_str(), SetKey { key: stored }).await?;
        }
        change @ (KeyChange::Promote { mode } | KeyChange::DiscardNext { mode }) => {
            let promote = matches!(change, KeyChange::Promote { .. });
            let call = MoveKey {
                actor,
                mode,
                promote,
                at: now,
            };
            ask::<Org, _>(env, org.as_str(), call)
                .await?
                .map_err(AccountsError::from)?;
        }
        KeyChange::Live { on } => {
            let call = SetLive { actor, on, at: now };
            ask::<Org, _>(env, org.as_str(), call).await?;
        }
    }
    let sealed = ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {}).await?;
    reply::json(200, &key_list(sealed), &[])
}
