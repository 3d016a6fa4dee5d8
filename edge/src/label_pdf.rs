//! A label's PDF through the Worker (see `domain::label_pdf`): the label's
//! details as a v1 read, then its `label_url` with the key if it is on the
//! service's origin, streamed back from ours.

use crate::access::signed_in;
use crate::error::EdgeError;
use crate::upstream::forward;
use api::LabelDetails;
use domain::access::gate::Facts;
use domain::config::Config;
use domain::label_pdf::LabelPdfUnavailable;
use domain::label_pdf::{content_disposition, pdf_source};
use domain::upstream::proxy;
use platform::send;
use platform::{Trace, reply};
use worker::Env;
use worker::web_sys::Response;

pub(crate) async fn pdf(
    id: &str,
    inline: bool,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let principal = &signed_in(env, config, facts, trace).await?;
    let forward = proxy::plan(
        "GET",
        &format!("/api/v1/labels/{id}"),
        None,
        &config.upstream.url,
    )?;
    let (stored, key) = forward::read_for(env, config, principal, &forward, trace).await?;
    if stored.status >= 400 {
        // LABEL.NOT_FOUND and the like, as the service said them.
        return reply::respond(&stored, None, &[]);
    }
    let unavailable = || LabelPdfUnavailable { status: None };
    let details: LabelDetails = serde_json::from_str(&stored.body).map_err(|_| unavailable())?;
    let source = pdf_source(&details.label.label_url, &config.upstream.url)?;
    send::file(
        source.url,
        source.with_key.then(|| key.expose()),
        "application/pdf",
        &content_disposition(id, inline),
        config.upstream.timeout_ms,
    )
    .await
    .map_err(EdgeError::from)
}
