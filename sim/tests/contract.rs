//! Every v1 response decodes into the `api` type the app and edge use for it,
//! so the simulator and the contract crate cannot drift apart.

mod common;

use api::*;
use common::*;
use serde::de::DeserializeOwned;
use serde_json::json;

fn decode<T: DeserializeOwned>(r: &Resp, status: u16) -> T {
    assert_eq!(r.status, status, "{}", r.json);
    serde_json::from_value(r.json.clone()).unwrap_or_else(|e| {
        panic!(
            "{} does not decode: {e}\n{}",
            std::any::type_name::<T>(),
            r.json
        )
    })
}

#[tokio::test]
async fn every_response_decodes_into_its_api_type() {
    let s = start().await;
    let v: AddressValidation = decode(&s.post("/v1/addresses/validate", LIVE, to()).await, 200);
    assert!(v.valid && v.residential);

    let rates: RatesResponse = decode(&s.quote(LIVE, to(), parcel()).await, 200);
    assert!(rates.error.is_none() && rates.rates.len() >= 4);

    let label: Label = decode(
        &s.post("/v1/labels", LIVE, json!({"rate_id": rates.rates[0].id}))
            .await,
        201,
    );
    assert_eq!(label.rate_cents, rates.rates[0].rate_cents);
    let details: LabelDetails =
        decode(&s.get(&format!("/v1/labels/{}", label.id), LIVE).await, 200);
    assert_eq!(
        (details.label, details.void_status),
        (label.clone(), VoidStatus::None)
    );
    let void: VoidResponse = decode(
        &s.call(
            "DELETE",
            &format!("/v1/labels/{}", label.id),
            Some(LIVE),
            None,
        )
        .await,
        200,
    );
    assert_eq!(void.void_status, VoidStatus::Requested);

    let tracker: Tracker = decode(
        &s.post(
            "/v1/trackers",
            LIVE,
            json!({"tracking_number": label.tracking_number}),
        )
        .await,
        201,
    );
    assert_eq!(tracker.carrier, label.carrier);
    let _: Tracker = decode(
        &s.get(&format!("/v1/trackers/{}", tracker.id), LIVE).await,
        200,
    );

    let accounts: CarrierAccountList = decode(&s.get("/v1/carrier-accounts", LIVE).await, 200);
    assert!(accounts.carrier_accounts.is_empty());

    let quoted = s.quote(LIVE, to(), parcel()).await.json["rates"].clone();
    let (first, second) = (&quoted[0], &quoted[1]);
    let batch: Batch = decode(
        &s.post(
            "/v1/batches",
            LIVE,
            json!({"items": [item_for(first, &to(), &parcel()), item_for(second, &to(), &parcel())]}),
        )
        .await,
        201,
    );
    assert_eq!(
        (batch.state, batch.total_cost_cents),
        (
            BatchStatus::Created,
            first["rate_cents"].as_i64().unwrap() + second["rate_cents"].as_i64().unwrap()
        )
    );
    assert_eq!(batch.results.len(), 2);
    assert!(
        batch
            .results
            .iter()
            .all(|r| r.state == BatchItemState::Pending)
    );
    let _: Batch = decode(
        &s.post(&format!("/v1/batches/{}/buy", batch.id), LIVE, json!({}))
            .await,
        202,
    );
    let _: Batch = decode(
        &s.get(&format!("/v1/batches/{}", batch.id), LIVE).await,
        200,
    );

    let wallet: Wallet = decode(&s.get("/v1/wallet", LIVE).await, 200);
    assert_eq!((wallet.sandbox, wallet.card), (false, CardState::Ok));
    let _: webhooks::DeliveryList = decode(&s.get("/v1/webhooks/deliveries", LIVE).await, 200);

    // Error bodies, including the two with extra shapes.
    let missing: ErrorEnvelope = decode(&s.get("/v1/labels/lbl_none", LIVE).await, 404);
    assert_eq!(missing.error.code, ErrorCode::LabelNotFound);
    let mut ambiguous = to();
    ambiguous["street1"] = json!("5 AMBIGUOUS Rd");
    let amb: ErrorEnvelope = decode(
        &s.post("/v1/addresses/validate", LIVE, ambiguous).await,
        422,
    );
    assert!(amb.error.suggestions.as_ref().is_some_and(|s| s.len() >= 2));
    s.control(
        "PUT",
        "/__sim/faults",
        json!({"carriers_down": ["Comet Express"]}),
    )
    .await;
    let partial: RatesResponse = decode(&s.quote(LIVE, to(), parcel()).await, 503);
    let error = partial.error.expect("the 503 carries the error");
    assert_eq!(error.code, ErrorCode::RateCarrierUnavailable);
    assert_eq!(
        error.unavailable_carriers,
        Some(vec!["Comet Express".to_string()])
    );
    assert!(
        !partial.rates.is_empty() && partial.rates.iter().all(|r| r.carrier != "Comet Express")
    );
}
