//! What a quote offered, held where it was answered until a purchase picks
//! one of its rates: for the rate bought, its carbon, the addresses and
//! parcel the quote was for and the quote's cheapest and lowest-carbon
//! rates ([`Offer`]). The purchase record carries it to the ledger, so a quote
//! never costs the ledger a write. Quotes are kept as they came (request
//! and answer, nothing parsed: quotes are many, purchases few) and read
//! when a purchase names one of their rates. Per isolate, per organization
//! (one organization's purchase never learns another's quote), for the
//! rates' 15 minutes, and bounded: a purchase whose quote this isolate no
//! longer holds is recorded without it, which insights count as "offer not
//! known".

use std::cell::RefCell;
use std::collections::VecDeque;

use api::insights::Offered;
use api::orgs::OrgId;
use api::rates::RATE_VALIDITY_SECONDS;
use api::{RatesRequest, RatesResponse};
use serde::{Deserialize, Serialize};

/// Bytes of quotes held at most (a quote of the simulator's six carriers
/// is about 1.7 KB with its request: some 1,200 quotes). The oldest go first.
pub const MAX_BYTES: usize = 2 << 20;

/// What the ledger learns of a label bought with one rate from its quote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Offer {
    /// The chosen rate's (v1's Label has none).
    pub carbon_grams: i64,
    /// The quote's `to_address.name`, for the history's search.
    pub recipient: Option<String>,
    pub offered: Offered,
    /// Where it goes (the tracking page's lookup by postcode) and the
    /// chosen rate's `carrier_eta`.
    #[serde(default)]
    pub destination: Option<Destination>,
    /// The addresses and parcel the quote was for, as written (the label's
    /// page shows them); `None` when its request cannot be read.
    #[serde(default)]
    pub shipment: Option<Box<RatesRequest>>,
}

/// A label's destination as the tracking page uses it: the street and
/// city are shown only to someone who gave the postcode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Destination {
    pub street: String,
    pub city: String,
    pub postcode: String,
    pub eta: String,
}

impl Destination {
    pub fn of(to: &api::Address, eta: &str) -> Destination {
        Destination {
            street: to.street1.clone(),
            city: to.city.clone(),
            postcode: to.zip.clone(),
            eta: eta.to_string(),
        }
    }
}

/// What buying `rate_id` from this quote learns; `None` if the quote has
/// no such rate. A quote with some carriers down (503) still offers the
/// others' rates.
pub fn offer_in(request: &[u8], answer: &str, rate_id: &str) -> Option<Offer> {
    let rates = serde_json::from_str::<RatesResponse>(answer).ok()?.rates;
    let chosen = rates.iter().find(|r| r.id == rate_id)?;
    let shipment = serde_json::from_slice::<RatesRequest>(request)
        .ok()
        .map(Box::new);
    let to = shipment.as_ref().map(|r| &r.to_address);
    Some(Offer {
        carbon_grams: chosen.carbon_grams,
        destination: to.map(|to| Destination::of(to, &chosen.carrier_eta)),
        recipient: to.map(|to| to.name.clone()),
        offered: Offered::of(&rates)?,
        shipment,
    })
}

/// A quote as it came.
struct Quote {
    org: OrgId,
    request: Vec<u8>,
    answer: String,
    until: u64,
}

impl Quote {
    fn bytes(&self) -> usize {
        self.request.len() + self.answer.len()
    }
}

/// The quotes of one isolate, oldest first (so the first expire first:
/// each is held for the same time from when it was answered).
#[derive(Default)]
pub struct Offers {
    quotes: VecDeque<Quote>,
    bytes: usize,
}

impl Offers {
    /// Holds `org`'s quote until `now` + the rates' 15 minutes.
    pub fn hold(&mut self, org: &OrgId, request: Vec<u8>, answer: String, now: u64) {
        let quote = Quote {
            org: org.clone(),
            request,
            answer,
            until: now + RATE_VALIDITY_SECONDS,
        };
        self.bytes += quote.bytes();
        self.quotes.push_back(quote);
        while let Some(oldest) = self.quotes.front() {
            if oldest.until > now && self.bytes <= MAX_BYTES {
                break;
            }
            self.bytes -= oldest.bytes();
            self.quotes.pop_front();
        }
    }

    /// What `org`'s quote of `rate_id` offered, while its rates are valid;
    /// the newest quote that has it.
    pub fn get(&self, org: &OrgId, rate_id: &str, now: u64) -> Option<Offer> {
        // The id as a JSON string: found without parsing every quote.
        let needle = serde_json::to_string(rate_id).ok()?;
        self.quotes
            .iter()
            .rev()
            .filter(|q| q.org == *org && now < q.until && q.answer.contains(&needle))
            .find_map(|q| offer_in(&q.request, &q.answer, rate_id))
    }
}

thread_local! {
    static OFFERS: RefCell<Offers> = RefCell::new(Offers::default());
}

/// Holds a successful quote of `org` (its request and answer), in this isolate.
pub fn hold(org: &OrgId, request: Vec<u8>, answer: String, now: u64) {
    OFFERS.with(|o| o.borrow_mut().hold(org, request, answer, now));
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

    fn request(name: &str) -> Vec<u8> {
        format!(
            r#"{{"from_address":{{"name":"Ada Shop Inc","street1":"500 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"}},"to_address":{{"name":"{name}","street1":"12 Elm St","street2":"Apt 4","city":"Brooklyn","state":"NY","zip":"11201","country":"US","phone":"+1 718 555 0100"}},"parcel":{{"weight_oz":20,"length":10,"width":8,"height":4}}}}"#
        )
        .into_bytes()
    }

    fn rate(id: &str, cents: i64, grams: i64) -> String {
        format!(
            r#"{{"id":"{id}","carrier":"Pacific Post","service":"Ground","rate_cents":{cents},"carrier_eta":"2026-11-30","carbon_grams":{grams},"account_type":"platform"}}"#
        )
    }

    /// A quote of `ids`, each 100 cents and 10 grams more than the one before.
    fn answer(ids: &[&str]) -> String {
        let rates: Vec<String> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| rate(id, 500 + 100 * i as i64, 900 - 10 * i as i64))
            .collect();
        format!(r#"{{"rates":[{}]}}"#, rates.join(","))
    }

    #[test]
    fn a_purchase_learns_its_rate_s_carbon_the_addresses_the_parcel_and_the_quote_s_extremes() {
        let rates = [
            rate("r1", 900, 400),
            rate("r2", 700, 800),
            rate("r3", 1400, 300),
        ];
        let answer = format!(r#"{{"rates":[{}]}}"#, rates.join(","));
        let offer = offer_in(&request("Grace Hopper"), &answer, "r1").unwrap();
        assert_eq!(
            offer,
            Offer {
                carbon_grams: 400,
                recipient: Some("Grace Hopper".into()),
                offered: Offered {
                    cheapest_cents: 700,
                    cheapest_carbon_grams: 800,
                    greenest_cents: 1400,
                    greenest_carbon_grams: 300,
                },
                destination: Some(Destination {
                    street: "12 Elm St".into(),
                    city: "Brooklyn".into(),
                    postcode: "11201".into(),
                    eta: "2026-11-30".into(),
                }),
                shipment: serde_json::from_slice(&request("Grace Hopper")).ok(),
            }
        );
        // Both addresses whole, as written, and the parcel.
        let shipment = offer.shipment.unwrap();
        assert_eq!(shipment.from_address.name, "Ada Shop Inc");
        assert_eq!(shipment.from_address.street1, "500 Market St");
        assert_eq!(shipment.from_address.zip, "94105");
        assert_eq!(shipment.to_address.name, "Grace Hopper");
        assert_eq!(shipment.to_address.street2.as_deref(), Some("Apt 4"));
        assert_eq!(
            shipment.to_address.phone.as_deref(),
            Some("+1 718 555 0100")
        );
        assert_eq!(
            shipment.parcel,
            api::Parcel {
                weight_oz: 20.0,
                length: 10.0,
                width: 8.0,
                height: 4.0
            }
        );
        assert_eq!(offer_in(&request("G"), &answer, "r4"), None);
        // A carrier down: the others' rates beside the error still count.
        let partial = format!(
            r#"{{"error":{{"code":"RATE.CARRIER.UNAVAILABLE","message":"m","suggestion":"s","docs_url":"d","request_id":"r"}},"rates":[{}]}}"#,
            rate("r5", 500, 200)
        );
        assert_eq!(
            offer_in(&request("G"), &partial, "r5").map(|o| o.carbon_grams),
            Some(200)
        );
        // Not a quote: nothing; an unreadable request: no recipient, no addresses.
        assert_eq!(offer_in(&request("G"), "not json", "r1"), None);
        let unread = offer_in(b"{}", &answer, "r1").unwrap();
        assert_eq!((unread.recipient, unread.shipment), (None, None));
    }

    #[test]
    fn an_offer_is_held_for_the_rates_15_minutes_only() {
        let mut o = Offers::default();
        let acme = org("org_acme");
        o.hold(&acme, request("A"), answer(&["r1", "r2"]), 1_000);
        assert_eq!(o.get(&acme, "r2", 1_899).unwrap().carbon_grams, 890);
        assert_eq!(o.get(&acme, "r2", 1_900), None);
        assert_eq!(o.get(&acme, "r3", 1_000), None);
        // A later quote lets the expired one go.
        o.hold(&acme, request("B"), answer(&["r9"]), 1_900);
        assert_eq!(o.quotes.len(), 1);
    }

    #[test]
    fn an_organization_never_gets_another_s_offer() {
        let mut o = Offers::default();
        let (acme, globex) = (org("org_acme"), org("org_globex"));
        o.hold(&acme, request("Acme's"), answer(&["r1"]), 1_000);
        assert_eq!(o.get(&globex, "r1", 1_000), None);
        // The same rate id in both: each finds its own.
        o.hold(&globex, request("Globex's"), answer(&["r1"]), 1_001);
        let recipient = |org| o.get(org, "r1", 1_001).and_then(|x| x.recipient);
        assert_eq!(recipient(&acme).as_deref(), Some("Acme's"));
        assert_eq!(recipient(&globex).as_deref(), Some("Globex's"));
    }

    #[test]
    fn a_rate_is_found_by_its_whole_id_in_the_newest_quote_that_has_it() {
        let mut o = Offers::default();
        let acme = org("org_acme");
        o.hold(&acme, request("Old"), answer(&["r1", "r10"]), 1_000);
        o.hold(&acme, request("New"), answer(&["r10"]), 1_001);
        // "r1" is in the older quote only, though "r10" starts with it.
        let found = |id| o.get(&acme, id, 1_002).and_then(|x| x.recipient);
        assert_eq!(found("r1").as_deref(), Some("Old"));
        assert_eq!(found("r10").as_deref(), Some("New"));
        // An id that is only some other field's value is no rate.
        assert_eq!(o.get(&acme, "Pacific Post", 1_002), None);
    }

    #[test]
    fn past_the_bound_the_oldest_quotes_go_first() {
        let mut o = Offers::default();
        let acme = org("org_acme");
        // Each about 450 bytes: four times what fits.
        let ids: Vec<String> = (0..4 * MAX_BYTES / 450).map(|i| format!("r{i}")).collect();
        let now = 1_000;
        for id in &ids {
            o.hold(&acme, request("A"), answer(&[id]), now);
        }
        assert!(o.bytes <= MAX_BYTES);
        assert_eq!(o.bytes, o.quotes.iter().map(Quote::bytes).sum::<usize>());
        assert_eq!(o.get(&acme, &ids[0], now), None);
        assert!(o.get(&acme, ids.last().unwrap(), now).is_some());
        // What is held is the newest quotes, every one of them.
        let kept = o.quotes.len();
        assert!(kept > 100, "{kept} quotes");
        assert!(o.get(&acme, &ids[ids.len() - kept], now).is_some());
        assert_eq!(o.get(&acme, &ids[ids.len() - kept - 1], now), None);
    }
}
