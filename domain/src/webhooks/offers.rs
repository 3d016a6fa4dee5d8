//! What a quote offered, held where it was answered until a purchase picks
//! one of its rates: per rate, its carbon, the recipient the quote named and
//! the quote's cheapest and lowest-carbon rates ([`Offer`]). The purchase
//! record carries it to the ledger, so a quote never costs the ledger a
//! write. Per isolate, per organization (one organization's purchase never
//! learns another's quote), for the rate's 15 minutes, and bounded: a
//! purchase whose quote this isolate no longer holds is recorded without
//! it, which insights count as "offer not known".

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use api::insights::Offered;
use api::orgs::OrgId;
use api::rates::RATE_VALIDITY_SECONDS;
use api::{RatesRequest, RatesResponse};
use serde::{Deserialize, Serialize};

/// Rates held at most: a few hundred quotes of the last minutes, what a
/// person buys from. The oldest go first.
pub const MAX_RATES: usize = 4096;

/// What the ledger learns of a label bought with one rate from its quote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    /// The chosen rate's (v1's Label has none).
    pub carbon_grams: i64,
    /// The quote's `to_address.name`, for the history's search.
    pub recipient: Option<String>,
    pub offered: Offered,
}

/// Each rate of a quote with what a purchase of it learns; none for a
/// quote without rates. A quote with some carriers down (503) still
/// offers the others' rates.
pub fn of_quote(request: &[u8], answer: &str) -> Vec<(String, Offer)> {
    let rates = serde_json::from_str::<RatesResponse>(answer)
        .map(|r| r.rates)
        .unwrap_or_default();
    let Some(offered) = Offered::of(&rates) else {
        return vec![];
    };
    let recipient = serde_json::from_slice::<RatesRequest>(request)
        .ok()
        .map(|r| r.to_address.name);
    rates
        .into_iter()
        .map(|rate| {
            let offer = Offer {
                carbon_grams: rate.carbon_grams,
                recipient: recipient.clone(),
                offered,
            };
            (rate.id, offer)
        })
        .collect()
}

type Key = (OrgId, String);

struct Held {
    offer: Offer,
    until: u64,
    /// Which entry of `order` this is (a rate held again is a new one).
    seq: u64,
}

/// The offers of one isolate.
#[derive(Default)]
pub struct Offers {
    held: HashMap<Key, Held>,
    /// Oldest first, so the first expire first: every rate is held for the
    /// same time from when it was quoted.
    order: VecDeque<(u64, Key)>,
    next_seq: u64,
}

impl Offers {
    /// Holds `offers` for `org` until `now` + the rates' 15 minutes.
    pub fn hold(&mut self, org: &OrgId, offers: Vec<(String, Offer)>, now: u64) {
        for (rate_id, offer) in offers {
            let key = (org.clone(), rate_id);
            let seq = self.next_seq;
            self.next_seq += 1;
            self.order.push_back((seq, key.clone()));
            let until = now + RATE_VALIDITY_SECONDS;
            self.held.insert(key, Held { offer, until, seq });
        }
        self.forget(now);
    }

    /// What `org`'s quote of `rate_id` offered, while the rate is valid.
    pub fn get(&self, org: &OrgId, rate_id: &str, now: u64) -> Option<Offer> {
        self.held
            .get(&(org.clone(), rate_id.to_string()))
            .filter(|h| now < h.until)
            .map(|h| h.offer.clone())
    }

    /// Drops the oldest entries while they are expired or too many.
    fn forget(&mut self, now: u64) {
        while let Some((seq, key)) = self.order.front() {
            let held = self.held.get(key).filter(|h| h.seq == *seq);
            let expired = held.is_none_or(|h| h.until <= now);
            if !expired && self.order.len() <= MAX_RATES {
                break;
            }
            if held.is_some() {
                self.held.remove(key);
            }
            self.order.pop_front();
        }
    }
}

thread_local! {
    static OFFERS: RefCell<Offers> = RefCell::new(Offers::default());
}

/// Holds what a successful quote of `org` offered, in this isolate.
pub fn hold(org: &OrgId, request: &[u8], answer: &str, now: u64) {
    let offers = of_quote(request, answer);
    if !offers.is_empty() {
        OFFERS.with(|o| o.borrow_mut().hold(org, offers, now));
    }
}

/// What `org`'s quote of `rate_id` offered, if this isolate holds it.
pub fn held(org: &OrgId, rate_id: &str, now: u64) -> Option<Offer> {
    OFFERS.with(|o| o.borrow().get(org, rate_id, now))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn org(id: &str) -> OrgId {
        OrgId::parse(id).unwrap()
    }

    fn offer(carbon_grams: i64) -> Offer {
        Offer {
            carbon_grams,
            recipient: Some("Grace Hopper".into()),
            offered: Offered {
                cheapest_cents: 700,
                cheapest_carbon_grams: 800,
                greenest_cents: 1400,
                greenest_carbon_grams: 300,
            },
        }
    }

    const REQUEST: &str = r#"{"from_address":{"name":"Ada Shop Inc","street1":"500 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},"to_address":{"name":"Grace Hopper","street1":"12 Elm St","city":"Brooklyn","state":"NY","zip":"11201","country":"US"},"parcel":{"weight_oz":20,"length":10,"width":8,"height":4}}"#;

    fn rate(id: &str, cents: i64, grams: i64) -> String {
        format!(
            r#"{{"id":"{id}","carrier":"Pacific Post","service":"Ground","rate_cents":{cents},"carrier_eta":"2026-11-30","carbon_grams":{grams},"account_type":"platform"}}"#
        )
    }

    #[test]
    fn each_rate_of_a_quote_offers_its_carbon_the_recipient_and_the_quote_s_extremes() {
        let answer = format!(
            r#"{{"rates":[{},{},{}]}}"#,
            rate("r1", 900, 400),
            rate("r2", 700, 800),
            rate("r3", 1400, 300)
        );
        let offers = of_quote(REQUEST.as_bytes(), &answer);
        let ids: Vec<&str> = offers.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["r1", "r2", "r3"]);
        assert_eq!(offers[0].1, offer(400));
        assert_eq!(offers[2].1.carbon_grams, 300);
        // A carrier down: the others' rates beside the error still count.
        let partial = format!(
            r#"{{"error":{{"code":"RATE.CARRIER.UNAVAILABLE","message":"m","suggestion":"s","docs_url":"d","request_id":"r"}},"rates":[{}]}}"#,
            rate("r4", 500, 200)
        );
        assert_eq!(of_quote(REQUEST.as_bytes(), &partial).len(), 1);
        // No rates, or not a quote: nothing to hold.
        assert!(of_quote(REQUEST.as_bytes(), r#"{"rates":[]}"#).is_empty());
        assert!(of_quote(REQUEST.as_bytes(), "not json").is_empty());
        // An unreadable request still offers the rates, without a recipient.
        let anonymous = of_quote(b"{}", &format!(r#"{{"rates":[{}]}}"#, rate("r5", 1, 2)));
        assert_eq!(anonymous[0].1.recipient, None);
    }

    #[test]
    fn an_offer_is_held_for_the_rate_s_15_minutes_only() {
        let mut o = Offers::default();
        let acme = org("org_acme");
        o.hold(&acme, vec![("r1".into(), offer(400))], 1_000);
        assert_eq!(o.get(&acme, "r1", 1_000 + 899), Some(offer(400)));
        assert_eq!(o.get(&acme, "r1", 1_000 + 900), None);
        assert_eq!(o.get(&acme, "r2", 1_000), None);
        // A later quote lets the expired one go.
        o.hold(&acme, vec![("r2".into(), offer(1))], 1_000 + 900);
        assert_eq!(o.held.len(), 1);
    }

    #[test]
    fn an_organization_never_gets_another_s_offer() {
        let mut o = Offers::default();
        let (acme, globex) = (org("org_acme"), org("org_globex"));
        o.hold(&acme, vec![("r1".into(), offer(400))], 1_000);
        assert_eq!(o.get(&globex, "r1", 1_000), None);
        // The same rate id in both: each keeps its own.
        o.hold(&globex, vec![("r1".into(), offer(7))], 1_001);
        assert_eq!(o.get(&acme, "r1", 1_001), Some(offer(400)));
        assert_eq!(o.get(&globex, "r1", 1_001), Some(offer(7)));
    }

    #[test]
    fn past_the_bound_the_oldest_offers_go_first() {
        let mut o = Offers::default();
        let acme = org("org_acme");
        let rates = |from: usize, n: usize| -> Vec<(String, Offer)> {
            (from..from + n)
                .map(|i| (format!("r{i}"), offer(i as i64)))
                .collect()
        };
        o.hold(&acme, rates(0, MAX_RATES), 1_000);
        assert_eq!(o.held.len(), MAX_RATES);
        o.hold(&acme, rates(MAX_RATES, 10), 1_001);
        assert_eq!(o.held.len(), MAX_RATES);
        assert_eq!(o.get(&acme, "r9", 1_001), None);
        assert_eq!(o.get(&acme, "r10", 1_001), Some(offer(10)));
        let newest = format!("r{}", MAX_RATES + 9);
        assert!(o.get(&acme, &newest, 1_001).is_some());
    }

    #[test]
    fn a_rate_quoted_again_is_held_from_its_latest_quote() {
        let mut o = Offers::default();
        let acme = org("org_acme");
        o.hold(&acme, vec![("r1".into(), offer(1))], 1_000);
        o.hold(&acme, vec![("r1".into(), offer(2))], 1_600);
        // The first entry's expiry does not take the second with it.
        o.hold(&acme, vec![("r2".into(), offer(3))], 1_950);
        assert_eq!(o.get(&acme, "r1", 1_950), Some(offer(2)));
        assert_eq!(o.get(&acme, "r1", 2_500), None);
        // However often a rate is held again, the bound holds.
        for _ in 0..2 * MAX_RATES {
            o.hold(&acme, vec![("r3".into(), offer(4))], 1_960);
        }
        assert!(o.order.len() <= MAX_RATES && o.held.len() <= MAX_RATES);
        assert_eq!(o.get(&acme, "r3", 1_960), Some(offer(4)));
    }
}
