//! The organization's webhook settings (`api::orgs`), an admin's: the
//! receiving URL and the signing secrets (sealed under the master key), a
//! current and a next one for rotation.

use api::orgs::{OrgId, OrgWebhook, WebhookSecretChange};
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::caller::admin;
use crate::error::AccountsError;
use crate::input::{MAX_BODY, invalid};
use crate::sealing::{self, master_keys};
use domain::orgs::keys::{self, StoredSecret};
use domain::orgs::sealing::Purpose;
use domain::orgs::wire::Caller;
use domain::orgs::{MoveWebhookSecret, Org, SetWebhookSecret};
use platform::objects::ask;
use platform::{json_body, now_s, reply};

fn view(org: &OrgId, secrets: &[StoredSecret]) -> OrgWebhook {
    OrgWebhook {
        path: api::inbox::ORG_RECEIVE_PATH.replace("{id}", org.as_str()),
        secrets: secrets.iter().map(StoredSecret::view).collect(),
    }
}

/// `GET /api/org/webhook`: the URL and the secrets, redacted.
pub(crate) async fn get(env: &Env, caller: &Caller) -> Result<Response, AccountsError> {
    let (org, _) = admin(caller, env, "see the webhook settings").await?;
    let sealed = ask::<Org, _>(env, org.as_str(), domain::orgs::Keys {}).await?;
    reply::json(200, &view(&org, &sealed.webhook), &[])
}

/// `PUT /api/org/webhook`: a secret set in a slot, or a rotation promoted or abandoned.
pub(crate) async fn set(
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
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
                .map_err(AccountsError::from)?
        }
    };
    reply::json(200, &view(&org, &secrets), &[])
}
