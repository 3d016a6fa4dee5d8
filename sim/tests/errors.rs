//! Every row of part 7's error table, produced by a real request, in the envelope.

mod common;

use std::collections::BTreeSet;

use api::ErrorCode;
use common::*;
use serde_json::json;

#[tokio::test]
async fn every_error_code_of_part_7_is_reachable_in_the_envelope() {
    let s = start().await;
    let mut seen = BTreeSet::new();
    let mut expect = |r: &Resp, code: ErrorCode| {
        r.assert_envelope(code.http_status(), code.as_str());
        seen.insert(code.as_str().to_string());
    };

    // AUTH.*
    expect(
        &s.call("GET", "/v1/wallet", None, None).await,
        ErrorCode::AuthKeyMissing,
    );
    expect(
        &s.get("/v1/wallet", "svc_live_nothex").await,
        ErrorCode::AuthKeyInvalid,
    );
    expect(
        &s.get("/v1/wallet", "svc_live_ffffffffffffffffffffffffffffffff")
            .await,
        ErrorCode::AuthKeyInvalid,
    );
    let revoked = s.new_key("live", &["wallet:read"], json!({})).await;
    s.control("POST", &format!("/__sim/keys/{revoked}/revoke"), json!({}))
        .await;
    expect(
        &s.get("/v1/wallet", &revoked).await,
        ErrorCode::AuthKeyRevoked,
    );
    let now = s.advance(0).await;
    let expiring = s
        .new_key("live", &["wallet:read"], json!({"expires_at": now + 60}))
        .await;
    assert_eq!(s.get("/v1/wallet", &expiring).await.status, 200);
    s.advance(61).await;
    expect(
        &s.get("/v1/wallet", &expiring).await,
        ErrorCode::AuthKeyExpired,
    );
    let narrow = s.new_key("live", &["wallet:read"], json!({})).await;
    let r = s.quote(&narrow, to(), parcel()).await;
    expect(&r, ErrorCode::AuthKeyInsufficientScope);
    assert_eq!(r.json["error"]["required_scope"], "rates:read");
    assert_eq!(r.json["error"]["key_scopes"], json!(["wallet:read"]));
    let live_label = s.buy(LIVE).await.json["id"].as_str().unwrap().to_string();
    expect(
        &s.get(&format!("/v1/labels/{live_label}"), SANDBOX).await,
        ErrorCode::AuthKeySandboxInProduction,
    );
    let limited = s.new_key("live", &["batches:write"], json!({})).await;
    for _ in 0..10 {
        s.post("/v1/batches/none/buy", &limited, json!({})).await;
    }
    let r = s.post("/v1/batches/none/buy", &limited, json!({})).await;
    expect(&r, ErrorCode::AuthRateLimitExceeded);
    assert!(r.header("retry-after").is_some());

    // VALIDATION.*
    expect(
        &s.post("/v1/labels", LIVE, json!({})).await,
        ErrorCode::ValidationFieldRequired,
    );
    expect(
        &s.post("/v1/labels", LIVE, json!({"rate_id": 7})).await,
        ErrorCode::ValidationFieldInvalid,
    );

    // RATE.*
    let (rate, _) = s.rate_id(LIVE, None).await;
    s.advance(15 * 60).await;
    expect(
        &s.post("/v1/labels", LIVE, json!({"rate_id": rate})).await,
        ErrorCode::RateExpired,
    );
    expect(
        &s.post("/v1/labels", LIVE, json!({"rate_id": "rate_missing"}))
            .await,
        ErrorCode::RateNotFound,
    );
    s.control(
        "PUT",
        "/__sim/faults",
        json!({"carriers_down": ["Atlas Freight"]}),
    )
    .await;
    let r = s.quote(LIVE, to(), parcel()).await;
    expect(&r, ErrorCode::RateCarrierUnavailable);
    assert!(
        !r.json["rates"].as_array().unwrap().is_empty(),
        "other carriers' rates still returned"
    );
    s.control("PUT", "/__sim/faults", json!({})).await;

    // LABEL.*
    let mut undeliverable = to();
    undeliverable["street1"] = json!("1 UNDELIVERABLE Rd");
    let r = s.quote(LIVE, undeliverable, parcel()).await;
    let id = r.json["rates"][0]["id"].as_str().unwrap();
    expect(
        &s.post("/v1/labels", LIVE, json!({"rate_id": id})).await,
        ErrorCode::LabelAddressUndeliverable,
    );
    let heavy = json!({"weight_oz": 1500, "length": 10, "width": 8, "height": 4});
    let r = s.quote(LIVE, to(), heavy).await;
    let pacific = r.json["rates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["carrier"] == "Pacific Post")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    expect(
        &s.post("/v1/labels", LIVE, json!({"rate_id": pacific}))
            .await,
        ErrorCode::LabelWeightExceeded,
    );
    let mut hawaii = to();
    hawaii["state"] = json!("HI");
    let r = s.quote(LIVE, hawaii, parcel()).await;
    let overnight = r.json["rates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["service"] == "Overnight")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    expect(
        &s.post("/v1/labels", LIVE, json!({"rate_id": overnight}))
            .await,
        ErrorCode::LabelServiceUnavailable,
    );
    let label = s.buy(LIVE).await.json["id"].as_str().unwrap().to_string();
    assert_eq!(
        s.call("DELETE", &format!("/v1/labels/{label}"), Some(LIVE), None)
            .await
            .status,
        200
    );
    expect(
        &s.call("DELETE", &format!("/v1/labels/{label}"), Some(LIVE), None)
            .await,
        ErrorCode::LabelVoidAlreadyRequested,
    );
    let scanned = s.buy(LIVE).await.json["id"].as_str().unwrap().to_string();
    s.control("POST", &format!("/__sim/labels/{scanned}/scan"), json!({}))
        .await;
    expect(
        &s.call("DELETE", &format!("/v1/labels/{scanned}"), Some(LIVE), None)
            .await,
        ErrorCode::LabelVoidIneligible,
    );
    expect(
        &s.get("/v1/labels/lbl_missing", LIVE).await,
        ErrorCode::LabelNotFound,
    );
    s.control(
        "PUT",
        "/__sim/faults",
        json!({"label_creation_fails": true}),
    )
    .await;
    expect(&s.buy(LIVE).await, ErrorCode::LabelCreationFailed);
    s.control("PUT", "/__sim/faults", json!({})).await;

    // WALLET.*
    s.set_wallet(0, "ok", serde_json::Value::Null).await;
    expect(&s.buy(LIVE).await, ErrorCode::WalletInsufficientBalance);
    s.set_wallet(
        0,
        "declined",
        json!({"threshold_cents": 0, "amount_cents": 5000}),
    )
    .await;
    expect(&s.buy(LIVE).await, ErrorCode::WalletPaymentFailed);
    s.set_wallet(
        0,
        "missing",
        json!({"threshold_cents": 0, "amount_cents": 5000}),
    )
    .await;
    expect(&s.buy(LIVE).await, ErrorCode::WalletPaymentMethodMissing);
    s.set_wallet(100_000, "ok", serde_json::Value::Null).await;

    // CARRIER.*
    let ca = s
        .control(
            "POST",
            "/__sim/accounts/acct_demo/carrier-accounts",
            json!({"carrier": "Comet Express"}),
        )
        .await
        .json["id"]
        .as_str()
        .unwrap()
        .to_string();
    let byoa_rate = |r: &Resp| {
        r.json["rates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["account_type"] == "byoa")
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let byoa = byoa_rate(&s.quote(LIVE, to(), parcel()).await);
    s.control(
        "PUT",
        &format!("/__sim/carrier-accounts/{ca}"),
        json!({"invalid_credentials": true}),
    )
    .await;
    expect(
        &s.post("/v1/labels", LIVE, json!({"rate_id": byoa})).await,
        ErrorCode::CarrierAccountInvalidCredentials,
    );
    s.control(
        "PUT",
        &format!("/__sim/carrier-accounts/{ca}"),
        json!({"invalid_credentials": false}),
    )
    .await;
    let byoa = byoa_rate(&s.quote(LIVE, to(), parcel()).await);
    s.control(
        "PUT",
        &format!("/__sim/carrier-accounts/{ca}"),
        json!({"connected": false}),
    )
    .await;
    expect(
        &s.post("/v1/labels", LIVE, json!({"rate_id": byoa})).await,
        ErrorCode::CarrierAccountNotFound,
    );
    s.control(
        "PUT",
        "/__sim/faults",
        json!({"carrier_errors": ["Harbor Parcel"]}),
    )
    .await;
    let (harbor, _) = s.rate_id(LIVE, Some("Harbor Parcel")).await;
    let r = s.post("/v1/labels", LIVE, json!({"rate_id": harbor})).await;
    expect(&r, ErrorCode::CarrierErrorUnknown);
    assert!(r.json["error"]["raw_carrier_error"].as_str().is_some());
    s.control("PUT", "/__sim/faults", json!({})).await;

    // BATCH.*
    let items: Vec<_> = (0..5001).map(|_| batch_item(500)).collect();
    expect(
        &s.post("/v1/batches", LIVE, json!({"items": items})).await,
        ErrorCode::BatchSizeExceeded,
    );
    expect(
        &s.post("/v1/batches", LIVE, json!({"items": []})).await,
        ErrorCode::BatchItemsRequired,
    );
    expect(
        &s.get("/v1/batches/batch_missing", LIVE).await,
        ErrorCode::BatchNotFound,
    );
    let (items, _) = s.quoted_items(LIVE, 1).await;
    let batch = s
        .post("/v1/batches", LIVE, json!({"items": items}))
        .await
        .json["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        s.post(&format!("/v1/batches/{batch}/buy"), LIVE, json!({}))
            .await
            .status,
        202
    );
    expect(
        &s.post(&format!("/v1/batches/{batch}/buy"), LIVE, json!({}))
            .await,
        ErrorCode::BatchAlreadyProcessing,
    );

    // ADDRESS.*
    let mut bad = to();
    bad["street1"] = json!("9 UNDELIVERABLE Way");
    expect(
        &s.post("/v1/addresses/validate", LIVE, bad).await,
        ErrorCode::AddressValidationFailed,
    );
    let mut ambiguous = to();
    ambiguous["street1"] = json!("12 AMBIGUOUS Main St");
    let r = s.post("/v1/addresses/validate", LIVE, ambiguous).await;
    expect(&r, ErrorCode::AddressValidationAmbiguous);
    assert!(r.json["error"]["suggestions"].as_array().unwrap().len() >= 2);
    s.control(
        "PUT",
        "/__sim/faults",
        json!({"address_service_down": true}),
    )
    .await;
    expect(
        &s.post("/v1/addresses/validate", LIVE, to()).await,
        ErrorCode::AddressValidationServiceError,
    );
    s.control("PUT", "/__sim/faults", json!({})).await;

    // TRACKER.*
    expect(
        &s.get("/v1/trackers/trk_missing", LIVE).await,
        ErrorCode::TrackerNotFound,
    );

    let all: BTreeSet<String> = ErrorCode::part_7()
        .iter()
        .map(|c| c.as_str().to_string())
        .collect();
    let missing: Vec<_> = all.difference(&seen).collect();
    assert!(missing.is_empty(), "codes never produced: {missing:?}");
}
