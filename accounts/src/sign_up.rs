//! Signing up (`api::orgs`): a new organization and its first admin, from
//! a setup link (`scripts/new-org`) or, where the deployment opened sign-up
//! (`OPEN_SIGNUP`), by anyone, a few per client address.

use api::orgs::{CreateOrg, OrgId, OrgSummary, Signup};
use api::session::Role;
use domain::errors::Internal;
use domain::errors::SettingError;
use domain::orgs::AccountError;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::account::{account_for, joined};
use crate::error::AccountsError;
use crate::input::{MAX_BODY, email_of, name_of};
use crate::session::started;
use domain::access::settings::SESSION_SECRET;
use domain::orgs::directory::{self, Directory};
use domain::orgs::via::Via;
use domain::orgs::{Create, Joining, Members, Org, tokens};
use platform::objects::ask;
use platform::{header, json_body, now_s, random_hex, reply};

/// The accounts Worker's setting that lets anyone create an organization
/// without a setup link: `on`, else off.
const OPEN_SIGNUP: &str = "OPEN_SIGNUP";
/// New organizations one client address may make by open sign-up in the
/// throttle's window (`throttle::WINDOW_SECONDS`).
const SIGNUPS_PER_ADDRESS: u32 = 5;

fn signup_open(env: &Env) -> bool {
    env.var(OPEN_SIGNUP)
        .is_ok_and(|v| v.to_string().trim().eq_ignore_ascii_case("on"))
}

/// An open sign-up's new organization: a fresh id, counted against the
/// client address.
async fn open_signup(req: &Request, env: &Env, now: u64) -> Result<OrgId, AccountsError> {
    let address = header(req, "CF-Connecting-IP").unwrap_or_else(|| "unknown".into());
    let shard = directory::address_shard(&address);
    let key = format!("signup:{address}");
    let throttled = directory::Throttled {
        key: key.clone(),
        limit: SIGNUPS_PER_ADDRESS,
        at: now,
    };
    if let Some(retry_after) = ask::<Directory, _>(env, &shard, throttled).await? {
        return Err(AccountError::SignupThrottled { retry_after }.into());
    }
    let counted = directory::Failed {
        key,
        limit: SIGNUPS_PER_ADDRESS,
        at: now,
    };
    ask::<Directory, _>(env, &shard, counted).await?;
    let nonce = random_hex(tokens::ORG_NONCE_HEX / 2)?;
    tokens::org_of_nonce(&nonce).ok_or(
        Internal {
            what: "name the organization",
        }
        .into(),
    )
}

/// `GET /api/orgs`: whether anyone may create an organization.
pub(crate) fn status(env: &Env) -> Result<Response, AccountsError> {
    let open = signup_open(env);
    reply::json(200, &Signup { open }, &[])
}

/// `POST /api/orgs`: a new organization and its first admin, from a setup
/// link (signed with the session secret) or, where open, by anyone.
pub(crate) async fn create_org(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let secret = env
        .secret(SESSION_SECRET)
        .map(|s| s.to_string().trim().as_bytes().to_vec())
        .map_err(|_| SettingError {
            setting: SESSION_SECRET,
            problem: "the accounts Worker has none".into(),
        })?;
    let body: CreateOrg = json_body(&req, MAX_BODY).await?;
    let now = now_s();
    let link = (!body.setup.trim().is_empty())
        .then(|| tokens::check_setup(&body.setup, &secret, now))
        .transpose()
        .map_err(|_| AccountError::SetupInvalid { used: false })?;
    if link.is_none() && !signup_open(env) {
        return Err(AccountError::SignupClosed.into());
    }
    let org_name = name_of("org_name", &body.org_name)?;
    let name = name_of("name", &body.name)?;
    let email = email_of(&body.email)?;
    // An open sign-up is counted once its fields are right (a typo costs nothing).
    let org = match link {
        Some(org) => org,
        None => open_signup(&req, env, now).await?,
    };
    // A used link is said before an account is made for nothing.
    if !ask::<Org, _>(env, org.as_str(), Members {})
        .await?
        .is_empty()
    {
        return Err(AccountError::SetupInvalid { used: true }.into());
    }
    let account = account_for(&req, env, &email, &name, &body.password, now).await?;
    let create = Create {
        org: org.clone(),
        name: org_name.clone(),
        admin: Joining {
            account: account.id.clone(),
            name: account.name.clone(),
            email: email.clone(),
        },
        at: now,
    };
    ask::<Org, _>(env, org.as_str(), create)
        .await?
        .map_err(AccountsError::from)?;
    let summary = OrgSummary {
        id: org.clone(),
        name: org_name,
        role: Role::Admin,
    };
    joined(env, &email, summary).await?;
    started(org, &account.id, Role::Admin, Via::Person)
}
