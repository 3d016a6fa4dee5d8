//! Rate shopping (`POST /v1/rates`) and the rule that a rate id must pass
//! before anything is bought with it (a label or a batch item).

use api::rates::RATE_VALIDITY_SECONDS;
use api::{AccountType, Address, CarrierAccountStatus, ErrorCode, KeyEnv, Parcel, Rate};

use super::{World, check_mode};
use crate::clock::{date, id_hex};
use crate::errors::SimError;
use crate::pricing::{self, SERVICES};

/// Quotes are forgotten this long after their rates expired (then their
/// ids answer `RATE.NOT_FOUND` instead of `RATE.EXPIRED`).
pub const QUOTE_RETENTION_SECONDS: u64 = 24 * 3600;

/// One `POST /v1/rates` answer, kept compactly: only what a purchase of one
/// of its rates needs. A rate id is `rate_<quote seq>_<offer index>_<nonce>`,
/// so a quote costs one record, not one per rate.
#[derive(Debug, Clone)]
pub struct QuoteRecord {
    pub account: String,
    pub env: KeyEnv,
    pub quoted_at: u64,
    pub from: Address,
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
    pub from: Address,
    pub to: Address,
    pub parcel: Parcel,
    pub service: &'static pricing::Service,
    pub rate_cents: i64,
    pub byoa_account: Option<String>,
}

impl World {
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
            Box::new(QuoteRecord {
                account: account.into(),
                env,
                quoted_at: now,
                from: from.clone(),
                to: to.clone(),
                parcel: *parcel,
                nonce,
                offers: kept,
            }),
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
    fn rate(&self, rate_id: &str) -> Option<RateRecord> {
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
            from: q.from.clone(),
            to: q.to.clone(),
            parcel: q.parcel,
            service: &SERVICES[offer.service],
            rate_cents: offer.rate_cents,
            byoa_account: offer.byoa_account.clone(),
        })
    }

    /// The rate a purchase may use: known, quoted by this account, in the
    /// caller's mode, not expired. `field` names it in the error
    /// (`rate_id`, or `items[17].rate_id` in a batch).
    pub(super) fn usable_rate(
        &self,
        account: &str,
        env: KeyEnv,
        rate_id: &str,
        field: &str,
        now: u64,
    ) -> Result<RateRecord, SimError> {
        let not_found = || {
            SimError::new(
                ErrorCode::RateNotFound,
                format!("No rate {rate_id} exists for this account."),
                "Get fresh rates with POST /v1/rates and use one of their ids.",
            )
            .field(field)
        };
        let r = self
            .rate(rate_id)
            .filter(|r| r.account == account)
            .ok_or_else(not_found)?;
        check_mode(r.env, env, "rate", rate_id, not_found).map_err(|e| e.field(field))?;
        if now >= r.quoted_at + RATE_VALIDITY_SECONDS {
            return Err(SimError::new(
                ErrorCode::RateExpired,
                format!(
                    "Rate {rate_id} expired {} seconds ago; rates are valid for 15 minutes.",
                    now - r.quoted_at - RATE_VALIDITY_SECONDS
                ),
                "Get fresh rates with POST /v1/rates and buy one of those.",
            )
            .field(field));
        }
        Ok(r)
    }
}
