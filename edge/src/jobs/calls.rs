//! A job's upstream calls: each engine `Call` made through the Worker's one
//! upstream path (`upstream::call`) with the key of the job's mode, and
//! answered in that call's own type.

use api::batches::{Batch, CreateBatchRequest, ResultsPage};
use api::{ApiError, ErrorCode, ErrorEnvelope, KeyEnv, Rate, RatesRequest, RatesResponse, Wallet};
use domain::errors::Failure;
use domain::errors::Internal;
use domain::upstream::UpstreamError;
use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use worker::Env;

use crate::error::EdgeError;
use crate::upstream;
use domain::config::Config;
use domain::jobs::engine::{Answer, Call, Outcome};
use domain::upstream::budget::Window;
use domain::upstream::proxy;
use platform::Trace;
use platform::send::Reading;

/// The buy's body: `{}` (the interface shows none).
#[derive(Serialize)]
struct Empty {}

const NO_BODY: Option<&()> = None;

/// An upstream failure as the job sees it: no clear answer (a write's
/// outcome unknown), or a certainty that nothing was sent.
fn failure<T>(e: impl Into<EdgeError>, request_id: &str) -> Answer<T> {
    let e = e.into();
    let error = e.to_api_error(request_id);
    match e {
        EdgeError::Upstream(UpstreamError::Unreachable { .. } | UpstreamError::Timeout { .. }) => {
            Answer::Failed(error)
        }
        _ => Answer::Refused(error),
    }
}

/// `call` never sent, for a reason known before it (no key for the mode,
/// settings that do not parse): refused in its own type.
pub(crate) fn unsent(call: &Call, e: EdgeError, request_id: &str) -> Outcome {
    match call {
        Call::Quote { row, .. } => Outcome::Quoted {
            row: *row,
            answer: failure(e, request_id),
        },
        Call::ReadWallet { chunk } => Outcome::Wallet {
            chunk: *chunk,
            answer: failure(e, request_id),
        },
        Call::CreateBatch { chunk, .. } => Outcome::Created {
            chunk: *chunk,
            answer: failure(e, request_id),
        },
        Call::BuyBatch { chunk, .. } => Outcome::Bought {
            chunk: *chunk,
            answer: failure(e, request_id),
        },
        Call::ReadBatch { chunk, .. } => Outcome::Read {
            chunk: *chunk,
            answer: failure(e, request_id),
        },
    }
}

/// Who calls: the Worker's settings and the job's mode.
pub(crate) struct Caller<'a> {
    pub env: &'a Env,
    pub config: &'a Config,
    pub mode: KeyEnv,
}

impl Caller<'_> {
    /// One v1 call: its answer in the call's own type, and the budget it reported.
    async fn exchange<T: DeserializeOwned, B: Serialize>(
        &self,
        method: &str,
        path: &str,
        query: Option<&str>,
        body: Option<&B>,
        request_id: &str,
    ) -> (Answer<T>, Option<Window>) {
        let body = match body.map(serde_json::to_vec).transpose() {
            Ok(body) => body.unwrap_or_default(),
            Err(_) => {
                let error = Internal {
                    what: "a job's request body",
                };
                return (failure(error, request_id), None);
            }
        };
        let forward = match proxy::plan(
            method,
            &format!("/api{path}"),
            query,
            &self.config.upstream.url,
        ) {
            Ok(f) => f,
            Err(e) => return (failure(e, request_id), None),
        };
        let mut trace = Trace::default();
        let called = match upstream::call(
            self.env,
            self.config,
            self.mode,
            &forward,
            &body,
            Reading::Whole,
            &mut trace,
        )
        .await
        {
            Ok(called) => called,
            Err(e) => return (failure(e, request_id), None),
        };
        let window = called.window();
        let stored = match called.read(self.env).await {
            Ok(stored) => stored,
            Err(e) => return (failure(e, request_id), window),
        };
        let status = stored.status;
        let answer = match serde_json::from_str::<T>(&stored.body) {
            // A 503 of the rates call (some carriers down) still carries rates.
            Ok(value) if status < 300 || status == 503 => Answer::Ok(value),
            Err(e) if status < 300 => Answer::Failed(ApiError::new(
                ErrorCode::EdgeUpstreamUnreachable,
                format!("The service's answer could not be read: {e}."),
                "The job stops here; contact support with this request id.",
                request_id,
            )),
            _ => {
                let error = serde_json::from_str::<ErrorEnvelope>(&stored.body)
                    .map(|e| e.error)
                    .unwrap_or_else(|_| {
                        ApiError::new(
                            ErrorCode::EdgeUpstreamUnreachable,
                            format!("The service answered {status} without an error body."),
                            "Try again later.",
                            request_id,
                        )
                    });
                let retry_after = stored
                    .header("retry-after")
                    .and_then(|v| v.parse::<u64>().ok());
                match status {
                    429 => Answer::RateLimited {
                        retry_after: retry_after.or(error.retry_after_seconds).unwrap_or(1),
                    },
                    400..=499 => Answer::Refused(error),
                    _ => Answer::Failed(error),
                }
            }
        };
        (answer, window)
    }

    /// Quotes, reading the rates of a 503 (some carriers down) as rates.
    pub async fn quote(
        &self,
        request: &RatesRequest,
        request_id: &str,
    ) -> (Answer<Vec<Rate>>, Option<Window>) {
        let (answer, window) = self
            .exchange::<RatesResponse, _>("POST", "/v1/rates", None, Some(request), request_id)
            .await;
        let answer = match answer {
            // Every carrier down: no rate to choose; the row is tried again.
            Answer::Ok(RatesResponse {
                rates,
                error: Some(e),
            }) if rates.is_empty() => Answer::Failed(e),
            Answer::Ok(r) => Answer::Ok(r.rates),
            Answer::Refused(e) => Answer::Refused(e),
            Answer::RateLimited { retry_after } => Answer::RateLimited { retry_after },
            Answer::Failed(e) => Answer::Failed(e),
        };
        (answer, window)
    }

    /// Makes `call`: its outcome, and the rates window a quote reported.
    pub async fn call(&self, call: &Call, request_id: &str) -> (Outcome, Option<Window>) {
        match call {
            Call::Quote { row, request } => {
                let (answer, window) = self.quote(request, request_id).await;
                (Outcome::Quoted { row: *row, answer }, window)
            }
            Call::ReadWallet { chunk } => {
                let (answer, _) = self
                    .exchange::<Wallet, _>("GET", "/v1/wallet", None, NO_BODY, request_id)
                    .await;
                (
                    Outcome::Wallet {
                        chunk: *chunk,
                        answer,
                    },
                    None,
                )
            }
            Call::CreateBatch { chunk, items } => {
                let body = CreateBatchRequest {
                    items: items.clone(),
                };
                let (answer, _) = self
                    .exchange::<Batch, _>("POST", "/v1/batches", None, Some(&body), request_id)
                    .await;
                (
                    Outcome::Created {
                        chunk: *chunk,
                        answer,
                    },
                    None,
                )
            }
            Call::BuyBatch { chunk, batch_id } => {
                let path = format!("/v1/batches/{batch_id}/buy");
                let (answer, _) = self
                    .exchange::<IgnoredAny, _>("POST", &path, None, Some(&Empty {}), request_id)
                    .await;
                let answer = match answer {
                    Answer::Ok(_) => Answer::Ok(()),
                    Answer::Refused(e) => Answer::Refused(e),
                    Answer::RateLimited { retry_after } => Answer::RateLimited { retry_after },
                    Answer::Failed(e) => Answer::Failed(e),
                };
                (
                    Outcome::Bought {
                        chunk: *chunk,
                        answer,
                    },
                    None,
                )
            }
            Call::ReadBatch {
                chunk,
                batch_id,
                offset,
            } => {
                let query = ResultsPage {
                    offset: *offset,
                    limit: api::batches::MAX_RESULTS_LIMIT,
                }
                .to_query();
                let path = format!("/v1/batches/{batch_id}");
                let (answer, _) = self
                    .exchange::<Batch, _>("GET", &path, Some(&query), NO_BODY, request_id)
                    .await;
                (
                    Outcome::Read {
                        chunk: *chunk,
                        answer,
                    },
                    None,
                )
            }
        }
    }
}
