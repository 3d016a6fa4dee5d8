//! Labels: purchase by rate, the carrier's reasons to refuse one (shared
//! with batch items), reading, voiding and the void's refund, the scan.

use api::{CarrierAccountStatus, ErrorCode, KeyEnv, Label, LabelDetails, VoidStatus};

use super::rates::RateRecord;
use super::{World, check_mode};
use crate::clock::id_hex;
use crate::errors::SimError;
use crate::pricing::{self, Problem};

/// The carrier confirms a requested void after this long, then refunds.
pub const VOID_CONFIRM_SECONDS: u64 = 300;

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

/// `prefix.name`, or `name` alone at the top level.
fn field(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

impl World {
    pub fn buy_label(
        &mut self,
        account: &str,
        env: KeyEnv,
        rate_id: &str,
        now: u64,
    ) -> Result<Label, SimError> {
        let r = self.usable_rate(account, env, rate_id, "rate_id", now)?;
        if let Some(e) = self.label_problem(account, &r, "") {
            return Err(e);
        }
        let balance_after = self.charge(account, env, r.rate_cents)?;
        Ok(self.create_label(
            account,
            env,
            r.service.carrier,
            r.service.service,
            r.rate_cents,
            balance_after,
            now,
        ))
    }

    /// Why the carrier would refuse a label for this rate now, if it would:
    /// the destination, the weight, the route, a BYOA account's state, a
    /// fault. Fields are named under `prefix` (`items[3]` in a batch).
    pub(super) fn label_problem(
        &self,
        account: &str,
        r: &RateRecord,
        prefix: &str,
    ) -> Option<SimError> {
        let service = r.service;
        if r.to.street1.to_ascii_uppercase().contains("UNDELIVERABLE") {
            return Some(
                SimError::new(
                    ErrorCode::LabelAddressUndeliverable,
                    format!("{} cannot deliver to {}.", service.carrier, r.to.street1),
                    "Validate the destination with POST /v1/addresses/validate and correct it.",
                )
                .field(field(prefix, "to_address")),
            );
        }
        match pricing::service_problem(service, &r.to, &r.parcel) {
            Some(Problem::Weight) => {
                return Some(
                    SimError::new(
                        ErrorCode::LabelWeightExceeded,
                        format!(
                            "{} {} carries at most {} oz; the parcel weighs {} oz.",
                            service.carrier,
                            service.service,
                            service.max_weight_oz,
                            r.parcel.weight_oz
                        ),
                        "Choose a carrier with a higher weight limit or split the shipment.",
                    )
                    .field(field(prefix, "parcel.weight_oz")),
                );
            }
            Some(Problem::Route) => {
                return Some(SimError::new(
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
                .accounts
                .get(account)
                .and_then(|a| a.carrier_accounts.iter().find(|c| &c.account.id == byoa));
            match found {
                Some(c) if !c.connected => {
                    return Some(SimError::new(
                        ErrorCode::CarrierAccountNotFound,
                        format!("Carrier account {byoa} is no longer connected."),
                        "Reconnect the account in the dashboard or buy a platform rate.",
                    ));
                }
                Some(c) if c.account.status == CarrierAccountStatus::InvalidCredentials => {
                    return Some(SimError::new(
                        ErrorCode::CarrierAccountInvalidCredentials,
                        format!(
                            "{} rejected the credentials of carrier account {byoa}.",
                            c.account.carrier
                        ),
                        "Update the carrier account's credentials in the dashboard.",
                    ));
                }
                None => {
                    return Some(SimError::new(
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
            return Some(e);
        }
        if self.faults.label_creation_fails {
            return Some(SimError::new(
                ErrorCode::LabelCreationFailed,
                "The label could not be created because of an unexpected error; nothing was charged.",
                "Try again; if it keeps failing, contact support with the request id.",
            ));
        }
        None
    }

    /// Makes a paid label and emits `label.created`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn create_label(
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
            created_at: Some(now),
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

    /// Any label by id, whoever owns it (the PDF route checks access itself).
    pub fn label(&self, id: &str) -> Option<&LabelRecord> {
        self.labels.get(id)
    }

    /// The label as seen by `env`; settles a confirmed void (and its refund) first.
    fn label_record(
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
                    let (account, env, cents) = (r.account.clone(), r.env, r.label.rate_cents);
                    self.refund(&account, env, cents);
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
        let tracker_id = self.tracker_of_label(id);
        let r = self.label_record(account, env, id, now)?;
        Ok(LabelDetails {
            label: r.label.clone(),
            void_status: void_status(r, now),
            scanned: r.scanned_at.is_some_and(|at| at <= now),
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

    /// The carrier scanned the package (first scan only); `None` if there
    /// is no such label.
    pub fn scan_label(&mut self, id: &str, now: u64) -> Option<u64> {
        let label = self.labels.get_mut(id)?;
        Some(*label.scanned_at.get_or_insert(now))
    }
}

/// Sums of one carrier's labels, for the control surface.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LabelSums {
    pub labels: u32,
    pub rate_cents: i64,
    pub refunded_cents: i64,
}

impl World {
    /// The labels `account` made in `env` within `during`, per carrier and
    /// in all (voids confirmed by `now` counted as refunded).
    pub fn label_sums(
        &mut self,
        account: &str,
        env: KeyEnv,
        during: std::ops::Range<u64>,
        now: u64,
    ) -> std::collections::BTreeMap<String, LabelSums> {
        self.settle_voids(now);
        let mut sums = std::collections::BTreeMap::<String, LabelSums>::new();
        for r in self.labels.values() {
            if r.account != account || r.env != env || !during.contains(&r.created_at) {
                continue;
            }
            let refunded = if r.refunded { r.label.rate_cents } else { 0 };
            for key in [r.label.carrier.clone(), "all".to_string()] {
                let s = sums.entry(key).or_default();
                s.labels += 1;
                s.rate_cents += r.label.rate_cents;
                s.refunded_cents += refunded;
            }
        }
        sums
    }
}

fn void_status(r: &LabelRecord, now: u64) -> VoidStatus {
    match r.void_requested_at {
        None => VoidStatus::None,
        Some(at) if now >= at + VOID_CONFIRM_SECONDS => VoidStatus::Voided,
        Some(_) => VoidStatus::Requested,
    }
}
