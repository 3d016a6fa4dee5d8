//! The v1 endpoints of part 4. Each handler parses and validates its input,
//! then asks `World` to act. Auth, scope and limits happened before (http.rs).

use std::sync::Arc;

use api::batches::MAX_BATCH_ITEMS;
use api::webhooks::DeliveryList;
use api::{
    Address, AddressValidation, BuyBatchRequest, BuyLabelRequest, CarrierAccountList,
    CreateTrackerRequest, ErrorCode, RatesRequest, RatesResponse, ResultsPage, VoidResponse,
};
use axum::Json;
use axum::extract::{Extension, Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::Sim;
use crate::body::JsonBody;
use crate::errors::SimError;
use crate::http::Caller;

/// A JSON value read by the same strict rules as a body (for batch items,
/// read one by one so the size rules come first).
fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, SimError> {
    api::validation::parse_json(bytes).map_err(SimError::from)
}

type Reply = Result<Response, SimError>;

fn ok<T: serde::Serialize>(status: StatusCode, value: T) -> Reply {
    Ok((status, Json(value)).into_response())
}

pub async fn validate_address(
    State(sim): State<Arc<Sim>>,
    JsonBody(address): JsonBody<Address>,
) -> Reply {
    // Field checks serde cannot express (non-empty strings, lengths, codes
    // that exist): the `api` rules the Worker applies too.
    address.check("")?;
    if sim.world().faults().address_service_down {
        return Err(SimError::new(
            ErrorCode::AddressValidationServiceError,
            "The address validation service is temporarily down.",
            "Try again in a minute; rates and labels still work.",
        ));
    }
    let street = address.street1.to_ascii_uppercase();
    if street.contains("UNDELIVERABLE") {
        return Err(SimError::new(
            ErrorCode::AddressValidationFailed,
            format!(
                "No carrier can deliver to {}, {} {}.",
                address.street1, address.city, address.zip
            ),
            "Check the street and number with the recipient; a label to it would fail.",
        )
        .field("street1"));
    }
    if street.contains("AMBIGUOUS") {
        let base = address
            .street1
            .replace("AMBIGUOUS", "")
            .replace("ambiguous", "")
            .trim()
            .to_string();
        let suggestion = |dir: &str, zip_suffix: &str| Address {
            street1: format!("{base} {dir}").trim().to_string(),
            zip: format!(
                "{}-{zip_suffix}",
                address.zip.chars().take(5).collect::<String>()
            ),
            ..address.clone()
        };
        let mut e = SimError::new(
            ErrorCode::AddressValidationAmbiguous,
            format!("{} matches several addresses.", address.street1),
            "Pick one of the suggestions and validate it again.",
        );
        e.error.suggestions = Some(vec![suggestion("N", "1001"), suggestion("S", "2002")]);
        return Err(e);
    }
    let residential = crate::pricing::is_residential(&address);
    let normalized = Address {
        name: address.name.trim().to_string(),
        street1: address.street1.trim().to_ascii_uppercase(),
        street2: address
            .street2
            .as_ref()
            .map(|s| s.trim().to_ascii_uppercase()),
        city: address.city.trim().to_ascii_uppercase(),
        state: address.state.trim().to_ascii_uppercase(),
        zip: address.zip.trim().to_string(),
        country: address.country.trim().to_ascii_uppercase(),
        ..address
    };
    ok(
        StatusCode::OK,
        AddressValidation {
            valid: true,
            residential,
            normalized,
        },
    )
}

pub async fn rates(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    JsonBody(req): JsonBody<RatesRequest>,
) -> Reply {
    req.check()?;
    let (rates, down) = sim.world().quote(
        &c.account,
        c.env,
        &req.from_address,
        &req.to_address,
        &req.parcel,
        c.now,
    );
    if down.is_empty() {
        return ok(StatusCode::OK, RatesResponse { rates, error: None });
    }
    let mut e = SimError::new(
        ErrorCode::RateCarrierUnavailable,
        format!(
            "{} did not answer; rates from the other carriers are included.",
            down.join(", ")
        ),
        "Buy one of the returned rates, or ask again in a minute for the missing carrier.",
    );
    e.error.unavailable_carriers = Some(down);
    e.body_extra = Some(("rates", serde_json::to_value(rates).unwrap_or_default()));
    Err(e)
}

pub async fn buy_label(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    JsonBody(req): JsonBody<BuyLabelRequest>,
) -> Reply {
    if req.rate_id.trim().is_empty() {
        return Err(SimError::required("rate_id"));
    }
    let label = sim
        .world()
        .buy_label(&c.account, c.env, &req.rate_id, c.now)?;
    sim.deliveries_changed.notify_one();
    ok(StatusCode::CREATED, label)
}

pub async fn get_label(State(sim): State<Arc<Sim>>, Extension(c): Extension<Caller>) -> Reply {
    let id = c.id.unwrap_or_default();
    let details = sim.world().label_details(&c.account, c.env, &id, c.now)?;
    ok(StatusCode::OK, details)
}

pub async fn void_label(State(sim): State<Arc<Sim>>, Extension(c): Extension<Caller>) -> Reply {
    let id = c.id.unwrap_or_default();
    let void_status = sim.world().void_label(&c.account, c.env, &id, c.now)?;
    ok(StatusCode::OK, VoidResponse { id, void_status })
}

pub async fn create_tracker(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    JsonBody(req): JsonBody<CreateTrackerRequest>,
) -> Reply {
    if req.tracking_number.trim().is_empty() {
        return Err(SimError::required("tracking_number"));
    }
    let mut world = sim.world();
    let record = world.create_tracker(
        &c.account,
        c.env,
        req.tracking_number.trim(),
        req.carrier.as_deref(),
    )?;
    let tracker = world.tracker(&c.account, c.env, &record.id, c.now)?;
    ok(StatusCode::CREATED, tracker)
}

pub async fn get_tracker(State(sim): State<Arc<Sim>>, Extension(c): Extension<Caller>) -> Reply {
    let id = c.id.unwrap_or_default();
    let tracker = sim.world().tracker(&c.account, c.env, &id, c.now)?;
    ok(StatusCode::OK, tracker)
}

pub async fn carrier_accounts(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
) -> Reply {
    let carrier_accounts = sim.world().carrier_accounts(&c.account);
    ok(StatusCode::OK, CarrierAccountList { carrier_accounts })
}

/// Items are checked one by one so an error names `items[i].field`.
#[derive(Deserialize)]
pub struct RawBatch {
    items: Option<Vec<serde_json::Value>>,
}

pub async fn create_batch(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    JsonBody(raw): JsonBody<RawBatch>,
) -> Reply {
    let raw_items = raw.items.ok_or_else(|| SimError::required("items"))?;
    if raw_items.is_empty() {
        return Err(SimError::new(
            ErrorCode::BatchItemsRequired,
            "The batch has no items.",
            "Send between 1 and 5,000 items.",
        )
        .field("items"));
    }
    if raw_items.len() > MAX_BATCH_ITEMS {
        return Err(SimError::new(
            ErrorCode::BatchSizeExceeded,
            format!(
                "The batch has {} items; at most 5,000 are allowed.",
                raw_items.len()
            ),
            "Split the items into batches of at most 5,000.",
        )
        .field("items"));
    }
    let mut items = Vec::with_capacity(raw_items.len());
    for (i, value) in raw_items.into_iter().enumerate() {
        let prefix = format!("items[{i}]");
        let bytes = serde_json::to_vec(&value).unwrap_or_default();
        let item: api::BatchItem = parse_json(&bytes).map_err(|mut e: SimError| {
            e.error.field = Some(match e.error.field.take() {
                Some(f) if f != "body" => format!("{prefix}.{f}"),
                _ => prefix.clone(),
            });
            e
        })?;
        item.check(&prefix)?;
        if !(1..=crate::world::MAX_ITEM_CENTS).contains(&item.rate_cents) {
            return Err(SimError::invalid(
                &format!("{prefix}.rate_cents"),
                "must be from 1 to 10000000",
            ));
        }
        items.push(item);
    }
    // Every item has the right shape; now their rates (one lock for all).
    let batch = sim.world().create_batch(&c.account, c.env, &items, c.now)?;
    ok(StatusCode::CREATED, batch)
}

/// The body is optional; when sent it is read as strictly as any other
/// (a body with trailing data starts nothing).
pub async fn buy_batch(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    _body: Option<JsonBody<BuyBatchRequest>>,
) -> Reply {
    let id = c.id.unwrap_or_default();
    let batch = sim
        .world()
        .buy_batch(&c.account, c.env, &id, c.now, &c.request_id)?;
    ok(StatusCode::ACCEPTED, batch)
}

/// `?results_offset=N&results_limit=M` choose the page of per-item results.
pub async fn get_batch(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    uri: Uri,
) -> Reply {
    let page = ResultsPage::from_query(uri.query()).map_err(SimError::from)?;
    let id = c.id.unwrap_or_default();
    let batch = sim.world().batch(&c.account, c.env, &id, c.now, page)?;
    sim.deliveries_changed.notify_one();
    ok(StatusCode::OK, batch)
}

pub async fn wallet(State(sim): State<Arc<Sim>>, Extension(c): Extension<Caller>) -> Reply {
    let wallet = sim.world().wallet(&c.account, c.env, c.now);
    ok(StatusCode::OK, wallet)
}

#[derive(Deserialize)]
pub struct DeliveryQuery {
    label_id: Option<String>,
    limit: Option<usize>,
}

pub async fn deliveries(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    query: Result<Query<DeliveryQuery>, axum::extract::rejection::QueryRejection>,
) -> Reply {
    let Query(q) =
        query.map_err(|_| SimError::invalid("limit", "must be a whole number from 1 to 1000"))?;
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(SimError::invalid(
            "limit",
            "must be a whole number from 1 to 1000",
        ));
    }
    let deliveries = sim
        .world()
        .deliveries(&c.account, q.label_id.as_deref(), limit);
    ok(StatusCode::OK, DeliveryList { deliveries })
}
