//! The job endpoints (`api::jobs`): who may call them, then the job's own
//! object. Creating and running need `batches:write` and `rates:read`;
//! watching needs `batches:read` (and `labels:read` for the label PDFs).

use super::engine::Action;
use super::{Act, Acted, Create, Get, Jobs, Labels, Results, Rows, request_error};
use crate::access::gate::{self, Facts, Principal};
use crate::access::glue::signed_in;
use crate::config::Config;
use crate::control::glue as control;
use crate::errors::EdgeError;
use crate::label_pdf::pdf_source;
use crate::routes::{JobAction, JobsRoute, query_param};
use crate::runtime::objects::{ask, upgrade};
use crate::runtime::{Trace, body_bytes, header, random_hex, reply};
use crate::upstream::budget::with_budgets;
use crate::upstream::send;
use api::jobs::{CreateJob, LABELS_PER_PDF, MAX_PAGE_ROWS, RowState};
use api::validation::{MAX_BODY_BYTES, parse_json};
use api::{EndpointId, KeyEnv, Scope};
use worker::Env;
use worker::web_sys::{Request, Response};

const RUN: [Scope; 2] = [Scope::BatchesWrite, Scope::RatesRead];
const WATCH: [Scope; 1] = [Scope::BatchesRead];
const PRINT: [Scope; 2] = [Scope::BatchesRead, Scope::LabelsRead];

/// The job behind the path, or 404: a job of the other mode is not found either.
async fn job(env: &Env, id: &str, mode: KeyEnv) -> Result<api::jobs::Job, EdgeError> {
    ask::<Jobs, _>(env, id, Get {})
        .await?
        .filter(|job| job.mode == mode)
        .ok_or_else(|| EdgeError::JobNotFound { id: id.to_string() })
}

pub(crate) async fn handle(
    route: JobsRoute,
    req: Request,
    env: &Env,
    config: &Config,
    facts: &Facts<'_>,
    query: Option<&str>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let principal = signed_in(env, config, facts, trace).await?;
    match route {
        JobsRoute::Create => {
            let mode = gate::require(&principal, config, &RUN)?;
            create(req, env, config, mode, &principal).await
        }
        JobsRoute::List => {
            let mode = gate::require(&principal, config, &WATCH)?;
            let jobs = control::list_jobs(env, mode).await?;
            // One read: the control store keeps every job's summary.
            reply::json(200, &api::jobs::JobList { jobs }, &[])
        }
        JobsRoute::Get(id) => {
            let mode = gate::require(&principal, config, &WATCH)?;
            reply::json(200, &job(env, &id, mode).await?, &[])
        }
        JobsRoute::Rows(id) => {
            let mode = gate::require(&principal, config, &WATCH)?;
            // A page of another mode's job is not shown.
            job(env, &id, mode).await?;
            let number = |name: &str, default: u32| {
                query_param(query, name)
                    .map(|v| v.parse::<u32>().map_err(|_| name.to_string()))
                    .transpose()
                    .map(|v| v.unwrap_or(default))
            };
            let state = match query_param(query, "state") {
                None => None,
                Some(s) => Some(RowState::parse(&s).ok_or_else(|| bad_query("state", &s))?),
            };
            let offset = number("offset", 0).map_err(|n| bad_query(&n, "offset"))?;
            let limit = number("limit", 200).map_err(|n| bad_query(&n, "limit"))?;
            let page = ask::<Jobs, _>(
                env,
                &id,
                Rows {
                    state,
                    offset,
                    limit: limit.clamp(1, MAX_PAGE_ROWS),
                },
            )
            .await?
            .ok_or(EdgeError::JobNotFound { id })?;
            reply::json(200, &page, &[])
        }
        JobsRoute::Act(id, action) => {
            let mode = gate::require(&principal, config, &RUN)?;
            job(env, &id, mode).await?;
            let action = match action {
                JobAction::Start => Action::Start,
                JobAction::Approve => Action::Approve,
                JobAction::Retry => Action::Retry,
                JobAction::Release => Action::Release,
                JobAction::Cancel => Action::Cancel,
                JobAction::Decide => Action::Decide(
                    parse_json(&body_bytes(&req).await).map_err(EdgeError::InvalidBody)?,
                ),
                JobAction::RetryReleased => Action::RetryReleased(
                    parse_json(&body_bytes(&req).await).map_err(EdgeError::InvalidBody)?,
                ),
            };
            match ask::<Jobs, _>(env, &id, Act { action }).await? {
                Acted::Done { job } => reply::json(200, &job, &[]),
                Acted::Refused { reason } => Err(EdgeError::JobActionRefused { reason }),
                Acted::Missing => Err(EdgeError::JobNotFound { id }),
            }
        }
        JobsRoute::Live(id) => {
            let mode = gate::require(&principal, config, &WATCH)?;
            // A cross-site page must not open the feed with our cookie.
            gate::require_own_origin(facts)?;
            if !header(&req, "Upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket")) {
                return Err(EdgeError::UpgradeRequired);
            }
            job(env, &id, mode).await?;
            upgrade::<Jobs>(env, &id, super::LIVE_URL).await
        }
        JobsRoute::Results(id) => {
            let mode = gate::require(&principal, config, &WATCH)?;
            job(env, &id, mode).await?;
            let csv = ask::<Jobs, _>(env, &id, Results {})
                .await?
                .ok_or(EdgeError::JobNotFound { id: id.clone() })?;
            reply::file(
                200,
                csv.as_bytes(),
                "text/csv; charset=utf-8",
                &format!(r#"attachment; filename="{id}-results.csv""#),
            )
        }
        JobsRoute::Labels(id) => {
            let mode = gate::require(&principal, config, &PRINT)?;
            job(env, &id, mode).await?;
            labels(env, config, mode, &id, query, trace).await
        }
    }
}

fn bad_query(name: &str, value: &str) -> EdgeError {
    EdgeError::InvalidBody(api::validation::BodyError::Invalid {
        field: name.to_string(),
        reason: format!("{value:?} is not a valid value"),
    })
}

async fn create(
    req: Request,
    env: &Env,
    config: &Config,
    mode: KeyEnv,
    principal: &Principal,
) -> Result<Response, EdgeError> {
    let body = body_bytes(&req).await;
    if body.len() > MAX_BODY_BYTES {
        return Err(EdgeError::BodyTooLarge);
    }
    let request: CreateJob = parse_json(&body).map_err(EdgeError::InvalidBody)?;
    request.check().map_err(request_error)?;
    let Principal::User { session, .. } = principal else {
        return Err(EdgeError::SignInRequired(
            crate::errors::SignInReason::NoSession,
        ));
    };
    let id = format!("job_{}", random_hex(12)?);
    let job = ask::<Jobs, _>(
        env,
        &id,
        Create {
            id: id.clone(),
            request,
            mode,
            created_by: session.user.clone(),
            // The pace starts from the limit this isolate last saw for quotes.
            rates_limit: with_budgets(|b| b.limit_seen(mode, EndpointId::GetRates)),
            rates_share: config.batch_rates_share,
            max_chunk_rows: config.batch_max_chunk_rows,
        },
    )
    .await?;
    reply::json(201, &job, &[])
}

/// One merged PDF: `?part=N` (100 labels each, row order, 1-based), or
/// `?chunk=N` for one chunk's (its first 100 with `part`).
async fn labels(
    env: &Env,
    config: &Config,
    mode: KeyEnv,
    id: &str,
    query: Option<&str>,
    trace: &mut Trace,
) -> Result<Response, EdgeError> {
    let param = |name: &str| -> Result<Option<u32>, EdgeError> {
        query_param(query, name)
            .map(|v| {
                v.parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| bad_query(name, &v))
            })
            .transpose()
    };
    let part = param("part")?.unwrap_or(1);
    let chunk = param("chunk")?;
    let sources = ask::<Jobs, _>(env, id, Labels { chunk, part })
        .await?
        .ok_or(EdgeError::JobNotFound { id: id.to_string() })?;
    if sources.is_empty() {
        return Err(EdgeError::JobLabelsNone { part });
    }
    let keys = config.keys_for(mode)?;
    let (key, _) = control::active_key(env, keys).await;
    let mut pdfs = Vec::with_capacity(sources.len().min(LABELS_PER_PDF));
    for (reference, url) in &sources {
        let source = pdf_source(url, &config.upstream)?;
        let bytes = send::bytes(
            source.url,
            source.with_key.then(|| key.expose()),
            "application/pdf",
            config.upstream_timeout_ms,
            trace,
        )
        .await
        .map_err(|_| EdgeError::JobLabelPdf {
            reference: reference.clone(),
        })?;
        pdfs.push(bytes);
    }
    let merged = super::pdf::merge(&pdfs).map_err(|e| EdgeError::JobLabelPdf {
        reference: sources
            .get(e.label)
            .map(|(r, _)| r.clone())
            .unwrap_or_default(),
    })?;
    let name = match chunk {
        Some(c) => format!("{id}-chunk-{c}-part-{part}.pdf"),
        None => format!("{id}-labels-{part}.pdf"),
    };
    reply::file(
        200,
        &merged,
        "application/pdf",
        &format!(r#"attachment; filename="{name}""#),
    )
}
