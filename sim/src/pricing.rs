//! Deterministic prices, ETAs and carbon: pure functions of the input, so
//! tests can rely on them. Distance comes from the first three digits of the
//! ZIP codes; weight is the billable weight (actual or dimensional).

use api::{Address, Parcel};

#[derive(Debug)]
pub struct Service {
    pub carrier: &'static str,
    pub service: &'static str,
    pub base_cents: i64,
    pub per_lb_cents: i64,
    pub per_zone_cents: i64,
    pub residential_cents: i64,
    pub transit_days: u64,
    pub max_weight_oz: f64,
    /// Overnight services do not reach AK, HI or PR.
    pub overnight: bool,
    /// Grams of CO2 per kg per zone.
    pub carbon_factor: i64,
}

#[allow(clippy::too_many_arguments)] // a table row constructor; the SERVICES table reads better positionally
const fn svc(
    carrier: &'static str,
    service: &'static str,
    base_cents: i64,
    per_lb_cents: i64,
    per_zone_cents: i64,
    residential_cents: i64,
    transit_days: u64,
    max_weight_oz: f64,
    overnight: bool,
    carbon_factor: i64,
) -> Service {
    Service {
        carrier,
        service,
        base_cents,
        per_lb_cents,
        per_zone_cents,
        residential_cents,
        transit_days,
        max_weight_oz,
        overnight,
        carbon_factor,
    }
}

/// The four simulated carriers and their services.
pub const SERVICES: &[Service] = &[
    svc(
        "Pacific Post",
        "Ground Advantage",
        465,
        85,
        42,
        0,
        5,
        1120.0,
        false,
        60,
    ),
    svc(
        "Pacific Post",
        "Priority",
        795,
        120,
        65,
        0,
        3,
        1120.0,
        false,
        90,
    ),
    svc(
        "Atlas Freight",
        "Ground",
        899,
        70,
        55,
        485,
        5,
        2400.0,
        false,
        55,
    ),
    svc(
        "Atlas Freight",
        "Next Day Air",
        2450,
        310,
        180,
        485,
        1,
        2400.0,
        true,
        420,
    ),
    svc(
        "Comet Express",
        "Express Saver",
        1095,
        140,
        95,
        510,
        3,
        2400.0,
        false,
        180,
    ),
    svc(
        "Comet Express",
        "Overnight",
        2995,
        350,
        210,
        510,
        1,
        2400.0,
        true,
        450,
    ),
    svc(
        "Harbor Parcel",
        "Economy",
        389,
        60,
        30,
        150,
        7,
        800.0,
        false,
        40,
    ),
];

pub const CARRIERS: [&str; 4] = [
    "Pacific Post",
    "Atlas Freight",
    "Comet Express",
    "Harbor Parcel",
];

/// Platform rates carry a margin; BYOA rates are the carrier's price (part 1).
pub const PLATFORM_MARKUP_PERCENT: i64 = 8;

fn zip3(zip: &str) -> i64 {
    let digits: String = zip.chars().filter(char::is_ascii_digit).take(3).collect();
    digits
        .parse()
        .unwrap_or_else(|_| zip.bytes().map(i64::from).sum::<i64>() % 1000)
}

/// Zone 1 to 8 from the distance between ZIP prefixes.
pub fn zone(from: &Address, to: &Address) -> i64 {
    if !from.country.eq_ignore_ascii_case(&to.country) {
        return 8;
    }
    1 + ((zip3(&from.zip) - zip3(&to.zip)).abs() * 7 / 999).min(7)
}

/// Billable weight in whole pounds: the larger of actual and dimensional (L×W×H/139).
pub fn billable_lb(parcel: &Parcel) -> i64 {
    let actual = parcel.weight_oz / 16.0;
    let dimensional = parcel.length * parcel.width * parcel.height / 139.0;
    actual.max(dimensional).ceil().max(1.0) as i64
}

/// Residential unless the address looks commercial (a company name, or a
/// suite/floor/unit line). Deterministic, documented in README.
pub fn is_residential(address: &Address) -> bool {
    let name = address.name.to_ascii_lowercase();
    let street = format!(
        "{} {}",
        address.street1,
        address.street2.as_deref().unwrap_or("")
    )
    .to_ascii_lowercase();
    let company = [" inc", " llc", " ltd", " corp", " co.", " gmbh", "company"]
        .iter()
        .any(|m| name.contains(m));
    let office = ["suite", "ste ", "floor", "fl ", "unit ", "dock"]
        .iter()
        .any(|m| street.contains(m));
    !(company || office)
}

pub fn carrier_cost_cents(s: &Service, from: &Address, to: &Address, parcel: &Parcel) -> i64 {
    let residential = if is_residential(to) {
        s.residential_cents
    } else {
        0
    };
    s.base_cents
        + s.per_lb_cents * billable_lb(parcel)
        + s.per_zone_cents * zone(from, to)
        + residential
}

pub fn platform_cents(carrier_cost: i64) -> i64 {
    carrier_cost + (carrier_cost * PLATFORM_MARKUP_PERCENT + 99) / 100
}

pub fn transit_days(s: &Service, from: &Address, to: &Address) -> u64 {
    s.transit_days
        + if s.transit_days > 1 {
            (zone(from, to) as u64) / 4
        } else {
            0
        }
}

pub fn carbon_grams(s: &Service, from: &Address, to: &Address, parcel: &Parcel) -> i64 {
    let kg = (parcel.weight_oz * 0.02835).max(0.1);
    ((kg * (s.carbon_factor * zone(from, to)) as f64).round() as i64).max(1)
}

/// Why `s` cannot carry this parcel on this route, if it cannot.
pub fn service_problem(s: &Service, to: &Address, parcel: &Parcel) -> Option<Problem> {
    if parcel.weight_oz > s.max_weight_oz {
        return Some(Problem::Weight);
    }
    let remote = ["AK", "HI", "PR"]
        .iter()
        .any(|st| to.state.eq_ignore_ascii_case(st));
    let foreign = !to.country.eq_ignore_ascii_case("US");
    if (s.overnight && remote) || (foreign && s.carrier != "Comet Express") {
        return Some(Problem::Route);
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    Weight,
    Route,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(name: &str, street: &str, zip: &str) -> Address {
        Address {
            name: name.into(),
            street1: street.into(),
            street2: None,
            city: "X".into(),
            state: "CA".into(),
            zip: zip.into(),
            country: "US".into(),
            phone: None,
            email: None,
        }
    }

    #[test]
    fn zones_grow_with_distance() {
        let sf = addr("a", "1 Main St", "94107");
        assert_eq!(zone(&sf, &addr("b", "1 Main St", "94110")), 1);
        assert_eq!(zone(&sf, &addr("b", "1 Main St", "10001")), 6);
        assert_eq!(zone(&sf, &addr("b", "1 Main St", "00501")), 7);
    }

    #[test]
    fn dimensional_weight_counts() {
        let light_big = Parcel {
            weight_oz: 8.0,
            length: 20.0,
            width: 20.0,
            height: 20.0,
        };
        assert_eq!(billable_lb(&light_big), 58);
        assert_eq!(
            billable_lb(&Parcel {
                weight_oz: 8.0,
                length: 6.0,
                width: 4.0,
                height: 2.0
            }),
            1
        );
    }

    #[test]
    fn residential_classification() {
        assert!(is_residential(&addr("Ada Lovelace", "12 Elm St", "1")));
        assert!(!is_residential(&addr("Acme Inc", "12 Elm St", "1")));
        assert!(!is_residential(&addr(
            "Ada",
            "500 Market St Suite 300",
            "1"
        )));
    }

    #[test]
    fn markup_rounds_up() {
        assert_eq!(platform_cents(1000), 1080);
        assert_eq!(platform_cents(1001), 1082);
    }
}
