//! A purchase through its record (`PurchaseRecords`): never twice upstream.

use domain::errors::Failure;
use domain::purchases::PurchaseError;
use domain::upstream::UpstreamError;
pub(crate) mod records;

use crate::error::EdgeError;
use crate::upstream;
use api::KeyEnv;
use domain::config::Config;
use domain::purchases::{Begin, BeginCall, FinishCall, Purchases, check_key};
use domain::upstream::StoredResponse;
use domain::upstream::proxy::Forward;
use platform::Trace;
use platform::objects::ask;
use platform::send::Reading;
use worker::Env;

/// One purchase request, checked and ready to send.
pub(crate) struct Purchase<'a> {
    pub forward: &'a Forward,
    pub mode: KeyEnv,
    pub body: &'a [u8],
    /// The request's `Idempotency-Key` header, if any.
    pub idempotency_key: Option<String>,
}

impl Purchase<'_> {
    /// The upstream answer and whether it is a replay of the first one.
    pub(crate) async fn run(
        self,
        env: &Env,
        config: &Config,
        request_id: &str,
        trace: &mut Trace,
    ) -> Result<(StoredResponse, bool), EdgeError> {
        let idem_key = check_key(self.idempotency_key.as_deref())?;
        let name = domain::orgs::object_name(
            &config.org,
            domain::orgs::Named::Purchase {
                mode: self.mode,
                key: idem_key,
            },
        );
        let method = self.forward.endpoint.method.as_str();
        let path = self
            .forward
            .url
            .strip_prefix(&config.upstream.url)
            .unwrap_or(&self.forward.url);
        let fingerprint = domain::purchases::fingerprint(method, path, self.body);
        let begin = BeginCall {
            fingerprint: fingerprint.clone(),
        };
        match ask::<Purchases, _>(env, &name, begin).await? {
            Begin::Replay { response } => Ok((response, true)),
            Begin::InProgress => Err(PurchaseError::InProgress.into()),
            Begin::KeyReused => Err(PurchaseError::KeyReused.into()),
            Begin::Unreadable => Err(PurchaseError::RecordUnreadable.into()),
            Begin::OutcomeUnknown => Err(UpstreamError::Unreachable {
                outcome_unknown: true,
            }
            .into()),
            Begin::Proceed => {
                let result = match upstream::call(
                    env,
                    config,
                    self.mode,
                    self.forward,
                    self.body,
                    Reading::Whole,
                    trace,
                )
                .await
                {
                    Ok(called) => called.read(env).await,
                    Err(e) => Err(e),
                };
                // An unanswered purchase is remembered as such, so a repeat cannot buy again.
                let stored = match &result {
                    Ok(response) => response.clone(),
                    // Replays carry the first answer's request id, in body and header alike.
                    Err(err) => StoredResponse {
                        status: err.status(),
                        headers: vec![
                            ("content-type".into(), "application/json".into()),
                            ("x-request-id".into(), request_id.into()),
                        ],
                        body: err.to_body(request_id),
                    },
                };
                let finish = FinishCall {
                    fingerprint,
                    response: stored,
                };
                // If the record misses the outcome, it times out into "outcome
                // unknown": still never twice.
                if let Err(e) = ask::<Purchases, _>(env, &name, finish).await {
                    worker::console_error!("a purchase's outcome was not recorded: {}", e.code());
                }
                result.map(|r| (r, false))
            }
        }
    }
}
