//! The shop's tracking events: where they may go, which of them a
//! tracker's read makes (each at most once per label, in the order a
//! parcel moves), the attempts of one delivery on v1's own schedule, and
//! the signature: `sha256=` HMAC like v1's, over the timestamp and the
//! body, so a replayed delivery can be refused. Sent by the ledger's object
//! (`ledger/src/inbox/shop_events.rs`).

pub use api::shipments::Event;
use api::signing::{hmac_matches, hmac_sha256};
use api::webhooks::{RETRY_SCHEDULE_SECONDS, SignatureError, is_success_status};
use api::{ErrorCode, TrackerStatus};

use crate::errors::Failure;

use super::page::days_between;

/// Where the ledger's object answers `GET` and `PUT
/// /api/org/tracking/events` (`?origin=`: the deployment's, for the events'
/// tracking links) and, at `{EVENTS_URL}/{id}`, a resend.
pub const EVENTS_URL: &str = "https://object/tracking-events";

/// A signing secret: this prefix and 24 random bytes in hex.
pub const SECRET_PREFIX: &str = "evsec_";
pub const SECRET_BYTES: usize = 24;

/// An event's id: `sev_` and 12 random bytes in hex.
pub const ID_PREFIX: &str = "sev_";
pub const ID_BYTES: usize = 12;

/// Deliveries attempted per alarm, beside the trackers' calls (a Worker
/// invocation's subrequests are limited).
pub const SENDS_PER_ALARM: usize = 8;

/// How long a shop has to answer one attempt.
pub const SEND_TIMEOUT_MS: u32 = 10_000;

/// Why a URL cannot receive events: `https://` to a host, or `http://` to
/// this machine's loopback (a Worker in the cloud cannot reach it; local
/// runs and tests can); no credentials, no fragment, at most 2,000 bytes.
pub fn check_url(url: &str) -> Result<(), &'static str> {
    const NEED: &str = "an https:// address (or http:// to localhost), without credentials";
    if url.len() > 2_000 || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(NEED);
    }
    let loopback = ["127.0.0.1", "localhost", "[::1]"];
    let authority = |rest: &str| rest.split(['/', '?', '#']).next().unwrap_or("").to_string();
    let ok = if let Some(rest) = url.strip_prefix("https://") {
        let host = authority(rest);
        !host.is_empty() && !host.starts_with(':')
    } else if let Some(rest) = url.strip_prefix("http://") {
        let host = authority(rest);
        let name = host
            .rsplit_once(':')
            .filter(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()));
        loopback.contains(&name.map_or(host.as_str(), |(h, _)| h))
    } else {
        false
    };
    if ok
        && !authority(url.split_once("://").map_or("", |(_, r)| r)).contains('@')
        && !url.contains('#')
    {
        Ok(())
    } else {
        Err(NEED)
    }
}

/// Why a resend was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResendError {
    NotFound,
    /// No URL is set.
    Off,
    /// An attempt of it is on its way now.
    Sending,
}

impl Failure for ResendError {
    fn code(&self) -> ErrorCode {
        match self {
            ResendError::NotFound => ErrorCode::EdgeEventNotFound,
            _ => ErrorCode::EdgeEventRefused,
        }
    }
    fn message(&self) -> String {
        match self {
            ResendError::NotFound => "No tracking event of this organization has that id.",
            ResendError::Off => "Events are off: no URL is set for them.",
            ResendError::Sending => "That event is being sent right now.",
        }
        .to_string()
    }
    fn suggestion(&self) -> String {
        match self {
            ResendError::NotFound => "Choose an event from the list on the Tracking page.",
            ResendError::Off => "Set the shop's URL on the Tracking page, then send it again.",
            ResendError::Sending => "Wait a few seconds and look at its attempts.",
        }
        .to_string()
    }
}

/// The header of a shop event's signature: `t={unix seconds},sha256={hex}`.
pub const SIGNATURE_HEADER: &str = "parcel-signature";

/// How far a signature's time may be from the receiver's clock.
pub const TOLERANCE_SECONDS: u64 = 300;

/// The events a read with `status` makes that `sent` does not hold yet, in
/// order: a parcel first seen delivered still reports it was in transit
/// and out for delivery. "Arriving soon" is due on the day before the
/// estimated day (`YYYY-MM-DD`, `today` too), while it is still on its way.
pub fn due(
    sent: &[Event],
    status: TrackerStatus,
    estimated: Option<&str>,
    today: &str,
) -> Vec<Event> {
    let reached: &[Event] = match status {
        TrackerStatus::InTransit => &[Event::InTransit],
        TrackerStatus::OutForDelivery => &[Event::InTransit, Event::OutForDelivery],
        TrackerStatus::Delivered => &[Event::InTransit, Event::OutForDelivery, Event::Delivered],
        TrackerStatus::PreTransit | TrackerStatus::Unknown => &[],
    };
    let soon = status == TrackerStatus::InTransit
        && estimated.and_then(|day| days_between(today, day)) == Some(1);
    let mut due: Vec<Event> = reached.to_vec();
    if soon {
        due.push(Event::ArrivingSoon);
    }
    due.retain(|e| !sent.contains(e));
    due.sort();
    due
}

/// What follows an attempt (1 to 5) of one delivery made at `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Delivered,
    /// The next attempt, at this time.
    Retry(u64),
    /// Five attempts failed.
    GaveUp,
}

/// After attempt `attempt` answered `status` (`None`: no answer in time).
pub fn after_attempt(attempt: u32, status: Option<u16>, at: u64) -> Next {
    if status.is_some_and(is_success_status) {
        return Next::Delivered;
    }
    match RETRY_SCHEDULE_SECONDS.get(attempt as usize) {
        Some(wait) => Next::Retry(at + wait),
        None => Next::GaveUp,
    }
}

/// The signature header of `body` sent at `at`.
pub fn sign(secret: &[u8], at: u64, body: &[u8]) -> String {
    format!(
        "t={at},sha256={}",
        hex::encode(hmac_sha256(secret, &signed(at, body)))
    )
}

/// Whether `header` signs `body` with `secret` within the tolerance of `now`.
pub fn verify(secret: &[u8], header: &str, body: &[u8], now: u64) -> Result<(), SignatureError> {
    let (t, sig) = header
        .trim()
        .split_once(",sha256=")
        .ok_or(SignatureError::Malformed)?;
    let at: u64 = t
        .strip_prefix("t=")
        .and_then(|t| t.parse().ok())
        .ok_or(SignatureError::Malformed)?;
    let given = hex::decode(sig).map_err(|_| SignatureError::Malformed)?;
    if now.abs_diff(at) > TOLERANCE_SECONDS {
        return Err(SignatureError::Mismatch);
    }
    if hmac_matches(secret, &signed(at, body), &given) {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

/// What is signed: `{t}.{body}`.
fn signed(at: u64, body: &[u8]) -> Vec<u8> {
    let mut data = format!("{at}.").into_bytes();
    data.extend_from_slice(body);
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use TrackerStatus::*;

    #[test]
    fn events_go_to_https_or_this_machine_only() {
        for ok in [
            "https://shop.example/hooks/parcel?k=1",
            "https://shop.example:8443",
            "http://127.0.0.1:9000/events",
            "http://localhost/x",
            "http://[::1]:80/",
        ] {
            assert_eq!(check_url(ok), Ok(()), "{ok}");
        }
        for bad in [
            "http://shop.example/events",
            "http://127.0.0.1.evil.example/",
            "http://localhost@evil.example/",
            "https://user:pass@shop.example/",
            "https://",
            "https://shop.example/a b",
            "https://shop.example/#x",
            "ftp://shop.example",
            "shop.example",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        assert!(check_url(&format!("https://shop.example/{}", "a".repeat(2_000))).is_err());
    }

    #[test]
    fn each_event_once_and_in_order() {
        assert_eq!(due(&[], PreTransit, None, "2026-06-01"), []);
        assert_eq!(
            due(&[], InTransit, Some("2026-06-05"), "2026-06-01"),
            [Event::InTransit]
        );
        let sent = [Event::InTransit];
        assert_eq!(due(&sent, InTransit, Some("2026-06-05"), "2026-06-02"), []);
        assert_eq!(
            due(&sent, InTransit, Some("2026-06-05"), "2026-06-04"),
            [Event::ArrivingSoon]
        );
        let sent = [Event::InTransit, Event::ArrivingSoon];
        assert_eq!(due(&sent, InTransit, Some("2026-06-05"), "2026-06-04"), []);
        assert_eq!(
            due(&sent, OutForDelivery, None, "2026-06-05"),
            [Event::OutForDelivery]
        );
        // First seen delivered: every step it took, in order.
        assert_eq!(
            due(&[], Delivered, None, "2026-06-05"),
            [Event::InTransit, Event::OutForDelivery, Event::Delivered]
        );
    }

    #[test]
    fn a_failing_shop_gets_v1_s_schedule_then_nothing() {
        // The shop answers 500 four times, then 200: attempts at the
        // times v1 would make them, each counted from the one before.
        let mut at = 1_000;
        let mut times = vec![at];
        for attempt in 1..=4 {
            match after_attempt(attempt, Some(500), at) {
                Next::Retry(next) => at = next,
                other => panic!("attempt {attempt}: {other:?}"),
            }
            times.push(at);
        }
        assert_eq!(times, [1_000, 1_300, 3_100, 10_300, 96_700]);
        assert_eq!(after_attempt(5, Some(200), at), Next::Delivered);
        assert_eq!(after_attempt(5, None, at), Next::GaveUp);
        assert_eq!(after_attempt(1, Some(302), 0), Next::Retry(300));
    }

    #[test]
    fn signatures_bind_the_body_and_the_time() {
        let secret = b"evsec_0123456789abcdef";
        let body = br#"{"event":"shipment.delivered"}"#;
        let header = sign(secret, 1_000, body);
        assert!(header.starts_with("t=1000,sha256="));
        assert_eq!(verify(secret, &header, body, 1_100), Ok(()));
        assert_eq!(
            verify(secret, &header, b"{}", 1_100),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(b"another", &header, body, 1_100),
            Err(SignatureError::Mismatch)
        );
        // A replay past the tolerance is refused.
        assert_eq!(
            verify(secret, &header, body, 1_301),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(secret, "sha256=00", body, 1_000),
            Err(SignatureError::Malformed)
        );
        // The documented check: HMAC-SHA256 of "{t}.{body}" in hex.
        let expected = hex::encode(hmac_sha256(
            secret,
            b"1000.{\"event\":\"shipment.delivered\"}",
        ));
        assert_eq!(header, format!("t=1000,sha256={expected}"));
    }
}
