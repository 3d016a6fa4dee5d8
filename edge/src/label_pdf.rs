//! A label's PDF through the Worker (see `domain::label_pdf`): the label's
//! details as a v1 read, then its `label_url` with the key if it is on the
//! service's origin, streamed back from ours.

use crate::access::signed_in;
use crate::context::Cx;
use crate::error::EdgeError;
use crate::forward;
use api::LabelDetails;
use domain::label_pdf::LabelPdfUnavailable;
use domain::label_pdf::{content_disposition, inline, pdf_source};
use domain::upstream::proxy;
use platform::reply;
use platform::send;
use worker::web_sys::{Request, Response};

/// `GET /api/labels/{id}/pdf`, a download or (`?inline=1`) to view.
pub(crate) async fn pdf(_req: Request, cx: &mut Cx<'_>) -> Result<Response, EdgeError> {
    let principal = &signed_in(cx).await?;
    let (env, config, id, trace) = (cx.env, &*cx.config, cx.param.as_str(), &mut *cx.trace);
    let inline = inline(cx.query);
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
