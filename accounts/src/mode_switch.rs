//! Whether the organization's operators may switch between live and
//! sandbox (`api::orgs::ModeSwitch`): admins read and change it; the main
//! Worker reads it with the organization's keys (`wire::Checked`).

use api::orgs::ModeSwitch;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::caller::admin;
use crate::error::AccountsError;
use crate::input::MAX_BODY;
use domain::orgs::Org;
use domain::orgs::wire::Caller;
use platform::objects::ask;
use platform::{json_body, now_s, reply};

/// `GET /api/org/mode-switch`.
pub(crate) async fn get(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    let (org, _) = admin(caller, env, "see who may switch between live and sandbox").await?;
    let sealed = ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {}).await?;
    let setting = ModeSwitch {
        operators: sealed.operators_switch_mode,
    };
    reply::json(200, &setting, &[])
}

/// `PUT /api/org/mode-switch`.
pub(crate) async fn set(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let (org, actor) = admin(
        caller,
        env,
        "choose who may switch between live and sandbox",
    )
    .await?;
    let body: ModeSwitch = json_body(&req, MAX_BODY).await?;
    let call = domain::orgs::SetModeSwitch {
        actor,
        operators: body.operators,
        at: now_s(),
    };
    let operators = ask::<Org, _>(env, org.as_str(), call).await?;
    reply::json(200, &ModeSwitch { operators }, &[])
}
