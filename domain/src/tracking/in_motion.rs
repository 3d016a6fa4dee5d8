//! 200 labels in motion against a service that counts each key's calls in
//! fixed minutes of its own clock, at the real limits, while people use
//! every call the trackers leave them: in virtual time, three days.

use std::collections::HashMap;

use api::{EndpointId, TrackerStatus};

use super::schedule::{Follow, Outcome};
use super::share::{Answer, Budget, PER_ALARM, wake_at};

const HOUR: u64 = 3600;
const LABELS: usize = 200;
const DAYS: u64 = 3;

/// The service's limits: fixed minutes that start `align` seconds off
/// ours, on a clock `ahead` of ours.
struct Service {
    align: u64,
    ahead: u64,
    counts: HashMap<(EndpointId, u64), u32>,
    refused: u32,
}

impl Service {
    fn limit(endpoint: EndpointId) -> u32 {
        match endpoint {
            EndpointId::CreateTracker => 200,
            _ => 300,
        }
    }

    fn call(&mut self, endpoint: EndpointId, now: u64) -> Answer {
        let minute = (now + self.align) / 60;
        let ends = (minute + 1) * 60 - self.align;
        let limit = Self::limit(endpoint);
        let count = self.counts.entry((endpoint, minute)).or_default();
        if *count >= limit {
            self.refused += 1;
            return Answer::TooMany {
                retry_after: ends - now,
            };
        }
        *count += 1;
        Answer::Limits {
            limit,
            remaining: limit - *count,
            reset_at: ends + self.ahead,
        }
    }
}

/// A parcel as its carrier sees it: scanned, out for delivery 36 h later,
/// delivered at 40 h (the simulator's timeline).
struct Parcel {
    bought: u64,
    scanned: u64,
    follow: Follow,
    registered_at: Option<u64>,
    /// When each status was first seen by the trackers.
    seen: HashMap<&'static str, u64>,
    reads_after_delivery: u32,
}

impl Parcel {
    fn status(&self, now: u64) -> TrackerStatus {
        match now.checked_sub(self.scanned) {
            None => TrackerStatus::PreTransit,
            Some(t) if t < 36 * HOUR => TrackerStatus::InTransit,
            Some(t) if t < 40 * HOUR => TrackerStatus::OutForDelivery,
            Some(_) => TrackerStatus::Delivered,
        }
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// One alarm of the object: registrations first, then reads, each within
/// its budget and all within `PER_ALARM`; the next wake.
fn alarm(
    now: u64,
    parcels: &mut [Parcel],
    service: &mut Service,
    post: &mut Budget,
    get: &mut Budget,
) -> u64 {
    let mut order: Vec<usize> = (0..parcels.len())
        .filter(|i| parcels[*i].follow.due().is_some_and(|d| d <= now))
        .collect();
    order.sort_by_key(|i| parcels[*i].follow.due());
    let mut calls = 0;
    for i in order {
        let p = &mut parcels[i];
        let registering = matches!(p.follow, Follow::Registering { .. });
        let (endpoint, budget) = if registering {
            (EndpointId::CreateTracker, &mut *post)
        } else {
            (EndpointId::GetTracker, &mut *get)
        };
        if calls == PER_ALARM || budget.allowance(now) == 0 {
            continue;
        }
        calls += 1;
        budget.spend(now);
        let answer = service.call(endpoint, now);
        budget.observe(now, answer);
        let outcome = match answer {
            Answer::TooMany { .. } => Outcome::Retry,
            _ => Outcome::Tracked(p.status(now)),
        };
        if let Outcome::Tracked(status) = outcome {
            p.seen.entry(status.as_str()).or_insert(now);
            if p.seen.contains_key("delivered") && status == TrackerStatus::Delivered {
                p.reads_after_delivery += u32::from(!registering);
            }
        }
        let follow = std::mem::replace(&mut p.follow, Follow::Abandoned);
        p.follow = if registering {
            p.registered_at.get_or_insert(now);
            follow.registered(outcome, Some(format!("trk_{i}")), now, p.bought)
        } else {
            follow.read(outcome, now, p.bought)
        };
    }
    let first = |registering: bool| {
        parcels
            .iter()
            .filter(|p| matches!(p.follow, Follow::Registering { .. }) == registering)
            .filter_map(|p| p.follow.due())
            .min()
    };
    [
        wake_at(now, first(true), post),
        wake_at(now, first(false), get),
    ]
    .into_iter()
    .flatten()
    .min()
    .map_or(u64::MAX, |at| at.max(now + 1))
}

#[test]
fn two_hundred_labels_in_motion_at_the_real_limits() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut parcels: Vec<Parcel> = (0..LABELS)
        .map(|i| Parcel {
            // A batch of 150 at once, then labels bought one by one.
            bought: if i < 150 { 0 } else { rng.below(2 * HOUR) },
            scanned: 2 * HOUR + rng.below(6 * HOUR),
            follow: Follow::new(0),
            registered_at: None,
            seen: HashMap::new(),
            reads_after_delivery: 0,
        })
        .map(|mut p| {
            p.follow = Follow::new(p.bought);
            p
        })
        .collect();
    let mut service = Service {
        align: 17,
        ahead: 3 * 24 * HOUR,
        counts: HashMap::new(),
        refused: 0,
    };
    let (mut post, mut get) = (
        Budget::new(EndpointId::CreateTracker),
        Budget::new(EndpointId::GetTracker),
    );
    // People and batch jobs use every call of each minute the trackers
    // leave them, at random seconds of it.
    let mut people: Vec<(u64, EndpointId)> = Vec::new();
    for minute in 0..DAYS * 24 * 60 {
        let start = minute * 60 + 60 - service.align;
        for (endpoint, budget) in [
            (EndpointId::CreateTracker, &post),
            (EndpointId::GetTracker, &get),
        ] {
            for _ in 0..budget.reserve() {
                people.push((start + rng.below(60), endpoint));
            }
        }
    }
    people.sort_unstable_by_key(|(at, _)| *at);
    let mut people = people.into_iter().peekable();
    let mut wake = 0;
    let mut people_calls = 0;
    let end = DAYS * 24 * HOUR;
    for now in 0..end {
        while people.peek().is_some_and(|(at, _)| *at == now) {
            let Some((_, endpoint)) = people.next() else {
                break;
            };
            people_calls += 1;
            assert!(
                !matches!(service.call(endpoint, now), Answer::TooMany { .. }),
                "a person's call refused at {now}"
            );
        }
        if now >= wake {
            // Only labels already bought are in the ledger.
            let bought = parcels.iter().filter(|p| p.bought <= now).count();
            let mut known: Vec<Parcel> = Vec::new();
            let mut later: Vec<Parcel> = Vec::new();
            for p in parcels.drain(..) {
                if p.bought <= now {
                    known.push(p)
                } else {
                    later.push(p)
                }
            }
            assert_eq!(known.len(), bought);
            wake = alarm(now, &mut known, &mut service, &mut post, &mut get);
            // A purchase wakes the object.
            if let Some(next) = later.iter().map(|p| p.bought).min() {
                wake = wake.min(next);
            }
            parcels = known;
            parcels.extend(later);
        }
    }
    assert_eq!(service.refused, 0, "429s");
    assert!(
        people_calls > 1_000_000,
        "people called {people_calls} times"
    );
    for p in &parcels {
        let registered = p.registered_at.expect("registered");
        assert!(
            registered - p.bought <= 5 * 60,
            "registered after {} s",
            registered - p.bought
        );
        let late = |status: &str, at: u64, every: u64| {
            let seen = p.seen[status];
            assert!(
                seen >= at && seen <= at + every + 120,
                "{status} at {at}, seen at {seen}"
            );
        };
        late("in_transit", p.scanned, HOUR);
        late("out_for_delivery", p.scanned + 36 * HOUR, HOUR);
        late("delivered", p.scanned + 40 * HOUR, 15 * 60);
        assert_eq!(p.reads_after_delivery, 1, "read once delivered, then never");
        assert_eq!(p.follow.due(), None);
    }
}
