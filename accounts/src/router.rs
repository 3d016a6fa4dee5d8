//! The accounts Worker's router: the main Worker's own calls (`wire`) by
//! path, then the organizations' endpoints (`api::orgs`, forwarded after
//! the main Worker checked the origin and the session and named the
//! caller), one line each, to the module that does what they do.

use domain::access::AccessError;
use domain::errors::Failure;
use domain::errors::RouteError;
use worker::web_sys::{Request, Response};
use worker::{Context, Env, event};

use crate::error::AccountsError;
use crate::{
    access_tokens, api_keys, invitations, main_worker, passkeys, presets, sign_in, sign_up, team,
    webhook_settings, widget_settings,
};
use domain::access::SignInReason;
use domain::orgs::wire::{self, Caller};
use domain::routes::{self, OrgsRoute, Route};
use platform::{header, reply};

async fn handle(req: Request, env: &Env) -> Result<Response, AccountsError> {
    let url = req.url();
    let (_, path, query) =
        routes::split_url(&url).ok_or(RouteError::NotFound { path: url.clone() })?;
    let caller = header(&req, wire::CALLER_HEADER).and_then(|c| Caller::from_header(&c));
    // The caller, for the endpoints that need one (a signed-in session).
    let asked = || {
        caller
            .clone()
            .ok_or(AccessError::SignInRequired(SignInReason::NoSession))
    };
    match path {
        "/check" => return main_worker::check(env, &asked()?).await,
        "/keys" => return main_worker::keys(&req, env).await,
        "/widget" => return main_worker::widget(&req, env).await,
        "/record" => return main_worker::record(&req, env, asked()?).await,
        "/token" => return sign_in::token(req, env).await,
        "/me" => return main_worker::me(env, &asked()?).await,
        _ => {}
    }
    let Route::Orgs(route) = routes::route(&req.method(), path, query, "")? else {
        return Err(RouteError::NotFound { path: path.into() }.into());
    };
    match route {
        OrgsRoute::PasswordSignIn => sign_in::password(req, env).await,
        OrgsRoute::SwitchOrg => sign_in::switch_org(req, env, &asked()?).await,
        OrgsRoute::Signup => sign_up::status(env),
        OrgsRoute::CreateOrg => sign_up::create_org(req, env).await,
        OrgsRoute::PreviewInvite => invitations::preview(req, env).await,
        OrgsRoute::AcceptInvite => invitations::accept(req, env).await,
        OrgsRoute::Invites => invitations::list(env, &asked()?).await,
        OrgsRoute::CreateInvite => invitations::create(req, env, &asked()?).await,
        OrgsRoute::RevokeInvite(id) => invitations::revoke(env, &asked()?, id).await,
        OrgsRoute::Members => team::list(env, &asked()?).await,
        OrgsRoute::SetMemberRole(account) => team::set_role(req, env, &asked()?, account).await,
        OrgsRoute::RemoveMember(account) => team::remove(env, &asked()?, account).await,
        OrgsRoute::Audit => team::audit(env, &asked()?, query).await,
        OrgsRoute::OrgKeys => api_keys::list(env, &asked()?).await,
        OrgsRoute::SetOrgKeys => api_keys::change(req, env, &asked()?).await,
        OrgsRoute::OrgWebhook => webhook_settings::get(env, &asked()?).await,
        OrgsRoute::SetOrgWebhook => webhook_settings::set(req, env, &asked()?).await,
        OrgsRoute::OrgWidget => widget_settings::get(env, &asked()?).await,
        OrgsRoute::SetOrgWidget => widget_settings::set(req, env, &asked()?).await,
        OrgsRoute::AccessTokens => access_tokens::list(env, &asked()?).await,
        OrgsRoute::CreateAccessToken => access_tokens::create(req, env, &asked()?).await,
        OrgsRoute::RevokeAccessToken(id) => access_tokens::revoke(env, &asked()?, id).await,
        OrgsRoute::Saved(endpoint, id) => presets::saved(endpoint, id, req, env, &asked()?).await,
        OrgsRoute::PasskeySignInOptions => passkeys::sign_in_options(req, env).await,
        OrgsRoute::PasskeySignIn => passkeys::sign_in(req, env).await,
        OrgsRoute::Passkeys => passkeys::passkeys(env, &asked()?).await,
        OrgsRoute::PasskeyOptions => passkeys::create_options(req, env, &asked()?).await,
        OrgsRoute::AddPasskey => passkeys::add(req, env, &asked()?).await,
        OrgsRoute::RemovePasskey(id) => passkeys::remove(env, &asked()?, id).await,
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
