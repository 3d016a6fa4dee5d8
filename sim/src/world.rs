//! The simulator's state and the v1 behaviour that changes it. Everything is
//! a function of the simulated `now`, passed in, so the clock control drives
//! expiry, limits, voids, trackers, batches and webhook retries alike.

use std::collections::HashMap;

use api::endpoints::EndpointId;
use api::rates::RATE_VALIDITY_SECONDS;
use api::webhooks::{DeliveryStatus, RETRY_SCHEDULE_SECONDS, WebhookDelivery};
use api::{
    AccountType, Address, AutoReload, Batch, BatchItem, BatchState, CardState, CarrierAccount,
    CarrierAccountStatus, ErrorCode, KeyEnv, Label, LabelDetails, Parcel, Rate, Scope, Tracker,
    TrackerEvent, TrackerStatus, VoidStatus, Wallet,
};

use crate::clock::{date, id_hex};
use crate::errors::SimError;
use crate::pricing::{self, Problem, SERVICES};

pub const DEFAULT_ACCOUNT: &str = "acct_demo";
/// A sandbox wallet is unlimited; it shows this balance and never changes.
pub const SANDBOX_BALANCE_CENTS: i64 = 100_000_000;
/// The carrier confirms a requested void after this long, then refunds.
pub const VOID_CONFIRM_SECONDS: u64 = 300;
/// Batch labels are made at this pace once `buy` is called.
pub const BATCH_LABELS_PER_SECOND: u64 = 20;
/// Largest `rate_cents` a batch item may carry ($100,000).
pub const MAX_ITEM_CENTS: i64 = 10_000_000;

/// Startup settings, kept so `/__sim/reset` can return to them.
#[derive(Debug, Clone)]
pub struct Config {
    pub live_key: String,
    pub sandbox_key: String,
    pub webhook_url: Option<String>,
    pub webhook_secret: Option<String>,
    pub balance_cents: i64,
}

#[derive(Debug, Clone)]
pub struct KeyRecord {
    pub env: KeyEnv,
    pub account: String,
    pub scopes: Vec<Scope>,
    pub expires_at: Option<u64>,
    pub revoked: bool,
    /// Benchmark keys: counted and reported, never refused for the limit.
    pub unlimited: bool,
}

#[derive(Debug, Clone)]
pub struct Account {
    pub balance_cents: i64,
    pub card: CardState,
    pub auto_reload: Option<AutoReload>,
    pub webhook: Option<(String, String)>,
    pub carrier_accounts: Vec<CarrierAccountRecord>,
}

#[derive(Debug, Clone)]
pub struct CarrierAccountRecord {
    pub account: CarrierAccount,
    pub connected: bool,
}

/// One `POST /v1/rates` answer, kept compactly: only what a purchase of one
/// of its rates needs. A rate id is `rate_<quote seq>_<offer index>_<nonce>`,
/// so a quote costs one record, not one per rate.
#[derive(Debug, Clone)]
pub struct QuoteRecord {
    pub account: String,
    pub env: KeyEnv,
    pub quoted_at: u64,
    pub to: Address,
    pub parcel: Parcel,
    pub nonce: u32,
    pub offers: Vec<Offer>,
}

#[derive(Debug, Clone)]
pub struct Offer {
    /// Index into `pricing::SERVICES`.
    pub service: usize,
    pub rate_cents: i64,
    pub byoa_account: Option<String>,
}

/// A quoted rate as a purchase sees it.
#[derive(Debug, Clone)]
pub struct RateRecord {
    pub account: String,
    pub env: KeyEnv,
    pub quoted_at: u64,
    pub to: Address,
    pub parcel: Parcel,
    pub service: &'static pricing::Service,
    pub rate_cents: i64,
    pub byoa_account: Option<String>,
}

/// Quotes are forgotten this long after their rates expired (then their
/// ids answer `RATE.NOT_FOUND` instead of `RATE.EXPIRED`).
pub const QUOTE_RETENTION_SECONDS: u64 = 24 * 3600;

#[derive(Debug, Clone)]
pub struct LabelRecord {
    pub label: Label,
    pub account: String,
    pub env: KeyEnv,
    pub created_at: u64,
    pub scanned_at: Option<u64>,
    pub void_requested_at: Option<u64>,
    pub refunded: bool,
}

#[derive(Debug, Clone)]
pub struct TrackerRecord {
    pub id: String,
    pub account: String,
    pub env: KeyEnv,
    pub tracking_number: String,
    pub carrier: String,
    pub label_id: Option<String>,
}

#[derive(Debug, Clone)]
pub struct BatchRecord {
    pub id: String,
    pub account: String,
    pub env: KeyEnv,
    pub items: Vec<BatchItem>,
    pub total_cost_cents: i64,
    pub balance_after_cents: i64,
    pub started_at: Option<u64>,
    pub label_ids: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct DeliveryRecord {
    pub delivery: WebhookDelivery,
    pub account: String,
    pub body: Vec<u8>,
    pub secret: String,
    /// Due time of a pending attempt.
    pub due_at: u64,
    /// Handed to the dispatcher and not finished yet.
    pub in_flight: bool,
}

/// A delivery attempt handed to the dispatcher.
#[derive(Debug, Clone)]
pub struct DueDelivery {
    /// The world's generation when it was handed out; a reset in between
    /// makes the outcome irrelevant.
    pub generation: u64,
    pub index: usize,
    pub url: String,
    pub body: Vec<u8>,
    pub secret: String,
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
}

#[derive(Debug)]
pub struct World {
    pub config: Config,
    pub base_url: String,
    pub keys: HashMap<String, KeyRecord>,
    pub accounts: HashMap<String, Account>,
    pub quotes: HashMap<u64, QuoteRecord>,
    /// Tracking number → label id.
    by_tracking_number: HashMap<String, String>,
    last_quote_prune: u64,
    pub labels: HashMap<String, LabelRecord>,
    pub trackers: HashMap<String, TrackerRecord>,
    pub batches: HashMap<String, BatchRecord>,
    pub deliveries: Vec<DeliveryRecord>,
    /// (key, endpoint) → (window start, count).
    pub windows: HashMap<(String, EndpointId), (u64, u32)>,
    pub faults: Faults,
    /// Indices into `deliveries` of the attempts still pending.
    pending_deliveries: Vec<usize>,
    /// Labels with a void requested and not yet confirmed.
    pending_voids: Vec<String>,
    /// Bumped by every reset.
    pub generation: u64,
    seq: u64,
}

fn new_account(balance_cents: i64) -> Account {
    Account {
        balance_cents,
        card: CardState::Ok,
        auto_reload: None,
        webhook: None,
        carrier_accounts: vec![],
    }
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
        let mut account = new_account(c.balance_cents);
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
                },
            );
        }
    }

    pub fn next_id(&mut self, prefix: &str) -> String {
        self.seq += 1;
        format!("{prefix}_{:06x}{}", self.seq, &id_hex(5))
    }

    pub fn account_mut(&mut self, id: &str) -> &mut Account {
        self.accounts
            .entry(id.to_string())
            .or_insert_with(|| new_account(0))
    }

    // ---- wallet ------------------------------------------------------------

    pub fn wallet(&mut self, account: &str, env: KeyEnv, now: u64) -> Wallet {
        self.settle_voids(now);
        let a = self.account_mut(account);
        let sandbox = env == KeyEnv::Sandbox;
        Wallet {
            balance_cents: if sandbox {
                SANDBOX_BALANCE_CENTS
            } else {
                a.balance_cents
            },
            currency: "USD".into(),
            sandbox,
            unlimited: sandbox,
            auto_reload: a.auto_reload,
            card: a.card,
        }
    }

    /// Charges a live purchase, reloading from the card when configured.
    /// Returns the balance after. Sandbox purchases are free.
    pub fn charge(&mut self, account: &str, env: KeyEnv, cost: i64) -> Result<i64, SimError> {
        if env == KeyEnv::Sandbox {
            return Ok(SANDBOX_BALANCE_CENTS);
        }
        let a = self.account_mut(account);
        if a.balance_cents < cost {
            let Some(reload) = a.auto_reload else {
                return Err(SimError::new(
                    ErrorCode::WalletInsufficientBalance,
                    format!(
                        "The wallet holds {} cents; this costs {cost} cents.",
                        a.balance_cents
                    ),
                    "Add funds to the wallet or turn on auto-reload in the dashboard.",
                ));
            };
            match a.card {
                CardState::Missing => {
                    return Err(SimError::new(
                        ErrorCode::WalletPaymentMethodMissing,
                        "Auto-reload is on but there is no card on file.",
                        "Add a card in the dashboard's billing settings, then retry.",
                    ));
                }
                CardState::Declined => {
                    return Err(SimError::new(
                        ErrorCode::WalletPaymentFailed,
                        "The card on file was declined for the auto-reload.",
                        "Update the card in the dashboard's billing settings, then retry.",
                    ));
                }
                CardState::Ok => {}
            }
            let times = reload.charges_for(a.balance_cents, cost);
            a.balance_cents = a
                .balance_cents
                .saturating_add(times.saturating_mul(reload.amount_cents.max(1)));
        }
        a.balance_cents = a.balance_cents.saturating_sub(cost);
        Ok(a.balance_cents)
    }

    // ---- rates -------------------------------------------------------------

    /// Quotes every available carrier service, cheapest first, plus BYOA
    /// rates for connected accounts. Returns the rates and the carriers down.
    pub fn quote(
        &mut self,
        account: &str,
        env: KeyEnv,
        from: &Address,
        to: &Address,
        parcel: &Parcel,
        now: u64,
    ) -> (Vec<Rate>, Vec<String>) {
        let down: Vec<String> = pricing::CARRIERS
            .iter()
            .filter(|c| {
                self.faults
                    .carriers_down
                    .iter()
                    .any(|d| d.eq_ignore_ascii_case(c))
            })
            .map(|c| c.to_string())
            .collect();
        let byoa: Vec<(String, String)> = self
            .account_mut(account)
            .carrier_accounts
            .iter()
            .filter(|c| c.connected && c.account.status == CarrierAccountStatus::Active)
            .map(|c| (c.account.carrier.clone(), c.account.id.clone()))
            .collect();
        self.seq += 1;
        let seq = self.seq;
        let nonce = u32::from_str_radix(&id_hex(4), 16).unwrap_or(0);
        let mut rates = Vec::new();
        let mut kept = Vec::new();
        for (index, s) in SERVICES
            .iter()
            .enumerate()
            .filter(|(_, s)| !down.iter().any(|d| d == s.carrier))
        {
            let cost = pricing::carrier_cost_cents(s, from, to, parcel);
            let eta = date(now + pricing::transit_days(s, from, to) * 86_400);
            let carbon = pricing::carbon_grams(s, from, to, parcel);
            let mut offers = vec![(AccountType::Platform, pricing::platform_cents(cost), None)];
            for (_, id) in byoa.iter().filter(|(carrier, _)| carrier == s.carrier) {
                offers.push((AccountType::Byoa, cost, Some(id.clone())));
            }
            for (account_type, price, byoa_account) in offers {
                rates.push(Rate {
                    id: format!("rate_{seq:x}_{:x}_{nonce:08x}", kept.len()),
                    carrier: s.carrier.into(),
                    service: s.service.into(),
                    rate_cents: price,
                    carrier_eta: eta.clone(),
                    carbon_grams: carbon,
                    account_type,
                    expires_at: Some(now + RATE_VALIDITY_SECONDS),
                });
                kept.push(Offer {
                    service: index,
                    rate_cents: price,
                    byoa_account,
                });
            }
        }
        self.quotes.insert(
            seq,
            QuoteRecord {
                account: account.into(),
                env,
                quoted_at: now,
                to: to.clone(),
                parcel: *parcel,
                nonce,
                offers: kept,
            },
        );
        self.prune_quotes(now);
        rates.sort_by(|a, b| {
            a.rate_cents
                .cmp(&b.rate_cents)
                .then_with(|| a.carrier_eta.cmp(&b.carrier_eta))
        });
        (rates, down)
    }

    /// Drops quotes long past expiry, at most once per simulated minute.
    fn prune_quotes(&mut self, now: u64) {
        if now < self.last_quote_prune + 60 {
            return;
        }
        self.last_quote_prune = now;
        self.quotes
            .retain(|_, q| q.quoted_at + RATE_VALIDITY_SECONDS + QUOTE_RETENTION_SECONDS > now);
    }

    /// The rate behind `rate_id`, if that quote is still kept.
    pub fn rate(&self, rate_id: &str) -> Option<RateRecord> {
        let mut parts = rate_id.strip_prefix("rate_")?.split('_');
        let seq = u64::from_str_radix(parts.next()?, 16).ok()?;
        let index = usize::from_str_radix(parts.next()?, 16).ok()?;
        let nonce = u32::from_str_radix(parts.next()?, 16).ok()?;
        if parts.next().is_some() {
            return None;
        }
        let q = self.quotes.get(&seq).filter(|q| q.nonce == nonce)?;
        let offer = q.offers.get(index)?;
        Some(RateRecord {
            account: q.account.clone(),
            env: q.env,
            quoted_at: q.quoted_at,
            to: q.to.clone(),
            parcel: q.parcel,
            service: &SERVICES[offer.service],
            rate_cents: offer.rate_cents,
            byoa_account: offer.byoa_account.clone(),
        })
    }

    // ---- labels ------------------------------------------------------------

    pub fn buy_label(
        &mut self,
        account: &str,
        env: KeyEnv,
        rate_id: &str,
        now: u64,
    ) -> Result<Label, SimError> {
        let not_found = || {
            SimError::new(
                ErrorCode::RateNotFound,
                format!("No rate {rate_id} exists for this account."),
                "Get fresh rates with POST /v1/rates and use one of their ids.",
            )
            .field("rate_id")
        };
        let r = self
            .rate(rate_id)
            .filter(|r| r.account == account)
            .ok_or_else(not_found)?;
        check_mode(r.env, env, "rate", rate_id, not_found)?;
        if now >= r.quoted_at + RATE_VALIDITY_SECONDS {
            return Err(SimError::new(
                ErrorCode::RateExpired,
                format!(
                    "Rate {rate_id} expired {} seconds ago; rates are valid for 15 minutes.",
                    now - r.quoted_at - RATE_VALIDITY_SECONDS
                ),
                "Get fresh rates with POST /v1/rates and buy one of those.",
            )
            .field("rate_id"));
        }
        let service = r.service;
        if r.to.street1.to_ascii_uppercase().contains("UNDELIVERABLE") {
            return Err(SimError::new(
                ErrorCode::LabelAddressUndeliverable,
                format!("{} cannot deliver to {}.", service.carrier, r.to.street1),
                "Validate the destination with POST /v1/addresses/validate and correct it.",
            )
            .field("to_address"));
        }
        match pricing::service_problem(service, &r.to, &r.parcel) {
            Some(Problem::Weight) => {
                return Err(SimError::new(
                    ErrorCode::LabelWeightExceeded,
                    format!(
                        "{} {} carries at most {} oz; the parcel weighs {} oz.",
                        service.carrier, service.service, service.max_weight_oz, r.parcel.weight_oz
                    ),
                    "Choose a carrier with a higher weight limit or split the shipment.",
                )
                .field("parcel.weight_oz"));
            }
            Some(Problem::Route) => {
                return Err(SimError::new(
                    ErrorCode::LabelServiceUnavailable,
                    format!(
                        "{} {} does not serve this route.",
                        service.carrier, service.service
                    ),
                    "Choose another service from the same rates response.",
                ));
            }
            None => {}
        }
        if let Some(byoa) = &r.byoa_account {
            let found = self
                .account_mut(account)
                .carrier_accounts
                .iter()
                .find(|c| &c.account.id == byoa)
                .cloned();
            match found {
                Some(c) if !c.connected => {
                    return Err(SimError::new(
                        ErrorCode::CarrierAccountNotFound,
                        format!("Carrier account {byoa} is no longer connected."),
                        "Reconnect the account in the dashboard or buy a platform rate.",
                    ));
                }
                Some(c) if c.account.status == CarrierAccountStatus::InvalidCredentials => {
                    return Err(SimError::new(
                        ErrorCode::CarrierAccountInvalidCredentials,
                        format!(
                            "{} rejected the credentials of carrier account {byoa}.",
                            c.account.carrier
                        ),
                        "Update the carrier account's credentials in the dashboard.",
                    ));
                }
                None => {
                    return Err(SimError::new(
                        ErrorCode::CarrierAccountNotFound,
                        format!("Carrier account {byoa} does not exist."),
                        "Buy a platform rate or connect the account again.",
                    ));
                }
                Some(_) => {}
            }
        }
        if self
            .faults
            .carrier_errors
            .iter()
            .any(|c| c.eq_ignore_ascii_case(service.carrier))
        {
            let mut e = SimError::new(
                ErrorCode::CarrierErrorUnknown,
                format!("{} returned an unexpected error.", service.carrier),
                "Try again in a few minutes or choose another carrier; nothing was charged.",
            );
            e.error.raw_carrier_error = Some("E9001: upstream timeout in label generation".into());
            return Err(e);
        }
        if self.faults.label_creation_fails {
            return Err(SimError::new(
                ErrorCode::LabelCreationFailed,
                "The label could not be created because of an unexpected error; nothing was charged.",
                "Try again; if it keeps failing, contact support with the request id.",
            ));
        }
        let balance_after = self.charge(account, env, r.rate_cents)?;
        Ok(self.create_label(
            account,
            env,
            service.carrier,
            service.service,
            r.rate_cents,
            balance_after,
            now,
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn create_label(
        &mut self,
        account: &str,
        env: KeyEnv,
        carrier: &str,
        service: &str,
        rate_cents: i64,
        balance_after: i64,
        now: u64,
    ) -> Label {
        let id = self.next_id("lbl");
        let sandbox = env == KeyEnv::Sandbox;
        let digits: String = {
            let hex = id_hex(9);
            hex.bytes().map(|b| char::from(b'0' + (b % 10))).collect()
        };
        let tracking_number = if sandbox {
            format!("9999{digits}")
        } else {
            format!("94{digits}")
        };
        let label = Label {
            id: id.clone(),
            tracking_number,
            label_url: format!("{}/samples/label.pdf?label={id}", self.base_url),
            carrier: carrier.into(),
            service: service.into(),
            rate_cents,
            sandbox,
            wallet_balance_after_cents: balance_after,
        };
        self.by_tracking_number
            .insert(label.tracking_number.clone(), id.clone());
        self.labels.insert(
            id,
            LabelRecord {
                label: label.clone(),
                account: account.into(),
                env,
                created_at: now,
                scanned_at: None,
                void_requested_at: None,
                refunded: false,
            },
        );
        self.emit_label_created(account, &label, now);
        label
    }

    /// The label as seen by `env`; settles a confirmed void (and its refund) first.
    pub fn label_record(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<&LabelRecord, SimError> {
        let not_found = || {
            SimError::new(
                ErrorCode::LabelNotFound,
                format!("No label {id} exists for this account."),
                "Check the label id; labels bought with the other key type are separate.",
            )
        };
        self.settle_voids(now);
        let record = self
            .labels
            .get(id)
            .filter(|l| l.account == account)
            .ok_or_else(not_found)?;
        check_mode(record.env, env, "label", id, not_found)?;
        Ok(record)
    }

    /// Confirms the voids whose carrier confirmation is due by `now`, and
    /// refunds live ones to their wallet.
    pub fn settle_voids(&mut self, now: u64) {
        if self.pending_voids.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending_voids);
        for id in pending {
            let Some(r) = self.labels.get_mut(&id) else {
                continue;
            };
            match r.void_requested_at {
                Some(at) if now >= at + VOID_CONFIRM_SECONDS && !r.refunded => {
                    r.refunded = true;
                    if r.env == KeyEnv::Live {
                        let (account, cents) = (r.account.clone(), r.label.rate_cents);
                        self.account_mut(&account).balance_cents += cents;
                    }
                }
                _ => self.pending_voids.push(id),
            }
        }
    }

    pub fn label_details(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<LabelDetails, SimError> {
        let tracker_id = self
            .trackers
            .values()
            .find(|t| t.label_id.as_deref() == Some(id))
            .map(|t| t.id.clone());
        let r = self.label_record(account, env, id, now)?;
        Ok(LabelDetails {
            label: r.label.clone(),
            void_status: void_status(r, now),
            scanned: r.scanned_at.is_some_and(|at| at <= now),
            created_at: r.created_at,
            tracker_id,
        })
    }

    pub fn void_label(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<VoidStatus, SimError> {
        let r = self.label_record(account, env, id, now)?;
        if r.void_requested_at.is_some() {
            return Err(SimError::new(
                ErrorCode::LabelVoidAlreadyRequested,
                format!("A void of label {id} was already requested."),
                "Nothing to do: read the label with GET /v1/labels/{id} to follow the void.",
            ));
        }
        if r.scanned_at.is_some() {
            return Err(SimError::new(
                ErrorCode::LabelVoidIneligible,
                format!(
                    "The carrier has already scanned the package of label {id}; it can no longer be voided."
                ),
                "Contact the carrier to intercept the package, or ship it.",
            ));
        }
        let r = self.labels.get_mut(id).expect("checked above");
        r.void_requested_at = Some(now);
        let status = void_status(r, now);
        self.pending_voids.push(id.to_string());
        Ok(status)
    }

    // ---- trackers ----------------------------------------------------------

    /// Registers tracking. A number of this account's labels links the
    /// tracker to the label (live and sandbox are kept apart as for labels);
    /// any other number is tracked with status `unknown`.
    pub fn create_tracker(
        &mut self,
        account: &str,
        env: KeyEnv,
        tracking_number: &str,
        carrier: Option<&str>,
    ) -> Result<TrackerRecord, SimError> {
        let label = self
            .by_tracking_number
            .get(tracking_number)
            .and_then(|id| self.labels.get(id))
            .filter(|l| l.account == account);
        if let Some(l) = label.filter(|l| l.env == KeyEnv::Live && env == KeyEnv::Sandbox) {
            return Err(sandbox_in_production("label", &l.label.id));
        }
        let label = label.filter(|l| l.env == env);
        let label_id = label.map(|l| l.label.id.clone());
        let carrier = label
            .map(|l| l.label.carrier.clone())
            .or(carrier.map(str::to_string))
            .unwrap_or_default();
        let id = self.next_id("trk");
        let record = TrackerRecord {
            id: id.clone(),
            account: account.into(),
            tracking_number: tracking_number.into(),
            carrier,
            label_id,
            env,
        };
        self.trackers.insert(id, record.clone());
        Ok(record)
    }

    pub fn tracker(
        &self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<Tracker, SimError> {
        let not_found = || {
            SimError::new(
                ErrorCode::TrackerNotFound,
                format!("No tracker {id} exists for this account."),
                "Register tracking with POST /v1/trackers first.",
            )
        };
        let t = self
            .trackers
            .get(id)
            .filter(|t| t.account == account)
            .ok_or_else(not_found)?;
        check_mode(t.env, env, "tracker", id, not_found)?;
        let label = t.label_id.as_ref().and_then(|l| self.labels.get(l));
        let events = label.map(|l| tracker_events(l, now)).unwrap_or_default();
        let status = match (label, events.last()) {
            (None, _) => TrackerStatus::Unknown,
            (Some(_), Some(e)) => e.status,
            (Some(_), None) => TrackerStatus::PreTransit,
        };
        let estimated_delivery = label
            .and_then(|l| l.scanned_at)
            .map(|at| date(at + DELIVERED_AFTER));
        Ok(Tracker {
            id: t.id.clone(),
            tracking_number: t.tracking_number.clone(),
            carrier: t.carrier.clone(),
            status,
            events,
            estimated_delivery,
        })
    }

    // ---- batches -----------------------------------------------------------

    pub fn create_batch(
        &mut self,
        account: &str,
        env: KeyEnv,
        items: Vec<BatchItem>,
    ) -> Result<Batch, SimError> {
        // Each item is at most MAX_ITEM_CENTS (checked by the handler), so no overflow.
        let total: i64 = items.iter().map(|i| i.rate_cents).sum();
        let balance_after = self.charge(account, env, total)?;
        let id = self.next_id("batch");
        let record = BatchRecord {
            id: id.clone(),
            account: account.into(),
            env,
            items,
            total_cost_cents: total,
            balance_after_cents: balance_after,
            started_at: None,
            label_ids: vec![],
        };
        self.batches.insert(id.clone(), record);
        Ok(self.batch_view(&id))
    }

    fn batch_mut(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
    ) -> Result<&mut BatchRecord, SimError> {
        let not_found = || {
            SimError::new(
                ErrorCode::BatchNotFound,
                format!("No batch {id} exists for this account."),
                "Check the batch id returned by POST /v1/batches.",
            )
        };
        let b = self
            .batches
            .get_mut(id)
            .filter(|b| b.account == account)
            .ok_or_else(not_found)?;
        check_mode(b.env, env, "batch", id, not_found)?;
        Ok(b)
    }

    pub fn buy_batch(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<Batch, SimError> {
        let b = self.batch_mut(account, env, id)?;
        if b.started_at.is_some() {
            return Err(SimError::new(
                ErrorCode::BatchAlreadyProcessing,
                format!("Batch {id} is already processing; it was bought once."),
                "Follow its progress with GET /v1/batches/{id}; do not buy it again.",
            ));
        }
        b.started_at = Some(now);
        Ok(self.batch_view(id))
    }

    pub fn batch(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<Batch, SimError> {
        self.batch_mut(account, env, id)?;
        self.advance_batch(id, now);
        Ok(self.batch_view(id))
    }

    /// Makes the labels that are due by `now` (and emits their events).
    pub fn advance_batch(&mut self, id: &str, now: u64) {
        let Some(b) = self.batches.get(id) else {
            return;
        };
        let Some(started) = b.started_at else { return };
        let due = ((now.saturating_sub(started)) * BATCH_LABELS_PER_SECOND)
            .min(b.items.len() as u64) as usize;
        let (account, env, done, balance_after) = (
            b.account.clone(),
            b.env,
            b.label_ids.len(),
            b.balance_after_cents,
        );
        for index in done..due {
            let item = self.batches[id].items[index].clone();
            let label = self.create_label(
                &account,
                env,
                &item.carrier,
                &item.service,
                item.rate_cents,
                balance_after,
                now,
            );
            self.batches
                .get_mut(id)
                .expect("exists")
                .label_ids
                .push(label.id);
        }
    }

    pub fn advance_all_batches(&mut self, now: u64) {
        let ids: Vec<String> = self
            .batches
            .iter()
            .filter(|(_, b)| b.started_at.is_some() && b.label_ids.len() < b.items.len())
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.advance_batch(&id, now);
        }
    }

    fn batch_view(&self, id: &str) -> Batch {
        let b = &self.batches[id];
        let n = b.items.len() as u64;
        let made = b.label_ids.len() as u64;
        let state = match b.started_at {
            None => BatchState::Created,
            Some(_) if made >= n => BatchState::Completed,
            Some(_) => BatchState::Processing,
        };
        let remaining_seconds = match b.started_at {
            None => n.div_ceil(BATCH_LABELS_PER_SECOND),
            Some(_) => (n - made).div_ceil(BATCH_LABELS_PER_SECOND),
        };
        Batch {
            id: b.id.clone(),
            state,
            item_count: n as u32,
            total_cost_cents: b.total_cost_cents,
            wallet_balance_after_cents: b.balance_after_cents,
            estimated_completion_percentage: (made * 100 / n.max(1)) as u32,
            estimated_time_remaining_seconds: remaining_seconds,
            labels_created: made as u32,
            label_ids: b.label_ids.clone(),
            sandbox: b.env == KeyEnv::Sandbox,
        }
    }

    // ---- webhooks ----------------------------------------------------------

    fn emit_label_created(&mut self, account: &str, label: &Label, now: u64) {
        let Some((url, secret)) = self.account_mut(account).webhook.clone() else {
            return;
        };
        let event = api::WebhookEvent {
            event: api::webhooks::EVENT_LABEL_CREATED.into(),
            data: label.clone(),
        };
        let body = serde_json::to_vec(&event).unwrap_or_default();
        let id = self.next_id("dlv");
        self.deliveries.push(DeliveryRecord {
            delivery: WebhookDelivery {
                id,
                event: api::webhooks::EVENT_LABEL_CREATED.into(),
                label_id: label.id.clone(),
                url,
                attempt: 1,
                status: DeliveryStatus::Pending,
                response_status: None,
                error: None,
                attempted_at: None,
                next_attempt_at: Some(now),
            },
            account: account.into(),
            body,
            secret,
            due_at: now,
            in_flight: false,
        });
        self.pending_deliveries.push(self.deliveries.len() - 1);
    }

    /// Hands out the pending attempts due by `now`, oldest first, marking
    /// them in flight so no attempt is made twice.
    pub fn due_deliveries(&mut self, now: u64) -> Vec<DueDelivery> {
        let mut due = Vec::new();
        for &index in &self.pending_deliveries {
            let d = &mut self.deliveries[index];
            if !d.in_flight && d.due_at <= now {
                d.in_flight = true;
                due.push(DueDelivery {
                    generation: self.generation,
                    index,
                    url: d.delivery.url.clone(),
                    body: d.body.clone(),
                    secret: d.secret.clone(),
                });
            }
        }
        due
    }

    /// Records the outcome of an attempt made at `attempted_at` and, after a
    /// failure with attempts left, schedules the next one from that time.
    pub fn finish_delivery(
        &mut self,
        generation: u64,
        index: usize,
        outcome: Result<u16, String>,
        attempted_at: u64,
    ) {
        if generation != self.generation || index >= self.deliveries.len() {
            return; // the world was reset while the attempt was in flight
        }
        self.pending_deliveries.retain(|&i| i != index);
        let d = &mut self.deliveries[index];
        d.in_flight = false;
        d.delivery.attempted_at = Some(attempted_at);
        let ok = matches!(outcome, Ok(status) if api::webhooks::is_success_status(status));
        match outcome {
            Ok(status) => d.delivery.response_status = Some(status),
            Err(e) => d.delivery.error = Some(e),
        }
        if ok {
            d.delivery.status = DeliveryStatus::Succeeded;
            d.delivery.next_attempt_at = None;
            return;
        }
        d.delivery.status = DeliveryStatus::Failed;
        let attempt = d.delivery.attempt as usize;
        if attempt >= RETRY_SCHEDULE_SECONDS.len() {
            d.delivery.next_attempt_at = None;
            return;
        }
        let due = attempted_at + RETRY_SCHEDULE_SECONDS[attempt];
        d.delivery.next_attempt_at = Some(due);
        let mut next = d.clone();
        next.delivery.id = self.next_id("dlv");
        next.delivery.attempt += 1;
        next.delivery.status = DeliveryStatus::Pending;
        next.delivery.response_status = None;
        next.delivery.error = None;
        next.delivery.attempted_at = None;
        next.delivery.next_attempt_at = Some(due);
        next.due_at = due;
        self.deliveries.push(next);
        self.pending_deliveries.push(self.deliveries.len() - 1);
    }
}

/// Tracking after the scan: accepted, departed (+6 h), arrived (+24 h),
/// out for delivery (+36 h), delivered (+40 h).
const DELIVERED_AFTER: u64 = 40 * 3600;

fn tracker_events(label: &LabelRecord, now: u64) -> Vec<TrackerEvent> {
    let mut events = vec![TrackerEvent {
        status: TrackerStatus::PreTransit,
        message: "Label created; awaiting the package".into(),
        location: "".into(),
        occurred_at: label.created_at,
    }];
    let Some(scan) = label.scanned_at else {
        return events;
    };
    let steps = [
        (
            0,
            TrackerStatus::InTransit,
            "Accepted at origin facility",
            "Origin hub",
        ),
        (
            6 * 3600,
            TrackerStatus::InTransit,
            "Departed facility",
            "Origin hub",
        ),
        (
            24 * 3600,
            TrackerStatus::InTransit,
            "Arrived at destination facility",
            "Destination hub",
        ),
        (
            36 * 3600,
            TrackerStatus::OutForDelivery,
            "Out for delivery",
            "Destination hub",
        ),
        (
            DELIVERED_AFTER,
            TrackerStatus::Delivered,
            "Delivered",
            "Front door",
        ),
    ];
    events.extend(steps.iter().filter(|(after, ..)| scan + after <= now).map(
        |(after, status, message, location)| TrackerEvent {
            status: *status,
            message: (*message).into(),
            location: (*location).into(),
            occurred_at: scan + after,
        },
    ));
    events
}

fn void_status(r: &LabelRecord, now: u64) -> VoidStatus {
    match r.void_requested_at {
        None => VoidStatus::None,
        Some(at) if now >= at + VOID_CONFIRM_SECONDS => VoidStatus::Voided,
        Some(_) => VoidStatus::Requested,
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
