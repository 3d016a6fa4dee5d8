//! Receiving `label.created`: which secret verifies a delivery, why one is
//! refused, what of a refused body is kept, and the inbox's protocol. The
//! signature check itself is `api::webhooks::verify`; the store is the
//! `WebhookInbox` object (`inbox`, in the ledger Worker: `ledger/`), the
//! endpoints are the main Worker's (`edge/src/webhooks.rs`).

mod error;
pub mod ledger;
pub mod offers;

pub use error::WebhookError;

use api::insights::Offered;

use crate::errors::SettingError;
use crate::objects::Object;
use crate::settings::Lookup;
use api::Label;
use api::inbox::{
    EXCERPT_BYTES, Inbox, MAX_BODY_BYTES, RejectReason, SecretSlot, VerifyRequest, VerifyResult,
};
use api::webhooks::{EVENT_LABEL_CREATED, SignatureError, WebhookEvent, verify};
use serde::{Deserialize, Serialize};

/// `WEBHOOK_SECRET` and, during a rotation, `WEBHOOK_SECRET_NEXT`.
#[derive(Default)]
pub struct Secrets {
    pub current: Option<Vec<u8>>,
    pub next: Option<Vec<u8>>,
}

pub const WEBHOOK_SECRET: &str = "WEBHOOK_SECRET";
pub const WEBHOOK_SECRET_NEXT: &str = "WEBHOOK_SECRET_NEXT";

impl Secrets {
    /// The deployment's secrets, each at least 16 characters.
    pub fn from_lookup(get: Lookup) -> Result<Secrets, SettingError> {
        let secret = |name| {
            get(name)
                .map(|s| s.trim().as_bytes().to_vec())
                .map(|s| {
                    if s.len() >= 16 {
                        Ok(s)
                    } else {
                        Err(SettingError::new(
                            name,
                            "it must be the service's webhook secret (at least 16 characters)",
                        ))
                    }
                })
                .transpose()
        };
        Ok(Secrets {
            current: secret(WEBHOOK_SECRET)?,
            next: secret(WEBHOOK_SECRET_NEXT)?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.current.is_none() && self.next.is_none()
    }

    /// The slot whose secret signed `body`. A header that is missing or
    /// malformed is refused as such whatever the secrets.
    pub fn verify(&self, body: &[u8], header: Option<&str>) -> Result<SecretSlot, RejectReason> {
        let mut reason = RejectReason::WrongSignature;
        for (slot, secret) in [
            (SecretSlot::Current, &self.current),
            (SecretSlot::Next, &self.next),
        ] {
            let Some(secret) = secret else { continue };
            match verify(secret, body, header) {
                Ok(()) => return Ok(slot),
                Err(SignatureError::Mismatch) => {}
                Err(e) => reason = e.into(),
            }
        }
        Err(reason)
    }
}

/// The verdict on one delivery: the label it announces, verified, or why not.
pub fn check(
    secrets: &Secrets,
    body: &[u8],
    header: Option<&str>,
) -> Result<(SecretSlot, Label), RejectReason> {
    if body.len() > MAX_BODY_BYTES {
        return Err(RejectReason::TooLarge);
    }
    let slot = secrets.verify(body, header)?;
    match serde_json::from_slice::<WebhookEvent>(body) {
        Ok(event) if event.event == EVENT_LABEL_CREATED && !event.data.id.is_empty() => {
            Ok((slot, event.data))
        }
        _ => Err(RejectReason::UnreadableEvent),
    }
}

/// The "verify a payload" helper: the same check on a pasted body.
pub fn verify_pasted(secrets: &Secrets, pasted: &VerifyRequest) -> VerifyResult {
    // Pasting often adds a trailing newline the service never signed.
    let signature = pasted.signature.trim();
    let signature = signature
        .strip_prefix("svc-signature:")
        .map_or(signature, str::trim);
    let header = (!signature.is_empty()).then_some(signature);
    let verdict = check(secrets, pasted.body.as_bytes(), header).or_else(|reason| {
        // Editors add a final newline; say so when that is the only difference.
        match pasted.body.strip_suffix('\n') {
            Some(trimmed) if reason == RejectReason::WrongSignature => {
                check(secrets, trimmed.as_bytes(), header)
            }
            _ => Err(reason),
        }
    });
    match verdict {
        Ok((slot, label)) => VerifyResult {
            reason: None,
            verified_with: Some(slot),
            label_id: Some(label.id),
        },
        Err(reason) => VerifyResult {
            reason: Some(reason),
            verified_with: None,
            label_id: serde_json::from_str::<WebhookEvent>(&pasted.body)
                .ok()
                .map(|e| e.data.id),
        },
    }
}

/// The start of a refused body, for display only: never parsed or trusted.
pub fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(EXCERPT_BYTES)]);
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

/// A `?q=` search as the inbox matches it: trimmed, lowercased, at most 100
/// characters. The store uses `instr`, not `LIKE`: no wildcards to escape,
/// and the platform caps LIKE patterns at 50 bytes.
pub fn search_needle(q: Option<&str>) -> Option<String> {
    let q = q?.trim();
    (!q.is_empty()).then(|| q.chars().take(100).collect::<String>().to_ascii_lowercase())
}

/// The inbox's protocol (the `WebhookInbox` object, one per organization).
pub struct InboxStore;

/// Where the inbox object takes a live feed's WebSocket (`?mode=live|sandbox`).
pub const LIVE_URL: &str = "https://object/live";
/// Where it answers the dashboard's reads that pass through the main Worker
/// as they are: `{READ_URL}{insights|history|shipments|export}/{live|sandbox}?<the
/// client's query>`, with the main Worker's request id in
/// [`REQUEST_ID_HEADER`] for the envelope of a bad query.
pub const READ_URL: &str = "https://object/read/";
pub const REQUEST_ID_HEADER: &str = "parcel-request-id";

impl Object for InboxStore {
    const BINDING: &'static str = "INBOX";
    type Request = InboxCall;
    type Error = WebhookError;
    fn unavailable() -> WebhookError {
        WebhookError::InboxUnavailable
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InboxCall {
    Accept(AcceptEvent),
    Bought(RecordPurchase),
    Reject(RecordRefusal),
    Inbox(ReadInbox),
    Void(RecordVoid),
    JobLabels(RecordJobLabels),
}

/// A verified `label.created` delivery: stored once per label. Labels
/// travel to the inbox as JSON text, read there by the parser the Worker
/// already has for them: a typed field would compile another deserializer
/// for labels into the wasm.
#[derive(Debug, Serialize, Deserialize)]
pub struct AcceptEvent {
    pub label: String,
    pub slot: SecretSlot,
}

/// A label bought through the dashboard, by this user (the service's
/// answer), with the rate it was bought at and what that rate's quote
/// offered, when the isolate that bought it still held it (`offers`), and
/// the merchant's reference, when the purchase carried one
/// ([`purchase_reference`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct RecordPurchase {
    pub label: String,
    pub user: String,
    #[serde(default)]
    pub offer: Option<offers::Offer>,
    #[serde(default)]
    pub reference: Option<String>,
}

/// The reference a label purchase carries in
/// `api::labels::REFERENCE_HEADER`, decoded and checked; none without the
/// header. Read before anything is bought: a refused one buys nothing.
pub fn purchase_reference(
    header: Option<&str>,
) -> Result<Option<String>, api::validation::BodyError> {
    match header {
        Some(value) => api::labels::purchase_reference(&crate::routes::percent_decode(value)),
        None => Ok(None),
    }
}

/// Labels a batch job bought, with what the ledger cannot learn from their
/// events: the job, who started it, each row's reference and recipient and
/// the carbon of the rate it bought.
#[derive(Debug, Serialize, Deserialize)]
pub struct RecordJobLabels {
    pub job: String,
    pub user: String,
    pub labels: Vec<JobLabel>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct JobLabel {
    /// The label as the job knows it (JSON text, as for purchases).
    pub label: String,
    pub reference: String,
    pub recipient: String,
    pub carbon_grams: i64,
    /// What the row's quote offered (jobs quoted before it was kept: none).
    pub offered: Option<Offered>,
    #[serde(default)]
    pub destination: Option<offers::Destination>,
    /// The row's addresses and parcel, as imported.
    #[serde(default)]
    pub shipment: Option<api::RatesRequest>,
}

impl JobLabel {
    /// A job's row that became a label, as the ledger learns it; `None`
    /// for a row not bought.
    pub fn of_bought(row: &crate::jobs::engine::Row, sandbox: bool) -> Option<JobLabel> {
        if row.state != api::jobs::RowState::Bought {
            return None;
        }
        let (quote, id) = (row.quote.as_ref()?, row.label_id.clone()?);
        let label = Label {
            id,
            tracking_number: row.tracking_number.clone().unwrap_or_default(),
            label_url: String::new(),
            carrier: quote.carrier.clone(),
            service: quote.service.clone(),
            rate_cents: quote.rate_cents,
            sandbox,
            wallet_balance_after_cents: 0,
            created_at: None,
        };
        let shipment = &row.row;
        Some(JobLabel {
            label: serde_json::to_string(&label).ok()?,
            reference: shipment.reference.clone(),
            recipient: shipment.to_address.name.clone(),
            carbon_grams: quote.carbon_grams,
            offered: quote.offered,
            destination: Some(offers::Destination::of(
                &shipment.to_address,
                &quote.carrier_eta,
            )),
            shipment: Some(api::RatesRequest {
                from_address: shipment.from_address.clone(),
                to_address: shipment.to_address.clone(),
                parcel: shipment.parcel,
            }),
        })
    }
}

/// A void requested through the dashboard, or seen confirmed in a read of
/// the label.
#[derive(Debug, Serialize, Deserialize)]
pub struct RecordVoid {
    pub id: String,
    pub confirmed: bool,
}

/// A refused delivery, kept for display.
#[derive(Debug, Serialize, Deserialize)]
pub struct RecordRefusal {
    pub reason: RejectReason,
    pub source_ip: String,
    pub excerpt: String,
    pub body_bytes: u64,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ReadInbox {
    pub sandbox: bool,
    pub needle: Option<String>,
    pub accepted: bool,
    pub rejected: bool,
}

crate::calls! {
    InboxCall for InboxStore:
    Accept(AcceptEvent) => Accepted,
    Bought(RecordPurchase) => (),
    Reject(RecordRefusal) => (),
    Inbox(ReadInbox) => Inbox,
    Void(RecordVoid) => (),
    JobLabels(RecordJobLabels) => (),
}

/// What the inbox answers to `Accept`: how many deliveries it has now seen.
#[derive(Debug, Serialize, Deserialize)]
pub struct Accepted {
    pub deliveries: u32,
}

/// The answer to a delivery the inbox took.
#[derive(Debug, Serialize)]
pub struct Receipt<'a> {
    pub received: bool,
    pub label_id: &'a str,
    pub deliveries: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::webhooks::sign;

    fn label_body(id: &str) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({
            "event": "label.created",
            "data": {
                "id": id, "tracking_number": "1Z1", "label_url": "https://l/1.pdf",
                "carrier": "ups", "service": "ground", "rate_cents": 812,
                "sandbox": false, "wallet_balance_after_cents": 9188
            }
        }))
        .unwrap()
    }

    fn secrets(current: Option<&str>, next: Option<&str>) -> Secrets {
        Secrets {
            current: current.map(|s| s.as_bytes().to_vec()),
            next: next.map(|s| s.as_bytes().to_vec()),
        }
    }

    #[test]
    fn accepts_either_secret_during_a_rotation() {
        let body = label_body("lbl_1");
        let both = secrets(Some("old-secret-0123456"), Some("new-secret-0123456"));
        let old = sign(b"old-secret-0123456", &body);
        let new = sign(b"new-secret-0123456", &body);
        assert_eq!(
            check(&both, &body, Some(&old)).unwrap().0,
            SecretSlot::Current
        );
        let (slot, label) = check(&both, &body, Some(&new)).unwrap();
        assert_eq!((slot, label.id.as_str()), (SecretSlot::Next, "lbl_1"));
        // Once rotated, the old secret no longer verifies.
        let rotated = secrets(Some("new-secret-0123456"), None);
        assert_eq!(
            check(&rotated, &body, Some(&old)).unwrap_err(),
            RejectReason::WrongSignature
        );
    }

    #[test]
    fn refuses_tampering_and_bad_headers_with_the_reason() {
        let s = secrets(Some("whsec-0123456789ab"), None);
        let body = label_body("lbl_1");
        let sig = sign(b"whsec-0123456789ab", &body);
        let tampered = label_body("lbl_2");
        let refused = |body: &[u8], header: Option<&str>| check(&s, body, header).unwrap_err();
        assert_eq!(refused(&tampered, Some(&sig)), RejectReason::WrongSignature);
        assert_eq!(refused(&body, None), RejectReason::MissingSignature);
        assert_eq!(
            refused(&body, Some("sha256=zz")),
            RejectReason::MalformedSignature
        );
        assert_eq!(
            refused(&body, Some(&sign(b"other-secret-000000", &body))),
            RejectReason::WrongSignature
        );
        let big = vec![b' '; MAX_BODY_BYTES + 1];
        assert_eq!(refused(&big, Some(&sig)), RejectReason::TooLarge);
        // Signed but not our event: refused, not trusted.
        let other = br#"{"event":"label.voided","data":{}}"#;
        assert_eq!(
            refused(other, Some(&sign(b"whsec-0123456789ab", other))),
            RejectReason::UnreadableEvent
        );
        // No secret at all verifies nothing.
        assert_eq!(
            check(&Secrets::default(), &body, Some(&sig)).unwrap_err(),
            RejectReason::WrongSignature
        );
    }

    #[test]
    fn the_paste_helper_forgives_a_header_name_and_a_final_newline() {
        let s = secrets(Some("whsec-0123456789ab"), None);
        let body = String::from_utf8(label_body("lbl_9")).unwrap();
        let sig = sign(b"whsec-0123456789ab", body.as_bytes());
        let result = verify_pasted(
            &s,
            &VerifyRequest {
                body: format!("{body}\n"),
                signature: format!("svc-signature: {sig}\n"),
            },
        );
        assert_eq!(result.reason, None);
        assert_eq!(result.verified_with, Some(SecretSlot::Current));
        assert_eq!(result.label_id.as_deref(), Some("lbl_9"));
        let wrong = verify_pasted(
            &s,
            &VerifyRequest {
                body: body.replace("812", "1"),
                signature: sig,
            },
        );
        assert_eq!(wrong.reason, Some(RejectReason::WrongSignature));
        assert_eq!(wrong.label_id.as_deref(), Some("lbl_9"));
    }

    #[test]
    fn excerpts_are_bounded_and_inert() {
        let body = [b"\x1b[31m<script>".as_slice(), &[b'a'; 2000]].concat();
        let e = excerpt(&body);
        assert!(e.chars().count() <= EXCERPT_BYTES);
        assert!(!e.contains('\x1b'));
    }

    #[test]
    fn a_purchase_reference_comes_percent_encoded_and_is_bounded() {
        assert_eq!(purchase_reference(None), Ok(None));
        assert_eq!(purchase_reference(Some("%20%20")), Ok(None));
        assert_eq!(
            purchase_reference(Some("%23Bestellung%20%C3%846%2B1%20")),
            Ok(Some("#Bestellung Ä6+1".into()))
        );
        let long = "%C3%A9".repeat(101);
        let Err(api::validation::BodyError::Invalid { field, .. }) =
            purchase_reference(Some(&long))
        else {
            panic!("101 characters accepted")
        };
        assert_eq!(field, api::labels::REFERENCE_HEADER);
        assert!(purchase_reference(Some(&"%C3%A9".repeat(100))).is_ok());
    }

    #[test]
    fn a_bought_batch_row_brings_the_ledger_its_addresses_and_parcel() {
        use crate::jobs::engine::Row;
        use api::jobs::{JobRow, RowQuote, RowState};
        let address = |name: &str, street: &str| api::Address {
            name: name.into(),
            street1: street.into(),
            street2: Some("Suite 2".into()),
            city: "Springfield".into(),
            state: "IL".into(),
            zip: "62701".into(),
            country: "US".into(),
            phone: None,
            email: Some("orders@example.com".into()),
        };
        let job_row = JobRow {
            reference: "#00001".into(),
            from_address: address("Shop", "1 Main St"),
            to_address: address("Customer 1", "2 Oak Ave"),
            parcel: api::Parcel {
                weight_oz: 12.5,
                length: 9.0,
                width: 6.0,
                height: 3.0,
            },
        };
        let mut row = Row::new(0, job_row.clone());
        assert!(JobLabel::of_bought(&row, true).is_none());
        row.state = RowState::Bought;
        row.label_id = Some("lbl_1".into());
        row.tracking_number = Some("9400".into());
        row.quote = Some(RowQuote {
            rate_id: "rate_1".into(),
            carrier: "Pacific Post".into(),
            service: "Ground".into(),
            rate_cents: 812,
            carbon_grams: 640,
            carrier_eta: "2026-11-30".into(),
            quoted_at: 1,
            offered: None,
        });
        let bought = JobLabel::of_bought(&row, true).unwrap();
        assert_eq!(
            (bought.reference.as_str(), bought.recipient.as_str()),
            ("#00001", "Customer 1")
        );
        let shipment = bought.shipment.unwrap();
        assert_eq!(shipment.from_address, job_row.from_address);
        assert_eq!(shipment.to_address, job_row.to_address);
        assert_eq!(shipment.parcel, job_row.parcel);
    }

    #[test]
    fn searches_are_trimmed_lowercased_and_bounded() {
        assert_eq!(search_needle(Some(" 1Z% ")).as_deref(), Some("1z%"));
        assert_eq!(search_needle(Some("  ")), None);
        assert_eq!(search_needle(None), None);
        assert_eq!(search_needle(Some(&"x".repeat(500))).unwrap().len(), 100);
    }
}
