//! The organizations' endpoints (`api::orgs`): sign-in by password, new
//! organizations from a setup link, invitations, the team and the audit
//! log; and the per-request membership check the access glue makes.

use api::orgs::{
    AcceptInvite as AcceptBody, AccountId, CreateOrg, InviteCreated, InviteList, InviteRequest,
    MemberList, OrgId, OrgSummary, PasswordSignIn, RoleChange, SwitchOrg, normalize_email,
    password_problem,
};
use api::session::Role;
use api::validation::BodyError;
use sha2::{Digest, Sha256};
use worker::Env;
use worker::web_sys::{Request, Response};

use super::directory::{self, Account, Directory};
use super::passwords::{self, PasswordRecord};
use super::throttle::{ADDRESS_FAILURES, EMAIL_FAILURES};
use super::{
    Actor, Check, Create, CreateInvite, Joining, Membership, Org, Remove, RevokeInvite, SetRole,
    SignedIn, crypto, rules, tokens,
};
use crate::access::console::SessionOrgs;
use crate::access::gate::{self, Facts, Principal};
use crate::access::glue::{session_response, signed_in};
use crate::access::session::{SESSION_SECONDS, Session};
use crate::config::Config;
use crate::errors::{EdgeError, SignInReason};
use crate::routes::OrgsRoute;
use crate::runtime::objects::ask;
use crate::runtime::{Trace, header, json_body, now_s, random_hex, reply};

const MAX_BODY: usize = 4096;

/// The caller's role in their session's organization, as its object says
/// now (`None`: no longer a member).
pub(crate) async fn member_role(env: &Env, session: &Session) -> Result<Option<Role>, EdgeError> {
    Ok(membership(env, session).await?.map(|(_, m)| m.role))
}

async fn membership(
    env: &Env,
    session: &Session,
) -> Result<Option<(AccountId, Membership)>, EdgeError> {
    let Some(account) = AccountId::parse(&session.user) else {
        return Ok(None);
    };
    let check = Check {
        account: account.clone(),
    };
    let found = ask::<Org, _>(env, session.org.as_str(), check).await?;
    Ok(found.map(|m| (account, m)))
}

/// Who the person is and their organizations, for the session answer.
pub(crate) async fn session_orgs(env: &Env, session: &Session) -> Result<SessionOrgs, EdgeError> {
    let (_, m) = membership(env, session)
        .await?
        .ok_or(EdgeError::SignInRequired(SignInReason::SessionEnded))?;
    let org = OrgSummary {
        id: session.org.clone(),
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
    // The object is the authority on this organization; the directory's copy lists the rest.
    let mut orgs: Vec<OrgSummary> = listed.into_iter().filter(|o| o.id != org.id).collect();
    orgs.push(org.clone());
    orgs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(SessionOrgs {
        user: format!("{} <{}>", m.name, m.email),
        org,
        orgs,
    })
}

fn invalid(field: &str, reason: impl Into<String>) -> EdgeError {
    EdgeError::InvalidBody(BodyError::Invalid {
        field: field.to_string(),
        reason: reason.into(),
    })
}

fn email_of(raw: &str) -> Result<String, EdgeError> {
    normalize_email(raw).ok_or_else(|| invalid("email", "an email address such as ada@example.com"))
}

/// A display name: trimmed, 1 to 100 characters, no control characters.
fn name_of(field: &str, raw: &str) -> Result<String, EdgeError> {
    let name = raw.trim();
    let ok = (1..=100).contains(&name.chars().count()) && !name.chars().any(char::is_control);
    ok.then(|| name.to_string())
        .ok_or_else(|| invalid(field, "1 to 100 characters"))
}

fn new_password(password: &str) -> Result<(), EdgeError> {
    match password_problem(password) {
        Some(problem) => Err(EdgeError::PasswordWeak(problem)),
        None => Ok(()),
    }
}

fn random_bytes<const N: usize>() -> Result<[u8; N], EdgeError> {
    let mut bytes = [0u8; N];
    getrandom::getrandom(&mut bytes).map_err(|_| EdgeError::Internal {
        what: "draw random bytes",
    })?;
    Ok(bytes)
}

/// A new password's record, at today's cost.
async fn hash_new(password: &str) -> Result<String, EdgeError> {
    let salt = random_bytes::<{ passwords::SALT_BYTES }>()?.to_vec();
    let mut record = passwords::dummy(salt);
    let derived = crypto::derive(password, &record).await?;
    record.hash = derived.try_into().map_err(|_| EdgeError::Internal {
        what: "hash the password",
    })?;
    Ok(record.encode())
}

/// Sign-in's throttle keys: the email's and the client address's.
struct Attempt {
    email: String,
    address: String,
}

impl Attempt {
    fn new(req: &Request, email: &str) -> Attempt {
        Attempt {
            email: email.to_string(),
            address: header(req, "CF-Connecting-IP").unwrap_or_else(|| "unknown".into()),
        }
    }

    fn counters(&self) -> [(String, String, u32); 2] {
        [
            (
                directory::email_shard(&self.email),
                format!("email:{}", self.email),
                EMAIL_FAILURES,
            ),
            (
                directory::address_shard(&self.address),
                format!("address:{}", self.address),
                ADDRESS_FAILURES,
            ),
        ]
    }

    /// Refused before any hashing while either counter is at its limit.
    async fn allowed(&self, env: &Env, now: u64) -> Result<(), EdgeError> {
        for (shard, key, limit) in self.counters() {
            let call = directory::Throttled {
                key,
                limit,
                at: now,
            };
            if let Some(retry_after) = ask::<Directory, _>(env, &shard, call).await? {
                return Err(EdgeError::SignInThrottled { retry_after });
            }
        }
        Ok(())
    }

    async fn failed(&self, env: &Env, now: u64) -> EdgeError {
        for (shard, key, limit) in self.counters() {
            let call = directory::Failed {
                key,
                limit,
                at: now,
            };
            if let Err(e) = ask::<Directory, _>(env, &shard, call).await {
                return e;
            }
        }
        EdgeError::SignInFailed
    }

    /// Checks `password` against the email's account. An unknown email is
    /// checked against a record of the same cost, so both answers take
    /// about as long and say the same.
    async fn verify(&self, env: &Env, password: &str, now: u64) -> Result<Account, EdgeError> {
        self.allowed(env, now).await?;
        let find = directory::Find {
            email: self.email.clone(),
        };
        let account = ask::<Directory, _>(env, &directory::email_shard(&self.email), find).await?;
        let record = account
            .as_ref()
            .and_then(|a| PasswordRecord::parse(&a.password))
            .unwrap_or_else(|| {
                let salt = Sha256::digest(format!("parcel dummy salt {}", self.email).as_bytes());
                passwords::dummy(salt[..passwords::SALT_BYTES].to_vec())
            });
        let derived = crypto::derive(password, &record).await?;
        match account {
            Some(account) if record.matches(&derived) => {
                let cleared = directory::Cleared {
                    key: format!("email:{}", self.email),
                };
                ask::<Directory, _>(env, &directory::email_shard(&self.email), cleared).await?;
                Ok(account)
            }
            _ => Err(self.failed(env, now).await),
        }
    }
}

/// Starts a session of `account` in `org` and answers as `GET /api/session`.
async fn start_session(
    env: &Env,
    config: &Config,
    org: OrgId,
    account: &AccountId,
    role: Role,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let now = now_s();
    let org_config = config.for_org(org.clone());
    let session = Session {
        sid: random_hex(16)?,
        org,
        user: account.to_string(),
        role,
        mode: org_config.default_mode(),
        expires_at: now + SESSION_SECONDS,
    };
    let cookie = session.set_cookie(&config.session_secret, now);
    let principal = Principal::User { session, role };
    trace.caller(&principal);
    session_response(env, &org_config, &principal, Some(cookie)).await
}

async fn password_sign_in(
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    // Login CSRF: only the dashboard's own page may sign in.
    gate::check_same_origin(facts)?;
    let body: PasswordSignIn = json_body(&req, MAX_BODY).await?;
    let email = normalize_email(&body.email).ok_or(EdgeError::SignInFailed)?;
    let now = now_s();
    let account = Attempt::new(&req, &email)
        .verify(env, &body.password, now)
        .await?;
    // The first organization that still has them (the directory's list is a copy).
    for org in &account.orgs {
        let call = SignedIn {
            account: account.id.clone(),
            at: now,
        };
        if let Some(m) = ask::<Org, _>(env, org.id.as_str(), call).await? {
            return start_session(env, config, org.id.clone(), &account.id, m.role, trace).await;
        }
    }
    Err(EdgeError::OrgNotFound)
}

/// The account for `email`: a new one with `password`, or the existing one
/// if `password` is its password (throttled like sign-in).
async fn account_for(
    req: &Request,
    env: &Env,
    email: &str,
    name: &str,
    password: &str,
    now: u64,
) -> Result<Account, EdgeError> {
    let shard = directory::email_shard(email);
    let find = directory::Find {
        email: email.to_string(),
    };
    if ask::<Directory, _>(env, &shard, find).await?.is_some() {
        return Attempt::new(req, email).verify(env, password, now).await;
    }
    new_password(password)?;
    let id = AccountId::from_hex(&random_hex(8)?).ok_or(EdgeError::Internal {
        what: "name the account",
    })?;
    let account = Account {
        id,
        email: email.to_string(),
        name: name.to_string(),
        password: hash_new(password).await?,
        orgs: Vec::new(),
    };
    let register = directory::Register {
        account: account.clone(),
    };
    if !ask::<Directory, _>(env, &shard, register).await? {
        // Made by a concurrent request a moment ago: it must be signed in to.
        return Attempt::new(req, email).verify(env, password, now).await;
    }
    Ok(account)
}

async fn joined(env: &Env, email: &str, org: OrgSummary) -> Result<(), EdgeError> {
    let call = directory::Join {
        email: email.to_string(),
        org,
    };
    ask::<Directory, _>(env, &directory::email_shard(email), call).await
}

async fn create_org(
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    gate::check_same_origin(facts)?;
    let body: CreateOrg = json_body(&req, MAX_BODY).await?;
    let now = now_s();
    let org = tokens::check_setup(&body.setup, &config.session_secret, now)
        .map_err(|_| EdgeError::OrgSetupInvalid { used: false })?;
    let org_name = name_of("org_name", &body.org_name)?;
    let name = name_of("name", &body.name)?;
    let email = email_of(&body.email)?;
    // A used link is said before an account is made for nothing.
    if !members(env, &org).await?.members.is_empty() {
        return Err(EdgeError::OrgSetupInvalid { used: true });
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
        .map_err(EdgeError::from)?;
    let summary = OrgSummary {
        id: org.clone(),
        name: org_name,
        role: Role::Admin,
    };
    joined(env, &email, summary).await?;
    start_session(env, config, org, &account.id, Role::Admin, trace).await
}

fn invite_of(token: &str) -> Result<(OrgId, String), EdgeError> {
    tokens::read_invite(token).ok_or(EdgeError::InviteUnknown)
}

async fn accept_invite(
    token: &str,
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    gate::check_same_origin(facts)?;
    let body: AcceptBody = json_body(&req, MAX_BODY).await?;
    let (org, token_hash) = invite_of(token)?;
    let now = now_s();
    let email = email_of(&body.email)?;
    let name = match body
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        Some(name) => name_of("name", name)?,
        None => email.split('@').next().unwrap_or_default().to_string(),
    };
    // Refusals of the invitation come before an account is made for nothing.
    let preview = super::PreviewInvite {
        token_hash: token_hash.clone(),
        at: now,
    };
    ask::<Org, _>(env, org.as_str(), preview)
        .await?
        .map_err(EdgeError::from)?;
    let account = account_for(&req, env, &email, &name, &body.password, now).await?;
    let accept = super::AcceptInvite {
        token_hash,
        person: Joining {
            account: account.id.clone(),
            name: account.name.clone(),
            email: email.clone(),
        },
        at: now,
    };
    let accepted = ask::<Org, _>(env, org.as_str(), accept)
        .await?
        .map_err(EdgeError::from)?;
    let summary = OrgSummary {
        id: org.clone(),
        name: accepted.org_name,
        role: accepted.role,
    };
    joined(env, &email, summary).await?;
    let signed = SignedIn {
        account: account.id.clone(),
        at: now,
    };
    ask::<Org, _>(env, org.as_str(), signed).await?;
    start_session(env, config, org, &account.id, accepted.role, trace).await
}

/// The signed-in admin of an organization (not the deployment's own) and who they are.
async fn admin(
    principal: &Principal,
    env: &Env,
    action: &'static str,
) -> Result<(OrgId, Actor), EdgeError> {
    let session = gate::require_admin(principal, action)?;
    if session.org.is_deployment() {
        return Err(EdgeError::ManagedBySettings);
    }
    let (account, m) = membership(env, session)
        .await?
        .ok_or(EdgeError::SignInRequired(SignInReason::SessionEnded))?;
    Ok((session.org.clone(), m.actor(&account)))
}

/// Keeps the directory's copy of a member's organizations in step.
async fn mirror(
    env: &Env,
    org: &OrgId,
    before: &MemberList,
    account: &AccountId,
    role: Option<Role>,
    name: String,
) -> Result<(), EdgeError> {
    let Some(member) = before.members.iter().find(|m| &m.account == account) else {
        return Ok(());
    };
    let shard = directory::email_shard(&member.email);
    match role {
        Some(role) => {
            let summary = OrgSummary {
                id: org.clone(),
                name,
                role,
            };
            joined(env, &member.email, summary).await
        }
        None => {
            let leave = directory::Leave {
                email: member.email.clone(),
                org: org.clone(),
            };
            ask::<Directory, _>(env, &shard, leave).await
        }
    }
}

async fn members(env: &Env, org: &OrgId) -> Result<MemberList, EdgeError> {
    let members = ask::<Org, _>(env, org.as_str(), super::Members {}).await?;
    Ok(MemberList { members })
}

async fn team(
    route: OrgsRoute,
    req: Request,
    env: &Env,
    principal: &Principal,
    query: Option<&str>,
) -> Result<Response, EdgeError> {
    let now = now_s();
    match route {
        OrgsRoute::Members => {
            let (org, _) = admin(principal, env, "see the team").await?;
            reply::json(200, &members(env, &org).await?, &[])
        }
        OrgsRoute::SetMemberRole(ref account) | OrgsRoute::RemoveMember(ref account) => {
            let removing = matches!(route, OrgsRoute::RemoveMember(_));
            let (org, actor) = admin(principal, env, "change the team").await?;
            let role = if removing {
                None
            } else {
                let change: RoleChange = json_body(&req, MAX_BODY).await?;
                Some(change.role)
            };
            let before = members(env, &org).await?;
            let after = match role {
                Some(role) => {
                    let call = SetRole {
                        actor,
                        account: account.clone(),
                        role,
                        at: now,
                    };
                    ask::<Org, _>(env, org.as_str(), call).await?
                }
                None => {
                    let call = Remove {
                        actor,
                        account: account.clone(),
                        at: now,
                    };
                    ask::<Org, _>(env, org.as_str(), call).await?
                }
            }
            .map_err(EdgeError::from)?;
            let org_name = org_name(env, principal).await?;
            mirror(env, &org, &before, account, role, org_name).await?;
            reply::json(200, &MemberList { members: after }, &[])
        }
        OrgsRoute::Invites => {
            let (org, _) = admin(principal, env, "see the invitations").await?;
            let invites = ask::<Org, _>(env, org.as_str(), super::Invites { at: now }).await?;
            reply::json(200, &InviteList { invites }, &[])
        }
        OrgsRoute::CreateInvite => {
            let (org, actor) = admin(principal, env, "invite people").await?;
            let body: InviteRequest = json_body(&req, MAX_BODY).await?;
            let days = rules::invite_days(body.expires_in_days)
                .map_err(|reason| invalid("expires_in_days", reason))?;
            let secret = random_bytes::<{ tokens::INVITE_SECRET_BYTES }>()?;
            let token = tokens::invite_token(&org, &secret).ok_or(EdgeError::ManagedBySettings)?;
            let call = CreateInvite {
                actor,
                id: format!("inv_{}", random_hex(6)?),
                token_hash: tokens::token_hash(&token),
                role: body.role,
                expires_at: now + u64::from(days) * 86_400,
                at: now,
            };
            let invite = ask::<Org, _>(env, org.as_str(), call).await?;
            reply::json(201, &InviteCreated { invite, token }, &[])
        }
        OrgsRoute::RevokeInvite(id) => {
            let (org, actor) = admin(principal, env, "withdraw invitations").await?;
            let call = RevokeInvite { actor, id, at: now };
            let invites = ask::<Org, _>(env, org.as_str(), call)
                .await?
                .map_err(EdgeError::from)?;
            reply::json(200, &InviteList { invites }, &[])
        }
        OrgsRoute::Audit => {
            let (org, _) = admin(principal, env, "read the audit log").await?;
            let before = crate::routes::query_param(query, "before")
                .map(|b| {
                    b.parse::<u64>()
                        .map_err(|_| invalid("before", "an entry's seq"))
                })
                .transpose()?;
            let page = ask::<Org, _>(env, org.as_str(), super::Audit { before }).await?;
            reply::json(200, &page, &[])
        }
        // The anonymous routes and the switch are `handle`'s.
        OrgsRoute::PasswordSignIn
        | OrgsRoute::CreateOrg
        | OrgsRoute::PreviewInvite(_)
        | OrgsRoute::AcceptInvite(_)
        | OrgsRoute::SwitchOrg => Err(EdgeError::RouteNotFound { path: req.url() }),
    }
}

async fn org_name(env: &Env, principal: &Principal) -> Result<String, EdgeError> {
    let Principal::User { session, .. } = principal else {
        return Err(EdgeError::SignInRequired(SignInReason::NoSession));
    };
    let (_, m) = membership(env, session)
        .await?
        .ok_or(EdgeError::SignInRequired(SignInReason::SessionEnded))?;
    Ok(m.org_name)
}

async fn switch_org(
    req: Request,
    env: &Env,
    config: &Config,
    principal: &Principal,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let Principal::User { session, .. } = principal else {
        return Err(EdgeError::SignInRequired(SignInReason::NoSession));
    };
    let body: SwitchOrg = json_body(&req, MAX_BODY).await?;
    // Only people with an account belong to organizations.
    let account = AccountId::parse(&session.user).ok_or(EdgeError::OrgNotFound)?;
    if body.org.is_deployment() {
        return Err(EdgeError::OrgNotFound);
    }
    let call = SignedIn {
        account: account.clone(),
        at: now_s(),
    };
    let m = ask::<Org, _>(env, body.org.as_str(), call)
        .await?
        .ok_or(EdgeError::OrgNotFound)?;
    // The old session ends: one cookie, one organization.
    crate::control::glue::revoke(env, &session.org, &session.sid, session.expires_at).await?;
    start_session(env, config, body.org, &account, m.role, trace).await
}

pub(crate) async fn handle(
    route: OrgsRoute,
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    query: Option<&str>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    match route {
        OrgsRoute::PasswordSignIn => password_sign_in(req, env, config, facts, trace).await,
        OrgsRoute::CreateOrg => create_org(req, env, config, facts, trace).await,
        OrgsRoute::PreviewInvite(token) => {
            let (org, token_hash) = invite_of(&token)?;
            let call = super::PreviewInvite {
                token_hash,
                at: now_s(),
            };
            let preview = ask::<Org, _>(env, org.as_str(), call)
                .await?
                .map_err(EdgeError::from)?;
            reply::json(200, &preview, &[])
        }
        OrgsRoute::AcceptInvite(token) => {
            accept_invite(&token, req, env, config, facts, trace).await
        }
        OrgsRoute::SwitchOrg => {
            let principal = signed_in(env, config, facts, trace).await?;
            switch_org(req, env, config, &principal, trace).await
        }
        route => {
            let principal = signed_in(env, config, facts, trace).await?;
            team(route, req, env, &principal, query).await
        }
    }
}
