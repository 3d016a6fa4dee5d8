//! The accounts Worker (`wire`): the organizations' endpoints
//! (`api::orgs`) behind the main Worker, which checked the origin and the
//! session and names the caller: sign-in by password, new organizations
//! from a setup link, invitations, the team and the audit log; and the
//! membership check the main Worker makes on every request of an
//! organization's session.

use api::access_tokens::{TokenCreated, TokenList, TokenRequest};
use api::orgs::{
    AcceptInvite as AcceptBody, AccountId, CreateOrg, InviteCreated, InviteList, InviteRequest,
    InviteToken, KeyChange, MemberList, OrgId, OrgKeyList, OrgSummary, OrgWebhook, OrgWidget,
    PasswordSignIn, RoleChange, SwitchOrg, WebhookSecretChange, WidgetSettings, normalize_email,
};
use api::session::Role;
use api::{ApiKey, OwnId, Scope};
use worker::web_sys::{Request, Response};
use worker::{Context, Env, event};

use crate::sealing::{self, master_keys};
use domain::errors::{EdgeError, SignInReason};
use domain::orgs::directory::{self, Directory};
use domain::orgs::keys::{self, StoredKey, StoredSecret, Verdict};
use domain::orgs::sealing::Purpose;
use domain::orgs::widget::{self as widget_settings, StoredWidget};
use domain::orgs::wire::{self, Caller, Checked, KeyLine, Me, WidgetLines};
use domain::orgs::{
    Access, Create, CreateInvite, CreateToken, Joining, MoveKey, MoveWebhookSecret, Org, Remove,
    Reseal, RevokeInvite, RevokeToken, SetKey, SetRole, SetWebhookSecret, SignedIn, Tokens,
    UseToken, rules, tokens,
};
use domain::routes::{self, OrgsRoute, Route};
use platform::objects::ask;
use platform::{body_bytes, header, json_body, now_s, random_hex, reply};

use crate::account::{account_for, joined};
use crate::attempts::Attempt;
use crate::caller::{admin, member, membership};
use crate::input::{MAX_BODY, email_of, invalid, name_of};
use crate::passkeys;
use crate::random::random_bytes;
use crate::session::{signed_in_first_org, started};

/// Who the person is and their organizations, for the session answer.
async fn me(env: &Env, caller: &Caller) -> Result<Option<Me>, EdgeError> {
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
    // The object is the authority on this organization; the directory's copy lists the rest.
    let mut orgs: Vec<OrgSummary> = listed.into_iter().filter(|o| o.id != org.id).collect();
    orgs.push(org.clone());
    orgs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Some(Me {
        user: format!("{} <{}>", m.name, m.email),
        org,
        orgs,
    }))
}

async fn password_sign_in(req: Request, env: &Env) -> Result<Response, EdgeError> {
    let body: PasswordSignIn = json_body(&req, MAX_BODY).await?;
    let email = normalize_email(&body.email).ok_or(EdgeError::SignInFailed)?;
    let now = now_s();
    let account = Attempt::new(&req, &email)
        .verify(env, &body.password, now)
        .await?;
    signed_in_first_org(env, &account, now).await
}

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
async fn open_signup(req: &Request, env: &Env, now: u64) -> Result<OrgId, EdgeError> {
    let address = header(req, "CF-Connecting-IP").unwrap_or_else(|| "unknown".into());
    let shard = directory::address_shard(&address);
    let key = format!("signup:{address}");
    let throttled = directory::Throttled {
        key: key.clone(),
        limit: SIGNUPS_PER_ADDRESS,
        at: now,
    };
    if let Some(retry_after) = ask::<Directory, _>(env, &shard, throttled).await? {
        return Err(EdgeError::SignupThrottled { retry_after });
    }
    let counted = directory::Failed {
        key,
        limit: SIGNUPS_PER_ADDRESS,
        at: now,
    };
    ask::<Directory, _>(env, &shard, counted).await?;
    let nonce = random_hex(tokens::ORG_NONCE_HEX / 2)?;
    tokens::org_of_nonce(&nonce).ok_or(EdgeError::Internal {
        what: "name the organization",
    })
}

async fn create_org(req: Request, env: &Env, secret: &[u8]) -> Result<Response, EdgeError> {
    let body: CreateOrg = json_body(&req, MAX_BODY).await?;
    let now = now_s();
    let link = (!body.setup.trim().is_empty())
        .then(|| tokens::check_setup(&body.setup, secret, now))
        .transpose()
        .map_err(|_| EdgeError::OrgSetupInvalid { used: false })?;
    if link.is_none() && !signup_open(env) {
        return Err(EdgeError::SignupClosed);
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
    started(org, &account.id, Role::Admin)
}

fn invite_of(token: &str) -> Result<(OrgId, String), EdgeError> {
    tokens::read_invite(token).ok_or(EdgeError::InviteUnknown)
}

async fn accept_invite(req: Request, env: &Env) -> Result<Response, EdgeError> {
    let body: AcceptBody = json_body(&req, MAX_BODY).await?;
    let (org, token_hash) = invite_of(&body.token)?;
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
    let preview = domain::orgs::PreviewInvite {
        token_hash: token_hash.clone(),
        at: now,
    };
    ask::<Org, _>(env, org.as_str(), preview)
        .await?
        .map_err(EdgeError::from)?;
    let account = account_for(&req, env, &email, &name, &body.password, now).await?;
    let accept = domain::orgs::AcceptInvite {
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
    started(org, &account.id, accepted.role)
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
    let members = ask::<Org, _>(env, org.as_str(), domain::orgs::Members {}).await?;
    Ok(MemberList { members })
}

async fn team(
    route: OrgsRoute,
    req: Request,
    env: &Env,
    caller: &Caller,
    query: Option<&str>,
) -> Result<Response, EdgeError> {
    let now = now_s();
    match route {
        OrgsRoute::Members => {
            let (org, _) = admin(caller, env, "see the team").await?;
            reply::json(200, &members(env, &org).await?, &[])
        }
        OrgsRoute::SetMemberRole(ref account) | OrgsRoute::RemoveMember(ref account) => {
            let removing = matches!(route, OrgsRoute::RemoveMember(_));
            let (org, actor) = admin(caller, env, "change the team").await?;
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
            let org_name = membership(env, caller)
                .await?
                .map(|m| m.org_name)
                .unwrap_or_default();
            mirror(env, &org, &before, account, role, org_name).await?;
            reply::json(200, &MemberList { members: after }, &[])
        }
        OrgsRoute::Invites => {
            let (org, _) = admin(caller, env, "see the invitations").await?;
            let invites =
                ask::<Org, _>(env, org.as_str(), domain::orgs::Invites { at: now }).await?;
            reply::json(200, &InviteList { invites }, &[])
        }
        OrgsRoute::CreateInvite => {
            let (org, actor) = admin(caller, env, "invite people").await?;
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
            let (org, actor) = admin(caller, env, "withdraw invitations").await?;
            let call = RevokeInvite { actor, id, at: now };
            let invites = ask::<Org, _>(env, org.as_str(), call)
                .await?
                .map_err(EdgeError::from)?;
            reply::json(200, &InviteList { invites }, &[])
        }
        OrgsRoute::Audit => {
            let (org, _) = admin(caller, env, "read the audit log").await?;
            let before = domain::routes::query_param(query, "before")
                .map(|b| {
                    b.parse::<u64>()
                        .map_err(|_| invalid("before", "an entry's seq"))
                })
                .transpose()?;
            let page = ask::<Org, _>(env, org.as_str(), domain::orgs::Audit { before }).await?;
            reply::json(200, &page, &[])
        }
        // The anonymous routes and the switch are `handle`'s.
        OrgsRoute::PasswordSignIn
        | OrgsRoute::CreateOrg
        | OrgsRoute::Signup
        | OrgsRoute::PreviewInvite
        | OrgsRoute::AcceptInvite
        | OrgsRoute::SwitchOrg
        | OrgsRoute::OrgKeys
        | OrgsRoute::SetOrgKeys
        | OrgsRoute::OrgWebhook
        | OrgsRoute::SetOrgWebhook
        | OrgsRoute::AccessTokens
        | OrgsRoute::CreateAccessToken
        | OrgsRoute::RevokeAccessToken(_)
        | OrgsRoute::OrgWidget
        | OrgsRoute::SetOrgWidget
        | OrgsRoute::PasskeySignInOptions
        | OrgsRoute::PasskeySignIn
        | OrgsRoute::Passkeys
        | OrgsRoute::PasskeyOptions
        | OrgsRoute::AddPasskey
        | OrgsRoute::RemovePasskey(_)
        | OrgsRoute::Saved(..) => Err(EdgeError::RouteNotFound { path: req.url() }),
    }
}

/// Checks `key` with harmless calls (`keys::PROBES`): its scopes, or why
/// it cannot be stored.
async fn check_key(env: &Env, key: &ApiKey) -> Result<Vec<Scope>, EdgeError> {
    use domain::config::{DEFAULT_UPSTREAM_TIMEOUT_MS, names, validate_upstream};
    let upstream = env.var(names::UPSTREAM_URL).map(|v| v.to_string());
    let upstream = validate_upstream(&upstream.unwrap_or_default())?;
    let mut trace = platform::Trace::default();
    let unknown = |e: EdgeError| EdgeError::KeyCheckUnavailable(e.to_api_error("").message);
    for probe in &keys::PROBES {
        let forward = domain::upstream::proxy::plan(probe.method, probe.path, None, &upstream)?;
        let body = probe.body.unwrap_or_default().as_bytes();
        let answer = platform::send::send(
            &forward,
            probe.method,
            key.expose(),
            body,
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
                return Err(EdgeError::KeyRefused {
                    redacted: key.redacted(),
                    code,
                    message,
                });
            }
            Verdict::Unknown(why) => return Err(EdgeError::KeyCheckUnavailable(why)),
        }
    }
    Ok(Scope::ALL.to_vec())
}

fn key_list(stored: Vec<StoredKey>) -> OrgKeyList {
    OrgKeyList {
        keys: stored.iter().map(StoredKey::view).collect(),
    }
}

async fn org_keys(
    route: OrgsRoute,
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, EdgeError> {
    let now = now_s();
    if route == OrgsRoute::OrgKeys {
        let (org, _) = admin(caller, env, "see the API keys").await?;
        let sealed = ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {}).await?;
        return reply::json(200, &key_list(sealed.keys), &[]);
    }
    let (org, actor) = admin(caller, env, "change the API keys").await?;
    let stored = match json_body::<KeyChange>(&req, MAX_BODY).await? {
        KeyChange::Set { key, slot } => {
            let key =
                ApiKey::parse(key.trim()).map_err(|e| EdgeError::KeyMalformed(e.to_string()))?;
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
            ask::<Org, _>(env, org.as_str(), SetKey { key: stored }).await?
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
                .map_err(EdgeError::from)?
        }
    };
    reply::json(200, &key_list(stored), &[])
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
) -> Result<Vec<String>, EdgeError> {
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

/// The widget's settings as the main Worker reads them (`wire::WidgetLines`).
fn widget_lines(stored: Option<StoredWidget>) -> Result<WidgetLines, EdgeError> {
    fn json(value: &impl serde::Serialize) -> Result<String, EdgeError> {
        serde_json::to_string(value).map_err(|_| EdgeError::Internal {
            what: "write the widget settings",
        })
    }
    let settings = stored.map(|w| w.settings).unwrap_or_default();
    Ok(WidgetLines {
        share: settings.share,
        origins: settings.origins,
        ship_from: settings.ship_from.as_ref().map(json).transpose()?,
        fallback: settings.fallback.as_ref().map(json).transpose()?,
    })
}

/// `GET` (any member) and `PUT` (admins) `/api/org/widget`.
async fn org_widget(
    route: OrgsRoute,
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, EdgeError> {
    let org = caller.org.clone();
    let view = |stored: Option<StoredWidget>| OrgWidget {
        widget_id: org.clone(),
        updated_by: stored.as_ref().map(|w| w.set_by.clone()),
        updated_at: stored.as_ref().map(|w| w.set_at),
        settings: stored.map(|w| w.settings).unwrap_or_default(),
    };
    if route == OrgsRoute::OrgWidget {
        member(env, caller).await?;
        let stored = ask::<Org, _>(env, org.as_str(), domain::orgs::Widget {}).await?;
        return reply::json(200, &view(stored), &[]);
    }
    let (org, actor) = admin(caller, env, "change the storefront widget").await?;
    let body: WidgetSettings = json_body(&req, MAX_BODY).await?;
    let settings = widget_settings::check(body).map_err(EdgeError::InvalidBody)?;
    let widget = StoredWidget {
        settings,
        set_at: now_s(),
        set_by: actor.label,
    };
    let stored = ask::<Org, _>(env, org.as_str(), domain::orgs::SetWidget { widget }).await?;
    reply::json(200, &view(Some(stored)), &[])
}

/// What the main Worker needs for a request of `org`: its keys and webhook
/// secrets, opened (`wire::Checked`), and the caller's role if a caller is named.
async fn checked(env: &Env, org: &OrgId, caller: Option<&Caller>) -> Result<Checked, EdgeError> {
    let (role, sealed) = match caller {
        Some(caller) => {
            let access = Access {
                account: caller.account.clone(),
            };
            match ask::<Org, _>(env, org.as_str(), access).await? {
                Some((role, sealed)) => (Some(role), sealed),
                None => return Ok(Checked::default()),
            }
        }
        None => (
            None,
            ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {}).await?,
        ),
    };
    if sealed.keys.is_empty() && sealed.webhook.is_empty() {
        return Ok(Checked {
            role,
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
    })
}

async fn org_webhook(
    route: OrgsRoute,
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, EdgeError> {
    let view = |org: &OrgId, secrets: Vec<StoredSecret>| OrgWebhook {
        path: api::inbox::ORG_RECEIVE_PATH.replace("{id}", org.as_str()),
        secrets: secrets.iter().map(StoredSecret::view).collect(),
    };
    if route == OrgsRoute::OrgWebhook {
        let (org, _) = admin(caller, env, "see the webhook settings").await?;
        let sealed = ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {}).await?;
        return reply::json(200, &view(&org, sealed.webhook), &[]);
    }
    let (org, actor) = admin(caller, env, "change the webhook secret").await?;
    let now = now_s();
    let secrets = match json_body::<WebhookSecretChange>(&req, MAX_BODY).await? {
        WebhookSecretChange::Set { secret, slot } => {
            let secret = secret.trim();
            if let Some(problem) = keys::webhook_secret_problem(secret) {
                return Err(invalid("secret", problem));
            }
            let masters = master_keys(env)?;
            let before = ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {}).await?;
            let stored = StoredSecret {
                slot: keys::rotation::slot_for(before.webhook.iter().map(|s| s.slot), slot),
                sealed: sealing::seal(&masters, &org, Purpose::WebhookSecret, secret).await?,
                redacted: keys::redact_secret(secret),
                set_at: now,
                set_by: actor.label,
            };
            ask::<Org, _>(env, org.as_str(), SetWebhookSecret { secret: stored }).await?
        }
        change @ (WebhookSecretChange::Promote | WebhookSecretChange::DiscardNext) => {
            let call = MoveWebhookSecret {
                actor,
                promote: change == WebhookSecretChange::Promote,
                at: now,
            };
            ask::<Org, _>(env, org.as_str(), call)
                .await?
                .map_err(EdgeError::from)?
        }
    };
    reply::json(200, &view(&org, secrets), &[])
}

/// Sign-in with a personal access token (`wire::TOKEN_URL`): the session
/// of its owner, with their role now. Every refusal is the same as an
/// unknown token's, and counts against the client address like a wrong password.
async fn token_sign_in(req: Request, env: &Env) -> Result<Response, EdgeError> {
    let body = platform::request::body_bytes(&req).await;
    let token = std::str::from_utf8(&body).unwrap_or_default().trim();
    let attempt = Attempt::from_address(&req);
    let now = now_s();
    attempt.allowed(env, now).await?;
    if let Some((org, token_hash)) = tokens::read_access_token(token) {
        let call = UseToken {
            token_hash,
            at: now,
        };
        if let Some((account, role)) = ask::<Org, _>(env, org.as_str(), call).await? {
            return started(org, &account, role);
        }
    }
    Err(attempt.failed(env, now, EdgeError::InvalidToken).await)
}

/// The caller's personal access tokens (`api::access_tokens`); an admin
/// sees and revokes everyone's.
async fn access_tokens(
    route: OrgsRoute,
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, EdgeError> {
    let m = member(env, caller).await?;
    let org = caller.org.as_str();
    let owner = (m.role != Role::Admin).then(|| caller.account.clone());
    let actor = m.actor(&caller.account);
    let now = now_s();
    match route {
        OrgsRoute::CreateAccessToken => {
            let body: TokenRequest = json_body(&req, MAX_BODY).await?;
            let name = name_of("name", &body.name)?;
            let days = rules::token_days(body.expires_in_days)
                .map_err(|reason| invalid("expires_in_days", reason))?;
            let secret = random_bytes::<{ tokens::INVITE_SECRET_BYTES }>()?;
            let token =
                tokens::access_token(&caller.org, &secret).ok_or(EdgeError::ManagedBySettings)?;
            let call = CreateToken {
                actor,
                account: caller.account.clone(),
                id: format!("tok_{}", random_hex(8)?),
                token_hash: tokens::token_hash(&token),
                name,
                last_four: token
                    .get(token.len().saturating_sub(4)..)
                    .unwrap_or_default()
                    .to_string(),
                expires_at: now + u64::from(days) * 86_400,
                at: now,
            };
            let info = ask::<Org, _>(env, org, call)
                .await?
                .ok_or(EdgeError::SignInRequired(SignInReason::SessionEnded))?;
            reply::json(201, &TokenCreated { info, token }, &[])
        }
        OrgsRoute::RevokeAccessToken(id) => {
            let call = RevokeToken {
                actor,
                owner,
                id,
                at: now,
            };
            let tokens = ask::<Org, _>(env, org, call)
                .await?
                .map_err(EdgeError::from)?;
            reply::json(200, &TokenList { tokens }, &[])
        }
        _ => {
            let tokens = ask::<Org, _>(env, org, Tokens { owner }).await?;
            reply::json(200, &TokenList { tokens }, &[])
        }
    }
}

/// Saved addresses and package presets (`api::presets`): every member
/// reads them; admins and operators, who ship daily, change them.
async fn saved(
    endpoint: OwnId,
    param: String,
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, EdgeError> {
    use api::presets::{
        ADDRESS_ID_PREFIX, AddressInput, PACKAGE_ID_PREFIX, PackageInput, PackageList,
        SavedAddressList,
    };
    use domain::orgs::presets::{Change, Refused};
    let m = member(env, caller).await?;
    let addresses = matches!(
        endpoint,
        OwnId::Addresses
            | OwnId::SaveAddress
            | OwnId::UpdateAddress
            | OwnId::DeleteAddress
            | OwnId::DefaultAddress
    );
    let reads = matches!(endpoint, OwnId::Addresses | OwnId::Packages);
    if !reads && m.role == Role::Viewer {
        let action = if addresses {
            "change the saved addresses"
        } else {
            "change the package presets"
        };
        return Err(EdgeError::ViewerReadOnly { action });
    }
    let address = || async {
        let input: AddressInput = json_body(&req, MAX_BODY).await?;
        input.check().map_err(EdgeError::InvalidBody)?;
        Ok::<_, EdgeError>(input)
    };
    let package = || async {
        let input: PackageInput = json_body(&req, MAX_BODY).await?;
        input.check().map_err(EdgeError::InvalidBody)?;
        Ok::<_, EdgeError>(input)
    };
    let new_id = |prefix: &str| Ok::<_, EdgeError>(format!("{prefix}{}", random_hex(6)?));
    let id = param;
    let change = match endpoint {
        OwnId::SaveAddress => Some(Change::SaveAddress {
            id: new_id(ADDRESS_ID_PREFIX)?,
            input: address().await?,
        }),
        OwnId::UpdateAddress => Some(Change::UpdateAddress {
            input: address().await?,
            id,
        }),
        OwnId::DeleteAddress => Some(Change::DeleteAddress { id }),
        OwnId::DefaultAddress => Some(Change::DefaultAddress { id }),
        OwnId::SavePackage => Some(Change::SavePackage {
            id: new_id(PACKAGE_ID_PREFIX)?,
            input: package().await?,
        }),
        OwnId::UpdatePackage => Some(Change::UpdatePackage {
            input: package().await?,
            id,
        }),
        OwnId::DeletePackage => Some(Change::DeletePackage { id }),
        OwnId::Addresses | OwnId::Packages => None,
        _ => return Err(EdgeError::RouteNotFound { path: req.url() }),
    };
    let created = matches!(endpoint, OwnId::SaveAddress | OwnId::SavePackage);
    let org = caller.org.as_str();
    let lists = match change {
        None => ask::<Org, _>(env, org, domain::orgs::SavedLists {}).await?,
        Some(change) => {
            let call = domain::orgs::ChangeSaved {
                actor: m.actor(&caller.account),
                change: Box::new(change),
                at: now_s(),
            };
            let what = if addresses {
                "address"
            } else {
                "package preset"
            };
            ask::<Org, _>(env, org, call).await?.map_err(|r| match r {
                Refused::NotFound => EdgeError::SavedNotFound { what },
                Refused::Full => EdgeError::SavedLimit { what },
            })?
        }
    };
    let status = if created { 201 } else { 200 };
    if addresses {
        let list = SavedAddressList {
            addresses: lists.addresses,
        };
        reply::json(status, &list, &[])
    } else {
        let list = PackageList {
            packages: lists.packages,
        };
        reply::json(status, &list, &[])
    }
}

/// Another of the caller's organizations, if they are a member of it.
async fn switch_org(req: Request, env: &Env, caller: &Caller) -> Result<Response, EdgeError> {
    let body: SwitchOrg = json_body(&req, MAX_BODY).await?;
    let call = SignedIn {
        account: caller.account.clone(),
        at: now_s(),
    };
    let m = ask::<Org, _>(env, body.org.as_str(), call)
        .await?
        .ok_or(EdgeError::OrgNotFound)?;
    started(body.org, &caller.account, m.role)
}

async fn handle(req: Request, env: &Env) -> Result<Response, EdgeError> {
    let url = req.url();
    let (_, path, query) =
        routes::split_url(&url).ok_or(EdgeError::RouteNotFound { path: url.clone() })?;
    let caller = header(&req, wire::CALLER_HEADER).and_then(|c| Caller::from_header(&c));
    let asked = || {
        caller
            .clone()
            .ok_or(EdgeError::SignInRequired(SignInReason::NoSession))
    };
    match path {
        "/check" => {
            let caller = asked()?;
            let checked = checked(env, &caller.org, Some(&caller)).await?;
            return reply::text(200, &checked.encode());
        }
        "/keys" | "/widget" => {
            let org = header(&req, wire::ORG_HEADER)
                .and_then(|o| OrgId::parse(&o))
                .ok_or(EdgeError::OrgNotFound)?;
            let mut checked = checked(env, &org, None).await?;
            if path == "/widget" {
                let stored = ask::<Org, _>(env, org.as_str(), domain::orgs::Widget {}).await?;
                checked.widget = Some(widget_lines(stored)?);
            }
            return reply::text(200, &checked.encode());
        }
        "/record" => {
            let caller = asked()?;
            let text = String::from_utf8(body_bytes(&req).await).unwrap_or_default();
            let record = wire::Record::decode(&text).ok_or(EdgeError::Internal {
                what: "read the main Worker's audit record",
            })?;
            let call = domain::orgs::Record {
                account: caller.account,
                action: record.action,
                detail: record.detail,
                at: now_s(),
            };
            ask::<Org, _>(env, caller.org.as_str(), call).await?;
            return reply::empty(204, &[]);
        }
        "/token" => return token_sign_in(req, env).await,
        "/me" => {
            let me = me(env, &asked()?).await?;
            return reply::text(200, &me.map(|me| me.encode()).unwrap_or_default());
        }
        _ => {}
    }
    let Route::Orgs(route) = routes::route(&req.method(), path, query, "")? else {
        return Err(EdgeError::RouteNotFound { path: path.into() });
    };
    match route {
        OrgsRoute::PasswordSignIn => password_sign_in(req, env).await,
        OrgsRoute::Signup => reply::json(
            200,
            &api::orgs::Signup {
                open: signup_open(env),
            },
            &[],
        ),
        OrgsRoute::CreateOrg => {
            let secret = env
                .secret(domain::config::names::SESSION_SECRET)
                .map(|s| s.to_string().trim().as_bytes().to_vec())
                .map_err(|_| EdgeError::Config {
                    setting: domain::config::names::SESSION_SECRET,
                    problem: "the accounts Worker has none".into(),
                })?;
            create_org(req, env, &secret).await
        }
        OrgsRoute::PreviewInvite => {
            let body: InviteToken = json_body(&req, MAX_BODY).await?;
            let (org, token_hash) = invite_of(&body.token)?;
            let call = domain::orgs::PreviewInvite {
                token_hash,
                at: now_s(),
            };
            let preview = ask::<Org, _>(env, org.as_str(), call)
                .await?
                .map_err(EdgeError::from)?;
            reply::json(200, &preview, &[])
        }
        OrgsRoute::AcceptInvite => accept_invite(req, env).await,
        OrgsRoute::SwitchOrg => switch_org(req, env, &asked()?).await,
        OrgsRoute::OrgKeys | OrgsRoute::SetOrgKeys => org_keys(route, req, env, &asked()?).await,
        OrgsRoute::OrgWebhook | OrgsRoute::SetOrgWebhook => {
            org_webhook(route, req, env, &asked()?).await
        }
        OrgsRoute::AccessTokens
        | OrgsRoute::CreateAccessToken
        | OrgsRoute::RevokeAccessToken(_) => access_tokens(route, req, env, &asked()?).await,
        OrgsRoute::OrgWidget | OrgsRoute::SetOrgWidget => {
            org_widget(route, req, env, &asked()?).await
        }
        OrgsRoute::PasskeySignInOptions => passkeys::sign_in_options(req, env).await,
        OrgsRoute::PasskeySignIn => passkeys::sign_in(req, env).await,
        OrgsRoute::Passkeys => passkeys::passkeys(env, &asked()?).await,
        OrgsRoute::PasskeyOptions => passkeys::create_options(req, env, &asked()?).await,
        OrgsRoute::AddPasskey => passkeys::add(req, env, &asked()?).await,
        OrgsRoute::RemovePasskey(id) => passkeys::remove(env, &asked()?, id).await,
        OrgsRoute::Saved(endpoint, param) => saved(endpoint, param, req, env, &asked()?).await,
        route => team(route, req, env, &asked()?, query).await,
    }
}

/// Every answer in the v1 envelope, with the main Worker's request id.
#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let request_id = header(&req, wire::REQUEST_ID_HEADER).unwrap_or_default();
    match handle(req, &env).await {
        Ok(response) => Ok(response),
        Err(e) => {
            // The main Worker answers its own 503 for these: the operator
            // reads what to fix here (settings errors name the setting, never its value).
            if e.status() >= 500 {
                let message = e.to_api_error(&request_id).message;
                worker::console_error!("{request_id} {}: {message}", e.code());
            }
            reply::error_response(&e, &request_id, None).map_err(worker::Error::from)
        }
    }
}
