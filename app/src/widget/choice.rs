//! The shopper's options and choice: which option is cheapest, fastest and
//! lowest in carbon, how long a quote stays valid on the browser's clock,
//! when a choice must be re-quoted, and what the shop is handed.

use crate::components::rate_table::{SortKey, arrange};
use api::rates::RATE_VALIDITY_SECONDS;
use api::{Address, Parcel, Rate};
use serde::Serialize;

/// A quote counts as valid until this long before the service's limit.
const VALIDITY_MARGIN_SECONDS: u64 = 5;
/// A chosen rate is re-quoted this long before it expires, so the shop
/// always holds a valid one (background tabs run timers at most once a
/// minute).
pub const REFRESH_LEAD_MS: f64 = 90_000.0;

/// One option as the shopper sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShippingOption {
    pub rate: Rate,
    pub cheapest: bool,
    pub fastest: bool,
    pub lowest_carbon: bool,
}

/// What identifies an option across quotes (rate ids change on every quote).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionKey {
    pub carrier: String,
    pub service: String,
}

impl ShippingOption {
    pub fn key(&self) -> OptionKey {
        OptionKey {
            carrier: self.rate.carrier.clone(),
            service: self.rate.service.clone(),
        }
    }

    pub fn name(&self) -> String {
        format!("{} {}", self.rate.carrier, self.rate.service)
    }
}

/// Every rate as an option, cheapest first, each mark on exactly one option
/// (ties go to the cheaper, then the earlier one).
pub fn options(rates: &[Rate]) -> Vec<ShippingOption> {
    let sorted = arrange(rates, SortKey::Price, &[]);
    let best = |better: &dyn Fn(&Rate, &Rate) -> bool| {
        let mut best: Option<usize> = None;
        for (i, rate) in sorted.iter().enumerate() {
            if best.is_none_or(|b| better(rate, &sorted[b])) {
                best = Some(i);
            }
        }
        best
    };
    // Strictly better only: the first (cheapest) of equals keeps the mark.
    let cheapest = best(&|a, b| a.rate_cents < b.rate_cents);
    let fastest = best(&|a, b| a.carrier_eta < b.carrier_eta);
    let greenest = best(&|a, b| a.carbon_grams < b.carbon_grams);
    sorted
        .iter()
        .enumerate()
        .map(|(i, rate)| ShippingOption {
            rate: rate.clone(),
            cheapest: cheapest == Some(i),
            fastest: fastest == Some(i),
            lowest_carbon: greenest == Some(i),
        })
        .collect()
}

/// When a quote stops being valid on the browser's clock: 15 minutes from
/// when the service made it, which was `age_seconds` (the Worker's `Age`)
/// before it arrived here at `arrival_ms`.
pub fn deadline_ms(arrival_ms: f64, age_seconds: u64) -> f64 {
    let left = RATE_VALIDITY_SECONDS
        .saturating_sub(age_seconds)
        .saturating_sub(VALIDITY_MARGIN_SECONDS);
    arrival_ms + left as f64 * 1000.0
}

/// Whether a choice from a quote valid until `deadline` must be re-quoted
/// before the shop may have it.
pub fn stale(deadline_ms: f64, now_ms: f64) -> bool {
    now_ms >= deadline_ms - REFRESH_LEAD_MS
}

/// A rate as the shop's events give it: what to charge for shipping and
/// what to buy the label with (`rate_id`, until `expires_at`, Unix seconds
/// on the service's clock).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OfferedRate {
    pub carrier: String,
    pub service: String,
    pub rate_cents: i64,
    pub carrier_eta: String,
    pub carbon_grams: i64,
    pub rate_id: String,
    pub expires_at: Option<u64>,
}

impl From<&Rate> for OfferedRate {
    fn from(rate: &Rate) -> OfferedRate {
        OfferedRate {
            carrier: rate.carrier.clone(),
            service: rate.service.clone(),
            rate_cents: rate.rate_cents,
            carrier_eta: rate.carrier_eta.clone(),
            carbon_grams: rate.carbon_grams,
            rate_id: rate.id.clone(),
            expires_at: rate.expires_at,
        }
    }
}

/// The `chosen` event's detail: the rate, and what it was quoted for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chosen {
    #[serde(flatten)]
    pub rate: OfferedRate,
    pub destination: Address,
    pub parcel: Parcel,
}

/// One option in the `quoted` event's detail.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuotedOption {
    #[serde(flatten)]
    pub rate: OfferedRate,
    pub cheapest: bool,
    pub fastest: bool,
    pub lowest_carbon: bool,
}

/// The `quoted` event's detail.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Quoted {
    pub options: Vec<QuotedOption>,
    /// Carriers that did not answer this time.
    pub unavailable_carriers: Vec<String>,
}

impl Quoted {
    pub fn new(options: &[ShippingOption], unavailable: &[String]) -> Quoted {
        Quoted {
            options: options
                .iter()
                .map(|o| QuotedOption {
                    rate: OfferedRate::from(&o.rate),
                    cheapest: o.cheapest,
                    fastest: o.fastest,
                    lowest_carbon: o.lowest_carbon,
                })
                .collect(),
            unavailable_carriers: unavailable.to_vec(),
        }
    }
}

/// The shop's fallback option as its events give it: marked `fallback`,
/// with no `rate_id` (the shop charges its price and ships it as it sees
/// fit). Offered when no carrier answered in time or the quote failed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FallbackOption {
    pub fallback: bool,
    pub name: String,
    pub rate_cents: u32,
}

impl FallbackOption {
    pub fn of(f: &api::orgs::WidgetFallback) -> FallbackOption {
        FallbackOption {
            fallback: true,
            name: f.name.clone(),
            rate_cents: f.price_cents,
        }
    }
}

/// The `quoted` event's detail when the fallback is offered: its one option.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FallbackQuoted {
    pub fallback: bool,
    pub options: Vec<FallbackOption>,
    pub unavailable_carriers: Vec<String>,
}

/// The `chosen` event's detail for the fallback.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FallbackChosen {
    #[serde(flatten)]
    pub option: FallbackOption,
    pub destination: Address,
    pub parcel: Parcel,
}

/// Why the shop no longer has a choice (the `cleared` event's `reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cleared {
    /// The address or the parcel changed: a new quote is on its way.
    Changed,
    /// The new quote (another address or parcel) does not offer it.
    NotOffered,
    /// It expired and could not be re-quoted in time.
    Expired,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClearedDetail {
    pub reason: Cleared,
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::AccountType;

    fn rate(carrier: &str, service: &str, cents: i64, eta: &str, carbon: i64) -> Rate {
        Rate {
            id: format!("rate_{carrier}_{service}"),
            carrier: carrier.into(),
            service: service.into(),
            rate_cents: cents,
            carrier_eta: eta.into(),
            carbon_grams: carbon,
            account_type: AccountType::Platform,
            expires_at: Some(1_900),
        }
    }

    fn marks(o: &[ShippingOption]) -> Vec<(String, bool, bool, bool)> {
        o.iter()
            .map(|o| (o.name(), o.cheapest, o.fastest, o.lowest_carbon))
            .collect()
    }

    #[test]
    fn each_mark_goes_to_one_option() {
        let rates = [
            rate("Comet", "Overnight", 2400, "2026-11-24", 900),
            rate("Atlas", "Ground", 800, "2026-11-28", 300),
            rate("Harbor", "Ground", 800, "2026-11-27", 300),
            rate("Pacific", "Priority", 1500, "2026-11-24", 600),
        ];
        assert_eq!(
            marks(&options(&rates)),
            [
                // Same price: the earlier delivery comes first and is the cheapest.
                ("Harbor Ground".to_string(), true, false, true),
                ("Atlas Ground".to_string(), false, false, false),
                // Same day: the cheaper one is the fastest.
                ("Pacific Priority".to_string(), false, true, false),
                ("Comet Overnight".to_string(), false, false, false),
            ]
        );
        assert!(options(&[]).is_empty());
    }

    #[test]
    fn a_quote_is_valid_for_what_is_left_of_its_15_minutes() {
        assert_eq!(deadline_ms(1_000_000.0, 0), 1_000_000.0 + 895_000.0);
        // Answered from the Worker's cache, quoted 100 s before.
        assert_eq!(deadline_ms(1_000_000.0, 100), 1_000_000.0 + 795_000.0);
        assert_eq!(deadline_ms(1_000_000.0, 10_000), 1_000_000.0);
        let deadline = deadline_ms(0.0, 0);
        assert!(!stale(deadline, deadline - REFRESH_LEAD_MS - 1.0));
        assert!(stale(deadline, deadline - REFRESH_LEAD_MS));
    }

    #[test]
    fn the_shop_gets_every_field_of_the_choice() {
        let to = crate::components::address_form::blank_address();
        let parcel = Parcel {
            weight_oz: 20.0,
            length: 10.0,
            width: 8.0,
            height: 4.0,
        };
        let json = serde_json::to_value(Chosen {
            rate: OfferedRate::from(&rate("Comet", "Overnight", 2400, "2026-11-24", 900)),
            destination: to,
            parcel,
        })
        .unwrap();
        for field in [
            "carrier",
            "service",
            "rate_cents",
            "carrier_eta",
            "carbon_grams",
            "rate_id",
            "expires_at",
            "destination",
            "parcel",
        ] {
            assert!(json.get(field).is_some(), "{field} in {json}");
        }
        assert_eq!(json["expires_at"], 1_900);
        assert_eq!(
            serde_json::to_value(ClearedDetail {
                reason: Cleared::NotOffered
            })
            .unwrap(),
            serde_json::json!({"reason": "not_offered"})
        );
    }
}
