//! What the main Worker asks of the accounts Worker on its own requests
//! (`wire::CHECK_URL` and the others): who a session's person is now, an
//! organization's keys and webhook secrets opened, its widget settings,
//! the session answer's person, and its own audit entries. The main
//! Worker's token sign-in is `sign_in`'s.

use api::orgs::{OrgId, OrgSummary};
use domain::errors::Internal;
use domain::orgs::OrgError;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::caller::membership;
use crate::error::AccountsError;
use crate::sealing::{self, master_keys};
use crate::widget_settings;
use domain::orgs::directory::{self, Directory};
use domain::orgs::sealing::Purpose;
use domain::orgs::wire::{self, Caller, Checked, KeyLine, Me};
use domain::orgs::{Access, Org, Reseal};
use platform::objects::ask;
use platform::{body_bytes, header, now_s, reply};

/// `CHECK_URL`: the caller's role now, and their organization's keys and
/// secrets (none for someone no longer a member).
pub(crate) async fn check(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    let checked = checked(env, &caller.org, Some(caller)).await?;
    reply::text(200, &checked.encode())
}

/// `KEYS_URL`: the named organization's keys and secrets.
pub(crate) async fn keys(req: &Request, env: &Env) -> Result<Response, AccountsError> {
    let checked = checked(env, &named_org(req)?, None).await?;
    reply::text(200, &checked.encode())
}

/// `TRACKING_KEYS_URL`: the named organization's current keys that may
/// read trackers, and nothing else (the ledger Worker asks).
pub(crate) async fn tracking_keys(req: &Request, env: &Env) -> Result<Response, AccountsError> {
    let mut checked = checked(env, &named_org(req)?, None).await?;
    checked.keys.retain(|k| {
        k.slot == api::session::KeySlot::Current && k.scopes.contains(&api::Scope::TrackingRead)
    });
    checked.webhook.clear();
    reply::text(200, &checked.encode())
}

/// `WIDGET_URL`: as `keys`, with the organization's widget settings.
pub(crate) async fn widget(req: &Request, env: &Env) -> Result<Response, AccountsError> {
    let org = named_org(req)?;
    let mut checked = checked(env, &org, None).await?;
    let stored = ask::<Org, _>(env, org.as_str(), domain::orgs::Widget {}).await?;
    checked.widget = Some(widget_settings::lines(stored)?);
    reply::text(200, &checked.encode())
}

/// `RECORD_URL`: an entry of the main Worker's in the caller's organization's audit log.
pub(crate) async fn record(
    req: &Request,
    env: &Env,
    caller: Caller,
) -> Result<Response, AccountsError> {
    let text = String::from_utf8(body_bytes(req).await).unwrap_or_default();
    let record = wire::Record::decode(&text).ok_or(Internal {
        what: "read the main Worker's audit record",
    })?;
    let call = domain::orgs::Record {
        account: caller.account,
        action: record.action,
        detail: record.detail,
        at: now_s(),
    };
    ask::<Org, _>(env, caller.org.as_str(), call).await?;
    reply::empty(204, &[])
}

/// `ME_URL`: the person, or an empty body if they are no longer a member.
pub(crate) async fn me(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    let me = person(env, caller).await?;
    reply::text(200, &me.map(|me| me.encode()).unwrap_or_default())
}

/// The organization a call without a caller names (`wire::ORG_HEADER`).
fn named_org(req: &Request) -> Result<OrgId, AccountsError> {
    header(req, wire::ORG_HEADER)
        .and_then(|o| OrgId::parse(&o))
        .ok_or(OrgError::NotFound.into())
}

/// Who the person is and their organizations, for the session answer.
async fn person(env: &Env, caller: &Caller) -> Result<Option<Me>, AccountsError> {
    let Some(m) = membership(env, caller).await? else {
        return Ok(None);
    };
    let org = OrgSummary {
        id: caller.org.clone(),
        name: m.org_name.clone(),
        role: m.role,
    };
    let find = directory::Find {
        email: m.email.clone(),
    };
    let listed = ask::<Directory, _>(env, &directory::email_shard(&m.email), find)
        .await?
        .map(|a| a.orgs)
        .unwrap_or_default();
    // The object is the authority on this organization; the directory's
    // copy lists the rest this session reaches.
    let mut orgs: Vec<OrgSummary> = listed
        .into_iter()
        .filter(|o| o.id != org.id && caller.via.reaches(&caller.org, &o.id))
        .collect();
    orgs.push(org.clone());
    orgs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Some(Me {
        user: format!("{} <{}>", m.name, m.email),
        org,
        orgs,
    }))
}

/// Opens `sealed` for `purpose`, sealing again with the current master key
/// what an older one sealed (a master key rotation completes as
/// organizations are used).
async fn open_fresh(
    env: &Env,
    masters: &domain::orgs::sealing::MasterKeys,
    org: &OrgId,
    purpose: Purpose,
    sealed: Vec<&str>,
) -> Result<Vec<String>, AccountsError> {
    if sealed.is_empty() {
        return Ok(Vec::new());
    }
    let opened = sealing::open_all(masters, org, purpose, &sealed).await?;
    for (from, plain) in sealed.iter().zip(&opened) {
        if masters.is_stale(from) {
            let to = sealing::seal(masters, org, purpose, plain).await?;
            let from = from.to_string();
            ask::<Org, _>(env, org.as_str(), Reseal { from, to }).await?;
        }
    }
    Ok(opened)
}

/// What the main Worker needs for a request of `org`: its keys and webhook
/// secrets, opened (`wire::Checked`), and the caller's role if a caller is named.
async fn checked(
    env: &Env,
    org: &OrgId,
    caller: Option<&Caller>,
) -> Result<Checked, AccountsError> {
    let (member, sealed) = match caller {
        Some(caller) => {
            let access = Access {
                account: caller.account.clone(),
            };
            match ask::<Org, _>(env, org.as_str(), access).await? {
                Some((member, sealed)) => (Some(member), sealed.usable()),
                None => return Ok(Checked::default()),
            }
        }
        None => (
            None,
            ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {})
                .await?
                .usable(),
        ),
    };
    let (role, name) = member.map_or((None, None), |m| (Some(m.role), Some(m.name)));
    let operators_switch_mode = sealed.operators_switch_mode;
    if sealed.keys.is_empty() && sealed.webhook.is_empty() {
        return Ok(Checked {
            role,
            name,
            operators_switch_mode,
            ..Checked::default()
        });
    }
    let masters = master_keys(env)?;
    let keys = sealed.keys.iter().map(|k| k.sealed.as_str()).collect();
    let keys = open_fresh(env, &masters, org, Purpose::V1Key, keys).await?;
    let secrets = sealed.webhook.iter().map(|s| s.sealed.as_str()).collect();
    let secrets = open_fresh(env, &masters, org, Purpose::WebhookSecret, secrets).await?;
    Ok(Checked {
        role,
        name,
        keys: sealed
            .keys
            .into_iter()
            .zip(keys)
            .map(|(k, key)| KeyLine {
                mode: k.mode,
                slot: k.slot,
                key,
                scopes: k.scopes,
            })
            .collect(),
        webhook: sealed.webhook.iter().map(|s| s.slot).zip(secrets).collect(),
        widget: None,
        operators_switch_mode,
    })
}
