//! A stateful simulator of the v1 shipping interface. `app` builds the
//! router (v1 endpoints behind the auth/limit pipeline, the `/__sim` control
//! surface, the sample label PDF); `start` binds it and starts the webhook
//! dispatcher. See README.md for what it models and what it does not.

pub mod body;
pub mod clock;
pub mod control;
pub mod errors;
pub mod http;
pub mod pricing;
pub mod v1;
pub mod webhooks;
pub mod world;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use tokio::net::TcpListener;
use tokio::sync::Notify;

use crate::clock::{Clock, id_hex, random_hex};
use crate::errors::SimError;
use crate::world::{Config, World};
use api::{ErrorCode, KeyEnv, Scope};

pub use crate::world::Config as SimConfig;

pub struct Sim {
    pub world: Mutex<World>,
    pub clock: Clock,
    /// Wakes the webhook dispatcher when a delivery may have become due.
    pub deliveries_changed: Notify,
}

impl Sim {
    pub fn new(config: Config, base_url: String) -> Arc<Sim> {
        Arc::new(Sim {
            world: Mutex::new(World::new(config, base_url)),
            clock: Clock::default(),
            deliveries_changed: Notify::new(),
        })
    }

    /// The state, locked. A panic while it was held (there should be none)
    /// must not turn every later request into a dropped connection.
    pub fn world(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A demo configuration with fresh random keys.
pub fn random_config() -> Config {
    Config {
        live_key: format!("svc_live_{}", random_hex(16)),
        sandbox_key: format!("svc_test_{}", random_hex(16)),
        webhook_url: None,
        webhook_secret: None,
        balance_cents: 10_000,
    }
}

pub fn app(sim: Arc<Sim>) -> Router {
    let v1 = Router::new()
        .route("/v1/addresses/validate", post(v1::validate_address))
        .route("/v1/rates", post(v1::rates))
        .route("/v1/labels", post(v1::buy_label))
        .route("/v1/labels/{id}", get(v1::get_label).delete(v1::void_label))
        .route("/v1/trackers", post(v1::create_tracker))
        .route("/v1/trackers/{id}", get(v1::get_tracker))
        .route("/v1/carrier-accounts", get(v1::carrier_accounts))
        .route("/v1/batches", post(v1::create_batch))
        .route("/v1/batches/{id}", get(v1::get_batch))
        .route("/v1/batches/{id}/buy", post(v1::buy_batch))
        .route("/v1/wallet", get(v1::wallet))
        .route("/v1/webhooks/deliveries", get(v1::deliveries));
    let control = Router::new()
        .route("/__sim/reset", post(control::reset))
        .route("/__sim/keys", post(control::create_key))
        .route("/__sim/keys/{key}", get(control::get_key))
        .route("/__sim/keys/{key}/revoke", post(control::revoke_key))
        .route("/__sim/clock/advance", post(control::advance_clock))
        .route("/__sim/clock/freeze", post(control::freeze_clock))
        .route("/__sim/clock/set", post(control::set_clock))
        .route(
            "/__sim/accounts/{account}/label-sums",
            get(control::label_sums),
        )
        .route("/__sim/accounts/{account}", get(control::get_account))
        .route("/__sim/accounts/{account}/wallet", put(control::set_wallet))
        .route(
            "/__sim/accounts/{account}/webhook",
            put(control::set_webhook),
        )
        .route(
            "/__sim/accounts/{account}/carrier-accounts",
            post(control::connect_carrier_account),
        )
        .route(
            "/__sim/carrier-accounts/{id}",
            put(control::update_carrier_account),
        )
        .route("/__sim/labels/{id}/scan", post(control::scan_label))
        .route("/__sim/faults", put(control::set_faults));
    Router::new()
        .merge(v1)
        .merge(control)
        .route("/samples/label.pdf", get(label_pdf))
        .fallback(not_found)
        // The one body cap, applied by `body::JsonBody` (axum's default is 2 MB).
        .layer(axum::extract::DefaultBodyLimit::max(
            api::validation::MAX_BODY_BYTES,
        ))
        .layer(axum::middleware::from_fn(stamp_outside_v1))
        // Outermost: every /v1 request (known path or not) is authenticated first.
        .layer(axum::middleware::from_fn_with_state(
            sim.clone(),
            http::v1_pipeline,
        ))
        .with_state(sim)
}

async fn not_found(req: Request) -> SimError {
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    SimError::new(
        ErrorCode::RoutePathNotFound,
        format!("There is no endpoint at {method} {path}."),
        "The v1 endpoints start with /v1; the control surface with /__sim.",
    )
}

/// Outside /v1 (control, samples, unknown paths) every error still gets the
/// envelope and a request id, including axum's own rejections (405 and the like).
async fn stamp_outside_v1(req: Request, next: axum::middleware::Next) -> Response {
    if http::is_v1(req.uri().path()) {
        return next.run(req).await; // the v1 pipeline stamps these
    }
    let mut response = next.run(req).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if (status.is_client_error() || status.is_server_error())
        && !is_json
        && response.extensions().get::<SimError>().is_none()
    {
        let (code, message, suggestion) = if status.as_u16() == 405 {
            (
                ErrorCode::RouteMethodNotAllowed,
                "This method is not allowed on this path.",
                "See sim/README.md for the control surface.",
            )
        } else {
            (
                ErrorCode::SimControlInvalid,
                "The request could not be read.",
                "Send a JSON body matching the documented shape.",
            )
        };
        // The table's status, except that axum's own rejection status (415,
        // 422...) is kept: it says more about what was wrong.
        let mut error = SimError::new(code, message, suggestion);
        error.status = status.as_u16();
        response = error.into_response();
    }
    if response.headers().get("x-request-id").is_none() {
        http::finish(&mut response, &format!("req_{}", id_hex(12)));
    }
    response
}

/// Label PDFs (`label_url`), one sample PDF standing in for every label. A
/// sandbox label's is public, as the interface says ("in sandbox it points
/// to a sample PDF"); a live label's needs a key of its account with
/// `labels:read` ("downloading PDFs").
async fn label_pdf(State(sim): State<Arc<Sim>>, req: Request) -> Response {
    let label = req.uri().query().and_then(|q| {
        q.split('&')
            .find_map(|pair| pair.strip_prefix("label="))
            .map(str::to_string)
    });
    let allowed = || -> Result<(), SimError> {
        let world = sim.world();
        let not_found = || {
            SimError::new(
                ErrorCode::LabelNotFound,
                "There is no label PDF at this address.",
                "Use the label_url of a label you bought with this key's account.",
            )
        };
        let Some(id) = label else {
            return Err(not_found());
        };
        let record = world.label(&id).ok_or_else(not_found)?;
        if record.env == KeyEnv::Sandbox {
            return Ok(());
        }
        let (_, key) = http::bearer_key(&world, req.headers(), sim.clock.now())?;
        if key.account != record.account || key.env != record.env {
            return Err(not_found());
        }
        if !key.scopes.contains(&Scope::LabelsRead) {
            return Err(SimError::insufficient_scope(
                Scope::LabelsRead,
                "downloading a label PDF",
                &key.scopes,
            ));
        }
        Ok(())
    };
    match allowed() {
        Ok(()) => ([(header::CONTENT_TYPE, "application/pdf")], SAMPLE_PDF).into_response(),
        Err(e) => e.into_response(),
    }
}

const SAMPLE_PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 288 432]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n4 0 obj<</Length 60>>stream\nBT /F1 18 Tf 36 380 Td (SAMPLE LABEL - NOT MAILABLE) Tj ET\nendstream endobj\n5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";

/// Binds `addr` (port 0 picks one), starts serving and the webhook
/// dispatcher, and returns the bound address.
pub async fn start(addr: SocketAddr, config: Config) -> std::io::Result<(SocketAddr, Arc<Sim>)> {
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let sim = Sim::new(config, format!("http://{bound}"));
    tokio::spawn(webhooks::run_dispatcher(sim.clone()));
    let router = app(sim.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Ok((bound, sim))
}
