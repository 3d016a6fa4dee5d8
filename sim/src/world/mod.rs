//! The simulator's state and the v1 behaviour that changes it, one file per
//! resource. Everything is a function of the simulated `now`, passed in, so
//! the clock control drives expiry, limits, voids, trackers, batches and
//! webhook retries alike. `World`'s fields are private: handlers and the
//! control surface go through its methods.

mod accounts;
mod batches;
mod keys;
mod labels;
mod rates;
mod trackers;
mod webhooks;

use std::collections::HashMap;

use api::endpoints::EndpointId;
use api::{ErrorCode, KeyEnv, Scope};

use crate::clock::id_hex;
use crate::errors::SimError;

pub use accounts::{Account, AccountSummary, CarrierAccountRecord};
pub use batches::{BATCH_LABELS_PER_SECOND, BatchRecord, MAX_ITEM_CENTS};
pub use keys::{Budget, KeyRecord, window as limit_window};
pub use labels::{LabelRecord, VOID_CONFIRM_SECONDS};
pub use rates::{Offer, QUOTE_RETENTION_SECONDS, QuoteRecord, RateRecord};
pub use trackers::TrackerRecord;
pub use webhooks::{DeliveryRecord, DueDelivery};

pub const DEFAULT_ACCOUNT: &str = "acct_demo";
/// A sandbox wallet is unlimited; it shows this balance and never changes.
pub const SANDBOX_BALANCE_CENTS: i64 = 100_000_000;

/// Startup settings, kept so `/__sim/reset` can return to them.
#[derive(Debug, Clone)]
pub struct Config {
    pub live_key: String,
    pub sandbox_key: String,
    pub webhook_url: Option<String>,
    pub webhook_secret: Option<String>,
    pub balance_cents: i64,
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Faults {
    #[serde(default)]
    pub carriers_down: Vec<String>,
    #[serde(default)]
    pub address_service_down: bool,
    #[serde(default)]
    pub label_creation_fails: bool,
    /// Carriers whose label purchase answers `CARRIER.ERROR.UNKNOWN`.
    #[serde(default)]
    pub carrier_errors: Vec<String>,
    /// Every /v1 answer is held this long *after* the request took effect:
    /// a slow service whose purchases still happen (at most 60,000).
    #[serde(default)]
    pub latency_ms: u64,
    /// When set, only these endpoints (`METHOD /pattern` as in
    /// `api::ENDPOINTS`, e.g. `POST /v1/batches`) are slow.
    #[serde(default)]
    pub latency_endpoints: Vec<String>,
}

impl Faults {
    /// The latency of an answer of `endpoint`, if any.
    pub fn latency_for(&self, endpoint: Option<&api::Endpoint>) -> u64 {
        let named = |e: &api::Endpoint| {
            self.latency_endpoints
                .iter()
                .any(|n| *n == format!("{} {}", e.method.as_str(), e.pattern))
        };
        match endpoint {
            _ if self.latency_endpoints.is_empty() => self.latency_ms,
            Some(e) if named(e) => self.latency_ms,
            _ => 0,
        }
    }
}

#[derive(Debug)]
pub struct World {
    config: Config,
    base_url: String,
    keys: HashMap<String, KeyRecord>,
    accounts: HashMap<String, Account>,
    /// Boxed: when the table grows it moves 16 bytes per quote, not the
    /// record (unboxed, its doubling near 900,000 quotes, which one
    /// benchmark makes, held every call for 1.1 s: tests/bench/sim.sh).
    quotes: HashMap<u64, Box<QuoteRecord>>,
    /// Tracking number → label id.
    by_tracking_number: HashMap<String, String>,
    last_quote_prune: u64,
    labels: HashMap<String, LabelRecord>,
    trackers: HashMap<String, TrackerRecord>,
    batches: HashMap<String, BatchRecord>,
    deliveries: Vec<DeliveryRecord>,
    /// (key, endpoint) → (window start, count).
    windows: HashMap<(String, EndpointId), (u64, u32)>,
    faults: Faults,
    /// Indices into `deliveries` of the attempts still pending.
    pending_deliveries: Vec<usize>,
    /// Labels with a void requested and not yet confirmed.
    pending_voids: Vec<String>,
    /// Bumped by every reset.
    generation: u64,
    seq: u64,
}

impl World {
    pub fn new(config: Config, base_url: String) -> World {
        let mut world = World {
            config,
            base_url,
            keys: HashMap::new(),
            accounts: HashMap::new(),
            quotes: HashMap::new(),
            by_tracking_number: HashMap::new(),
            last_quote_prune: 0,
            labels: HashMap::new(),
            trackers: HashMap::new(),
            batches: HashMap::new(),
            deliveries: Vec::new(),
            windows: HashMap::new(),
            faults: Faults::default(),
            pending_deliveries: Vec::new(),
            pending_voids: Vec::new(),
            generation: 0,
            seq: 0,
        };
        world.reset();
        world
    }

    /// Back to the startup state: demo keys, demo account, nothing else.
    pub fn reset(&mut self) {
        let c = self.config.clone();
        self.keys.clear();
        self.accounts.clear();
        self.quotes.clear();
        self.by_tracking_number.clear();
        self.labels.clear();
        self.trackers.clear();
        self.batches.clear();
        self.deliveries.clear();
        self.pending_deliveries.clear();
        self.pending_voids.clear();
        self.generation += 1;
        self.windows.clear();
        self.faults = Faults::default();
        let mut account = accounts::new_account(c.balance_cents);
        if let (Some(url), Some(secret)) = (c.webhook_url, c.webhook_secret) {
            account.webhook = Some((url, secret));
        }
        self.accounts.insert(DEFAULT_ACCOUNT.to_string(), account);
        for (key, env) in [(c.live_key, KeyEnv::Live), (c.sandbox_key, KeyEnv::Sandbox)] {
            self.keys.insert(
                key,
                KeyRecord {
                    env,
                    account: DEFAULT_ACCOUNT.into(),
                    scopes: Scope::ALL.to_vec(),
                    expires_at: None,
                    revoked: false,
                    unlimited: false,
                    limits: HashMap::new(),
                    calls: 0,
                },
            );
        }
    }

    pub fn next_id(&mut self, prefix: &str) -> String {
        self.seq += 1;
        format!("{prefix}_{:06x}{}", self.seq, &id_hex(5))
    }

    /// What time alone changes, up to `now`: batch labels that are due,
    /// confirmed voids and their refunds.
    pub fn tick(&mut self, now: u64) {
        self.advance_all_batches(now);
        self.settle_voids(now);
    }

    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    pub fn set_faults(&mut self, faults: Faults) {
        self.faults = faults;
    }
}

fn sandbox_in_production(kind: &str, id: &str) -> SimError {
    SimError::new(
        ErrorCode::AuthKeySandboxInProduction,
        format!("The {kind} {id} belongs to live mode and cannot be used with a sandbox key."),
        "Use a live key (svc_live_) for live resources.",
    )
}

/// Live and sandbox are separate: a sandbox key touching a live resource is
/// `AUTH.KEY.SANDBOX_IN_PRODUCTION`; a live key does not see sandbox resources.
fn check_mode(
    resource: KeyEnv,
    caller: KeyEnv,
    kind: &str,
    id: &str,
    not_found: impl FnOnce() -> SimError,
) -> Result<(), SimError> {
    match (resource, caller) {
        (KeyEnv::Live, KeyEnv::Sandbox) => Err(sandbox_in_production(kind, id)),
        (KeyEnv::Sandbox, KeyEnv::Live) => Err(not_found()),
        _ => Ok(()),
    }
}
