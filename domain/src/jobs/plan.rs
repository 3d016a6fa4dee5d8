//! The plan of a job, in plain Rust: which rows share a quote, which rate a
//! row buys, how fast the job may quote, how many rows a chunk holds so
//! its rates are still valid when its batch is created, and how long it
//! all takes.

use api::Rate;
use api::jobs::{Estimate, Fallback, JobRow, Rule};
use api::rates::RATE_VALIDITY_SECONDS;
use sha2::{Digest, Sha256};

/// A rate is not sent in a batch creation once older than this: the rest
/// of its 15 minutes is the margin for a slow creation or a skewed clock.
pub const SAFETY_MARGIN_SECONDS: u64 = 180;
/// The oldest quote a batch creation may carry.
pub const MAX_QUOTE_AGE_SECONDS: u64 = RATE_VALIDITY_SECONDS - SAFETY_MARGIN_SECONDS;
/// The job's share of the key's per-minute rates limit (`BATCH_RATES_SHARE`):
/// the rest is kept for interactive users and the storefront widget.
pub const DEFAULT_RATES_SHARE: f64 = 0.6;
/// Labels the service makes per second once a batch is bought, until it
/// reports its own pace (the interface does not say; this is the
/// simulator's, documented in sim/README.md).
pub const ASSUMED_LABELS_PER_SECOND: u64 = 20;
/// The rates limit of part 8, until the service reports one.
pub const DEFAULT_RATES_PER_MINUTE: u32 = 100;

/// Identical shipments are quoted once: rows with the same addresses and
/// parcel share a key (the canonical JSON of the three, hashed).
pub fn shipment_key(row: &JobRow) -> String {
    let canonical =
        serde_json::to_vec(&(&row.from_address, &row.to_address, &row.parcel)).unwrap_or_default();
    hex::encode(&Sha256::digest(canonical)[..16])
}

/// Why no rate could be chosen for a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoRate {
    /// The quote had no rates at all.
    NoRates,
    /// `Rule::Service` without a fallback, and the service was not offered.
    ServiceNotOffered { carrier: String, service: String },
}

fn pick(rates: &[Rate], fallback: Fallback) -> Option<&Rate> {
    let by = |a: &&Rate, b: &&Rate| match fallback {
        Fallback::Cheapest | Fallback::None => {
            (a.rate_cents, &a.carrier_eta).cmp(&(b.rate_cents, &b.carrier_eta))
        }
        Fallback::Fastest => (&a.carrier_eta, a.rate_cents).cmp(&(&b.carrier_eta, b.rate_cents)),
        Fallback::LowestCarbon => {
            (a.carbon_grams, a.rate_cents).cmp(&(b.carbon_grams, b.rate_cents))
        }
    };
    rates.iter().min_by(by)
}

/// The rate a row buys under `rule`. Dates compare as text: they are
/// `YYYY-MM-DD`.
pub fn choose<'a>(rates: &'a [Rate], rule: &Rule) -> Result<&'a Rate, NoRate> {
    if rates.is_empty() {
        return Err(NoRate::NoRates);
    }
    let found = match rule {
        Rule::Cheapest => pick(rates, Fallback::Cheapest),
        Rule::Fastest => pick(rates, Fallback::Fastest),
        Rule::LowestCarbon => pick(rates, Fallback::LowestCarbon),
        Rule::Service {
            carrier,
            service,
            fallback,
        } => {
            let named: Vec<Rate> = rates
                .iter()
                .filter(|r| {
                    r.carrier.eq_ignore_ascii_case(carrier.trim())
                        && r.service.eq_ignore_ascii_case(service.trim())
                })
                .cloned()
                .collect();
            // The cheapest of the named service (platform or own account).
            match pick(&named, Fallback::Cheapest) {
                Some(r) => rates.iter().find(|x| x.id == r.id),
                None if *fallback == Fallback::None => {
                    return Err(NoRate::ServiceNotOffered {
                        carrier: carrier.clone(),
                        service: service.clone(),
                    });
                }
                None => pick(rates, *fallback),
            }
        }
    };
    found.ok_or(NoRate::NoRates)
}

/// How the job paces its quotes: its share of the limit, and the reserve it
/// never takes `X-RateLimit-Remaining` below.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pace {
    pub limit: u32,
    pub share: f64,
    /// `BATCH_MAX_CHUNK_ROWS`: a chunk never holds more rows.
    pub max_chunk: u32,
}

impl Pace {
    /// Quotes per minute the job may make.
    pub fn per_minute(self) -> u32 {
        ((f64::from(self.limit) * self.share.clamp(0.0, 1.0)).floor() as u32).max(1)
    }

    /// The part of each window left to interactive users and the widget.
    pub fn reserve(self) -> u32 {
        self.limit.saturating_sub(self.per_minute())
    }

    /// Distinct shipments a chunk may hold: as many as the job can quote
    /// before its first quote is [`MAX_QUOTE_AGE_SECONDS`] old. Windows are
    /// whole minutes, so a partial first one is not counted on.
    pub fn chunk_shipments(self) -> u32 {
        let whole_minutes = MAX_QUOTE_AGE_SECONDS / 60 - 1;
        (u64::from(self.per_minute()) * whole_minutes)
            .min(api::jobs::MAX_ROWS as u64)
            .min(u64::from(self.max_chunk.max(1))) as u32
    }

    /// Seconds to quote `shipments` at this pace.
    pub fn quote_seconds(self, shipments: u32) -> u64 {
        (u64::from(shipments) * 60).div_ceil(u64::from(self.per_minute()))
    }
}

/// The estimate before the start: how many quotes, chunks, and how long
/// quoting and processing take at the observed limit.
pub fn estimate(rows: &[JobRow], pace: Pace) -> Estimate {
    let distinct = {
        let mut keys: Vec<String> = rows.iter().map(shipment_key).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len() as u32
    };
    let chunk = pace.chunk_shipments().max(1);
    // A chunk is bounded by the shipments quoted in time and by its rows.
    let chunks = distinct
        .div_ceil(chunk)
        .max((rows.len() as u32).div_ceil(pace.max_chunk.max(1)));
    Estimate {
        distinct_shipments: distinct,
        rates_per_minute: pace.limit,
        share: pace.share,
        chunk_rows: chunk,
        chunks: chunks.max(1),
        quote_seconds: pace.quote_seconds(distinct),
        process_seconds: (rows.len() as u64).div_ceil(ASSUMED_LABELS_PER_SECOND),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::{AccountType, Address, Parcel};

    fn rate(id: &str, carrier: &str, service: &str, cents: i64, eta: &str, carbon: i64) -> Rate {
        Rate {
            id: id.into(),
            carrier: carrier.into(),
            service: service.into(),
            rate_cents: cents,
            carrier_eta: eta.into(),
            carbon_grams: carbon,
            account_type: AccountType::Platform,
            expires_at: None,
        }
    }

    fn rates() -> Vec<Rate> {
        vec![
            rate("a", "Pacific Post", "Ground", 800, "2026-11-30", 900),
            rate("b", "Atlas Freight", "Express", 1500, "2026-11-25", 1400),
            rate("c", "Comet Express", "Eco", 950, "2026-12-01", 300),
            rate("d", "Harbor Parcel", "Ground", 800, "2026-11-28", 700),
        ]
    }

    #[test]
    fn rules_choose_cheapest_fastest_and_greenest_with_ties_to_the_cheaper() {
        let r = rates();
        // Equal price: the earlier delivery wins.
        assert_eq!(choose(&r, &Rule::Cheapest).unwrap().id, "d");
        assert_eq!(choose(&r, &Rule::Fastest).unwrap().id, "b");
        assert_eq!(choose(&r, &Rule::LowestCarbon).unwrap().id, "c");
        assert_eq!(choose(&[], &Rule::Cheapest), Err(NoRate::NoRates));
    }

    #[test]
    fn a_named_service_or_its_fallback() {
        let r = rates();
        let service = |carrier: &str, service: &str, fallback| Rule::Service {
            carrier: carrier.into(),
            service: service.into(),
            fallback,
        };
        assert_eq!(
            choose(&r, &service("atlas freight", "EXPRESS", Fallback::None))
                .unwrap()
                .id,
            "b"
        );
        assert_eq!(
            choose(&r, &service("Nowhere", "Ground", Fallback::LowestCarbon))
                .unwrap()
                .id,
            "c"
        );
        assert_eq!(
            choose(&r, &service("Nowhere", "Ground", Fallback::None)),
            Err(NoRate::ServiceNotOffered {
                carrier: "Nowhere".into(),
                service: "Ground".into()
            })
        );
    }

    #[test]
    fn pace_and_chunks_keep_every_rate_valid() {
        let pace = Pace {
            limit: 100,
            share: 0.6,
            max_chunk: 5000,
        };
        assert_eq!((pace.per_minute(), pace.reserve()), (60, 40));
        // 12 minutes of quoting (15 minus the 3-minute margin) minus a
        // partial first window: 11 whole minutes at 60 a minute.
        assert_eq!(pace.chunk_shipments(), 660);
        assert!(pace.quote_seconds(pace.chunk_shipments()) + 60 <= MAX_QUOTE_AGE_SECONDS);
        assert_eq!(pace.quote_seconds(150), 150);
        let fast = Pace {
            limit: 100_000,
            share: 0.6,
            max_chunk: 5000,
        };
        assert_eq!(fast.chunk_shipments(), 5_000);
        assert_eq!(
            Pace {
                max_chunk: 250,
                ..fast
            }
            .chunk_shipments(),
            250
        );
        let tiny = Pace {
            limit: 1,
            share: 0.1,
            max_chunk: 5000,
        };
        assert_eq!((tiny.per_minute(), tiny.reserve()), (1, 0));
    }

    #[test]
    fn identical_shipments_are_quoted_once() {
        let address = |name: &str| Address {
            name: name.into(),
            street1: "1 Main St".into(),
            street2: None,
            city: "Springfield".into(),
            state: "IL".into(),
            zip: "62701".into(),
            country: "US".into(),
            phone: None,
            email: None,
        };
        let row = |reference: &str, to: &str| JobRow {
            reference: reference.into(),
            from_address: address("Shop"),
            to_address: address(to),
            parcel: Parcel {
                weight_oz: 10.0,
                length: 6.0,
                width: 4.0,
                height: 2.0,
            },
        };
        let rows = vec![row("#1", "Ada"), row("#2", "Ada"), row("#3", "Grace")];
        assert_eq!(shipment_key(&rows[0]), shipment_key(&rows[1]));
        assert_ne!(shipment_key(&rows[0]), shipment_key(&rows[2]));
        let e = estimate(
            &rows,
            Pace {
                limit: 100,
                share: 0.6,
                max_chunk: 5000,
            },
        );
        assert_eq!((e.distinct_shipments, e.chunks, e.quote_seconds), (2, 1, 2));
        assert_eq!(e.process_seconds, 1);
    }
}
