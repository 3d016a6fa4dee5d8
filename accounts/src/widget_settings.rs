//! The organization's storefront widget settings (`api::orgs`): any
//! member reads them, an admin changes them; the main Worker reads them
//! for each widget request (`wire::WidgetLines`).

use api::orgs::{OrgWidget, WidgetSettings};
use domain::errors::BadBody;
use domain::errors::Internal;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::caller::{admin, member};
use crate::error::AccountsError;
use crate::input::MAX_BODY;
use domain::orgs::Org;
use domain::orgs::widget::{self, StoredWidget};
use domain::orgs::wire::{Caller, WidgetLines};
use platform::objects::ask;
use platform::{json_body, now_s, reply};

fn view(caller: &Caller, stored: Option<StoredWidget>) -> OrgWidget {
    OrgWidget {
        widget_id: caller.org.clone(),
        updated_by: stored.as_ref().map(|w| w.set_by.clone()),
        updated_at: stored.as_ref().map(|w| w.set_at),
        settings: stored.map(|w| w.settings).unwrap_or_default(),
    }
}

/// `GET /api/org/widget`.
pub(crate) async fn get(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    member(env, caller).await?;
    let stored = ask::<Org, _>(env, caller.org.as_str(), domain::orgs::Widget {}).await?;
    reply::json(200, &view(caller, stored), &[])
}

/// `PUT /api/org/widget`.
pub(crate) async fn set(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let (org, actor) = admin(caller, env, "change the storefront widget").await?;
    let body: WidgetSettings = json_body(&req, MAX_BODY).await?;
    let settings = widget::check(body).map_err(BadBody::Invalid)?;
    let widget = StoredWidget {
        settings,
        set_at: now_s(),
        set_by: actor.label,
    };
    let stored = ask::<Org, _>(env, org.as_str(), domain::orgs::SetWidget { widget }).await?;
    reply::json(200, &view(caller, Some(stored)), &[])
}

/// The widget's settings as the main Worker reads them (`wire::WidgetLines`).
pub(crate) fn lines(stored: Option<StoredWidget>) -> Result<WidgetLines, AccountsError> {
    fn json(value: &impl serde::Serialize) -> Result<String, AccountsError> {
        serde_json::to_string(value)
            .map_err(|_| Internal {
                what: "write the widget settings",
            })
            .map_err(AccountsError::from)
    }
    let settings = stored.map(|w| w.settings).unwrap_or_default();
    Ok(WidgetLines {
        share: settings.share,
        origins: settings.origins,
        ship_from: settings.ship_from.as_ref().map(json).transpose()?,
        fallback: settings.fallback.as_ref().map(json).transpose()?,
    })
}
