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
    access_tokens, api_keys, invitations, main_worker, mode_switch, passkeys, presets, resets,
    sign_in, sign_up, team, webhook_settings, widget_settings,
};
use api::OwnId;
use api::orgs::AccountId;
use domain::access::SignInReason;
use domain::orgs::wire::{self, Caller};
use domain::routes::{self, Route};
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
        "/tracking-keys" => return main_worker::tracking_keys(&req, env).await,
        "/record" => return main_worker::record(&req, env, asked()?).await,
        "/token" => return sign_in::token(req, env).await,
        "/me" => return main_worker::me(env, &asked()?).await,
        _ => {}
    }
    let Route::Own { endpoint, param } = routes::route(&req.method(), path, query, "")? else {
        return Err(RouteError::NotFound { path: path.into() }.into());
    };
    // The path's member id, as the route checked it.
    let account =
        || AccountId::parse(&param).ok_or_else(|| RouteError::NotFound { path: path.into() });
    match endpoint.id {
        OwnId::PasswordSignIn => sign_in::password(req, env).await,
        OwnId::SwitchOrg => sign_in::switch_org(req, env, &asked()?).await,
        OwnId::Signup => sign_up::status(env),
        OwnId::CreateOrg => sign_up::create_org(req, env).await,
        OwnId::PreviewInvite => invitations::preview(req, env).await,
        OwnId::AcceptInvite => invitations::accept(req, env).await,
        OwnId::Invites => invitations::list(env, &asked()?).await,
        OwnId::CreateInvite => invitations::create(req, env, &asked()?).await,
        OwnId::RevokeInvite => invitations::revoke(env, &asked()?, param).await,
        OwnId::CreateReset => resets::create(env, &asked()?, account()?).await,
        OwnId::PreviewReset => resets::preview(req, env).await,
        OwnId::UseReset => resets::use_link(req, env).await,
        OwnId::Members => team::list(env, &asked()?).await,
        OwnId::SetMemberRole => team::set_role(req, env, &asked()?, account()?).await,
        OwnId::RemoveMember => team::remove(env, &asked()?, account()?).await,
        OwnId::Audit => team::audit(env, &asked()?, query).await,
        OwnId::OrgKeys => api_keys::list(env, &asked()?).await,
        OwnId::SetOrgKeys => api_keys::change(req, env, &asked()?).await,
        OwnId::OrgWebhook => webhook_settings::get(env, &asked()?).await,
        OwnId::SetOrgWebhook => webhook_settings::set(req, env, &asked()?).await,
        OwnId::OrgWidget => widget_settings::get(env, &asked()?).await,
        OwnId::SetOrgWidget => widget_settings::set(req, env, &asked()?).await,
        OwnId::OrgModeSwitch => mode_switch::get(env, &asked()?).await,
        OwnId::SetOrgModeSwitch => mode_switch::set(req, env, &asked()?).await,
        OwnId::AccessTokens => access_tokens::list(env, &asked()?).await,
        OwnId::CreateAccessToken => access_tokens::create(req, env, &asked()?).await,
        OwnId::RevokeAccessToken => access_tokens::revoke(env, &asked()?, param).await,
        id @ (OwnId::Addresses
        | OwnId::SaveAddress
        | OwnId::UpdateAddress
        | OwnId::DeleteAddress
        | OwnId::DefaultAddress
        | OwnId::Packages
        | OwnId::SavePackage
        | OwnId::UpdatePackage
        | OwnId::DeletePackage) => presets::saved(id, param, req, env, &asked()?).await,
        OwnId::PasskeySignInOptions => passkeys::sign_in_options(req, env).await,
        OwnId::PasskeySignIn => passkeys::sign_in(req, env).await,
        OwnId::Passkeys => passkeys::passkeys(env, &asked()?).await,
        OwnId::PasskeyOptions => passkeys::create_options(req, env, &asked()?).await,
        OwnId::AddPasskey => passkeys::add(req, env, &asked()?).await,
        OwnId::RemovePasskey => passkeys::remove(env, &asked()?, param).await,
        // The main Worker's own endpoints never reach this Worker.
        _ => Err(RouteError::NotFound { path: path.into() }.into()),
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
