//! The organizations' endpoints (`api::orgs`), the accounts Worker's:
//! forwarded after the origin and session checks; a sign-in it answers
//! becomes a session cookie here.

use api::Caller as Who;
use domain::access::gate::{self, Principal};
use domain::access::{AccessError, SignInReason};
use domain::orgs::OrgError;
use domain::orgs::member_checks;
use domain::orgs::wire::Started;
use worker::web_sys::{Request, Response};

use crate::access::{signed_in, start};
use crate::accounts;
use crate::context::Cx;
use crate::error::EdgeError;

/// `who` is the endpoint's caller (`api::OWN_ENDPOINTS`).
pub(crate) async fn forward(
    req: Request,
    cx: &mut Cx<'_>,
    who: Who,
) -> Result<Response, EdgeError> {
    // Writes (sign-ins included: login CSRF) only from our own page; a
    // browser sends no Origin on a same-origin GET, so reads go by the cookie.
    gate::check_same_origin(&cx.facts)?;
    let session = if who.acts_for_session() {
        let principal = signed_in(cx).await?;
        let Principal::User { session, .. } = principal else {
            return Err(AccessError::SignInRequired(SignInReason::NoSession).into());
        };
        // The deployment's own organization has its people in settings.
        if session.org.is_deployment() && who != Who::SessionStartsSession {
            return Err(OrgError::ManagedBySettings.into());
        }
        Some(session)
    } else {
        None
    };
    let caller = match &session {
        Some(session) => Some(
            accounts::caller(session)
                .ok_or(OrgError::NotFound)?
                .header(),
        ),
        None => None,
    };
    let env = cx.env;
    let mut answer = accounts::forward(env, &req, cx.request_id, caller.as_deref()).await?;
    if who.starts_session() && answer.status_code() == 200 {
        let text = answer.text().await.map_err(|_| OrgError::Unavailable)?;
        let started = Started::decode(&text).ok_or(OrgError::Unavailable)?;
        if let Some(old) = &session {
            // One cookie, one organization: the switched-from session ends.
            crate::control::revoke(env, &old.org, &old.sid, old.expires_at).await?;
        }
        return start(env, &cx.config, started, cx.trace).await;
    }
    // A change made here counts from this isolate's next request.
    if let Some(session) = &session
        && !member_checks::may_reuse(&req.method(), None)
        && (200..300).contains(&answer.status_code())
    {
        accounts::forget(&session.org);
    }
    // Answers and refusals pass through as the accounts Worker made them
    // (its envelopes carry this request's id and any `Retry-After`).
    Ok(answer.into())
}
