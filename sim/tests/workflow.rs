//! Part 3's transitions and the money rules, as a merchant would see them.

mod common;

use common::*;
use serde_json::json;

#[tokio::test]
async fn live_purchase_charges_the_wallet_by_the_rate_and_sandbox_is_free() {
    let s = start().await;
    let before = s.balance().await;
    let (rate, cents) = s.rate_id(LIVE, None).await;
    let r = s.post("/v1/labels", LIVE, json!({"rate_id": rate})).await;
    assert_eq!(r.status, 201, "{}", r.json);
    assert_eq!(r.json["wallet_balance_after_cents"], before - cents);
    assert_eq!(r.json["sandbox"], false);
    assert_eq!(s.balance().await, before - cents);

    let r = s.buy(SANDBOX).await;
    assert_eq!(r.status, 201);
    assert!(
        r.json["tracking_number"]
            .as_str()
            .unwrap()
            .starts_with("9999")
    );
    assert_eq!(r.json["sandbox"], true);
    assert_eq!(s.balance().await, before - cents, "sandbox charges nothing");
    let w = s.get("/v1/wallet", SANDBOX).await.json;
    assert_eq!(
        (w["sandbox"].clone(), w["unlimited"].clone()),
        (json!(true), json!(true))
    );

    // The label PDF is served by the simulator itself; a sandbox one is public.
    let url = r.json["label_url"].as_str().unwrap();
    let path = &url[url.find("/samples").unwrap()..];
    let pdf = s.call("GET", path, None, None).await;
    assert_eq!(pdf.status, 200);
    assert!(pdf.raw.starts_with(b"%PDF"));
}

#[tokio::test]
async fn a_live_label_pdf_needs_a_key_of_its_account_with_labels_read() {
    let s = start().await;
    let r = s.buy(LIVE).await;
    let url = r.json["label_url"].as_str().unwrap();
    let path = &url[url.find("/samples").unwrap()..];
    s.call("GET", path, None, None)
        .await
        .assert_envelope(401, "AUTH.KEY.MISSING");
    let pdf = s.get(path, LIVE).await;
    assert_eq!(pdf.status, 200);
    assert!(pdf.raw.starts_with(b"%PDF"));
    let no_scope = s.new_key("live", &["rates:read"], json!({})).await;
    let refused = s.get(path, &no_scope).await;
    refused.assert_envelope(403, "AUTH.KEY.INSUFFICIENT_SCOPE");
    assert_eq!(refused.json["error"]["required_scope"], "labels:read");
    let stranger = s
        .new_key("live", &["labels:read"], json!({"account": "acct_other"}))
        .await;
    s.get(path, &stranger)
        .await
        .assert_envelope(404, "LABEL.NOT_FOUND");
    s.get("/samples/label.pdf?label=lbl_nope", LIVE)
        .await
        .assert_envelope(404, "LABEL.NOT_FOUND");
}

#[tokio::test]
async fn rates_are_deterministic_sorted_and_expire_after_15_minutes() {
    let s = start().await;
    let a = s.quote(LIVE, to(), parcel()).await.json["rates"].clone();
    let b = s.quote(LIVE, to(), parcel()).await.json["rates"].clone();
    let prices = |v: &serde_json::Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["rate_cents"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(prices(&a), prices(&b), "same input, same prices");
    assert!(
        prices(&a).windows(2).all(|w| w[0] <= w[1]),
        "cheapest first"
    );
    let carriers: std::collections::BTreeSet<_> = a
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["carrier"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(carriers.len(), 4, "four carriers in one response");
    for r in a.as_array().unwrap() {
        assert!(r["carbon_grams"].as_i64().unwrap() > 0);
        assert_eq!(r["carrier_eta"].as_str().unwrap().len(), 10);
        assert_eq!(r["account_type"], "platform");
    }
    // Heavier parcels and farther destinations cost more.
    let heavy = s
        .quote(
            LIVE,
            to(),
            json!({"weight_oz": 200, "length": 10, "width": 8, "height": 4}),
        )
        .await
        .json["rates"]
        .clone();
    assert!(prices(&heavy)[0] > prices(&a)[0]);

    let (rate, _) = s.rate_id(LIVE, None).await;
    s.advance(15 * 60 - 1).await;
    let (fresh, _) = s.rate_id(LIVE, None).await;
    assert_eq!(
        s.post("/v1/labels", LIVE, json!({"rate_id": rate}))
            .await
            .status,
        201,
        "still valid at 14:59"
    );
    s.advance(15 * 60).await;
    s.post("/v1/labels", LIVE, json!({"rate_id": fresh}))
        .await
        .assert_envelope(422, "RATE.EXPIRED");

    // A rate id is only good for the account that quoted it, and only as given.
    let (rate, _) = s.rate_id(LIVE, None).await;
    let other = s
        .new_key("live", &["labels:write"], json!({"account": "acct_other"}))
        .await;
    s.post("/v1/labels", &other, json!({"rate_id": rate}))
        .await
        .assert_envelope(404, "RATE.NOT_FOUND");
    let forged = format!("{}0", &rate[..rate.len() - 1]);
    let forged = if forged == rate {
        format!("{}1", &rate[..rate.len() - 1])
    } else {
        forged
    };
    s.post("/v1/labels", LIVE, json!({"rate_id": forged}))
        .await
        .assert_envelope(404, "RATE.NOT_FOUND");
    // Expired quotes are kept a day (RATE.EXPIRED), then forgotten (RATE.NOT_FOUND).
    s.advance(24 * 3600).await;
    s.post("/v1/labels", LIVE, json!({"rate_id": rate}))
        .await
        .assert_envelope(422, "RATE.EXPIRED");
    s.advance(15 * 60 + 60).await;
    s.rate_id(LIVE, None).await; // any quote lets the simulator forget old ones
    s.post("/v1/labels", LIVE, json!({"rate_id": rate}))
        .await
        .assert_envelope(404, "RATE.NOT_FOUND");
}

#[tokio::test]
async fn byoa_rates_appear_next_to_platform_rates_without_surcharge() {
    let s = start().await;
    s.control(
        "POST",
        "/__sim/accounts/acct_demo/carrier-accounts",
        json!({"carrier": "Atlas Freight"}),
    )
    .await;
    let rates = s.quote(LIVE, to(), parcel()).await.json["rates"].clone();
    let atlas: Vec<_> = rates
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["carrier"] == "Atlas Freight" && r["service"] == "Ground")
        .collect();
    assert_eq!(atlas.len(), 2);
    let price = |t: &str| {
        atlas.iter().find(|r| r["account_type"] == t).unwrap()["rate_cents"]
            .as_i64()
            .unwrap()
    };
    assert!(price("byoa") < price("platform"));
    let list = s.get("/v1/carrier-accounts", LIVE).await.json;
    assert_eq!(list["carrier_accounts"][0]["carrier"], "Atlas Freight");
    assert_eq!(list["carrier_accounts"][0]["status"], "active");
}

#[tokio::test]
async fn void_is_requested_then_confirmed_and_refunded() {
    let s = start().await;
    let before = s.balance().await;
    let label = s.buy(LIVE).await.json;
    let id = label["id"].as_str().unwrap();
    let cents = label["rate_cents"].as_i64().unwrap();
    assert_eq!(
        s.get(&format!("/v1/labels/{id}"), LIVE).await.json["void_status"],
        "none"
    );
    let r = s
        .call("DELETE", &format!("/v1/labels/{id}"), Some(LIVE), None)
        .await;
    assert_eq!(
        (r.status, r.json["void_status"].as_str()),
        (200, Some("requested"))
    );
    assert_eq!(
        s.get(&format!("/v1/labels/{id}"), LIVE).await.json["void_status"],
        "requested"
    );
    assert_eq!(
        s.balance().await,
        before - cents,
        "no refund before the carrier confirms"
    );
    s.advance(300).await;
    assert_eq!(
        s.balance().await,
        before,
        "refunded once confirmed, whether or not anyone reads the label"
    );
    assert_eq!(
        s.get(&format!("/v1/labels/{id}"), LIVE).await.json["void_status"],
        "voided"
    );
    s.get(&format!("/v1/labels/{id}"), LIVE).await;
    assert_eq!(s.balance().await, before, "refunded once only");
}

#[tokio::test]
async fn auto_reload_pays_what_the_balance_cannot() {
    let s = start().await;
    let (rate, cents) = s.rate_id(LIVE, None).await;
    s.set_wallet(
        100,
        "ok",
        json!({"threshold_cents": 1000, "amount_cents": 2500}),
    )
    .await;
    let r = s.post("/v1/labels", LIVE, json!({"rate_id": rate})).await;
    assert_eq!(r.status, 201, "{}", r.json);
    let after = r.json["wallet_balance_after_cents"].as_i64().unwrap();
    assert!(
        after >= 1000,
        "reloaded to stay above the threshold: {after}"
    );
    assert_eq!((after + cents - 100) % 2500, 0, "reloaded in whole amounts");
}

#[tokio::test]
async fn trackers_advance_with_the_clock_after_the_scan() {
    let s = start().await;
    let label = s.buy(LIVE).await.json;
    let t = s
        .post(
            "/v1/trackers",
            LIVE,
            json!({"tracking_number": label["tracking_number"]}),
        )
        .await;
    assert_eq!(t.status, 201);
    let id = t.json["id"].as_str().unwrap().to_string();
    assert_eq!(t.json["status"], "pre_transit");
    s.advance(3600).await;
    assert_eq!(
        s.get(&format!("/v1/trackers/{id}"), LIVE).await.json["status"],
        "pre_transit",
        "nothing moves before the scan"
    );
    s.control(
        "POST",
        &format!("/__sim/labels/{}/scan", label["id"].as_str().unwrap()),
        json!({}),
    )
    .await;
    assert_eq!(
        s.get(&format!("/v1/trackers/{id}"), LIVE).await.json["status"],
        "in_transit"
    );
    s.advance(36 * 3600).await;
    assert_eq!(
        s.get(&format!("/v1/trackers/{id}"), LIVE).await.json["status"],
        "out_for_delivery"
    );
    s.advance(4 * 3600).await;
    let t = s.get(&format!("/v1/trackers/{id}"), LIVE).await.json;
    assert_eq!(t["status"], "delivered");
    let times: Vec<u64> = t["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["occurred_at"].as_u64().unwrap())
        .collect();
    assert_eq!(times.len(), 6);
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "oldest first");

    // Live and sandbox stay apart, as for labels (part 5, rule 8).
    let live_number = s.buy(LIVE).await.json["tracking_number"]
        .as_str()
        .unwrap()
        .to_string();
    s.post(
        "/v1/trackers",
        SANDBOX,
        json!({"tracking_number": live_number}),
    )
    .await
    .assert_envelope(403, "AUTH.KEY.SANDBOX_IN_PRODUCTION");
    s.get(&format!("/v1/trackers/{id}"), SANDBOX)
        .await
        .assert_envelope(403, "AUTH.KEY.SANDBOX_IN_PRODUCTION");
    let sandbox_label = s.buy(SANDBOX).await.json;
    let r = s
        .post(
            "/v1/trackers",
            SANDBOX,
            json!({"tracking_number": sandbox_label["tracking_number"]}),
        )
        .await;
    assert_eq!(
        (r.status, r.json["status"].as_str()),
        (201, Some("pre_transit"))
    );
    s.get(
        &format!("/v1/trackers/{}", r.json["id"].as_str().unwrap()),
        LIVE,
    )
    .await
    .assert_envelope(404, "TRACKER.NOT_FOUND");
    let r = s
        .post(
            "/v1/trackers",
            LIVE,
            json!({"tracking_number": sandbox_label["tracking_number"]}),
        )
        .await;
    assert_eq!(
        r.json["status"], "unknown",
        "a live key does not see sandbox labels"
    );
}

#[tokio::test]
async fn batches_charge_up_front_and_progress_with_time() {
    let s = start().await;
    s.freeze().await; // only the clock control moves time: exact progress
    s.set_wallet(1_000_000, "ok", serde_json::Value::Null).await;
    let (items, total) = s.quoted_items(LIVE, 100).await;
    let r = s.post("/v1/batches", LIVE, json!({"items": items})).await;
    assert_eq!(r.status, 201, "{}", r.json);
    assert_eq!(r.json["total_cost_cents"], total);
    assert_eq!(r.json["wallet_balance_after_cents"], 1_000_000 - total);
    assert_eq!(s.balance().await, 1_000_000 - total, "deducted at creation");
    let id = r.json["id"].as_str().unwrap().to_string();
    let b = s.get(&format!("/v1/batches/{id}"), LIVE).await.json;
    assert_eq!(
        (
            b["state"].as_str(),
            b["estimated_completion_percentage"].as_u64()
        ),
        (Some("created"), Some(0))
    );
    assert_eq!(
        s.post(&format!("/v1/batches/{id}/buy"), LIVE, json!({}))
            .await
            .status,
        202
    );
    s.advance(2).await;
    let b = s.get(&format!("/v1/batches/{id}"), LIVE).await.json;
    assert_eq!(b["state"], "processing");
    assert_eq!(b["estimated_completion_percentage"], 40);
    assert_eq!(b["estimated_time_remaining_seconds"], 3);
    s.advance(10).await;
    let b = s
        .get(&format!("/v1/batches/{id}?results_limit=1000"), LIVE)
        .await
        .json;
    assert_eq!(
        (
            b["state"].as_str(),
            b["estimated_completion_percentage"].as_u64()
        ),
        (Some("completed"), Some(100))
    );
    assert_eq!(b["labels_created"], 100);
    let results = b["results"].as_array().unwrap();
    assert_eq!(results.len(), 100);
    assert!(
        results
            .iter()
            .all(|r| r["state"] == "created" && r["label_id"].is_string())
    );
    assert_eq!(
        s.balance().await,
        1_000_000 - total,
        "labels of a paid batch are not charged again"
    );
}

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive_but_the_key_is_exact() {
    let s = start().await;
    for auth in [
        format!("Bearer {LIVE}"),
        format!("bearer {LIVE}"),
        format!("BEARER  {LIVE}"),
    ] {
        let r = s
            .with_authorization("GET", "/v1/wallet", Some(&auth), None)
            .await;
        assert_eq!(r.status, 200, "{auth}: {}", r.json);
    }
    for auth in [
        format!("Basic {LIVE}"),
        LIVE.to_string(),
        format!("Bearer {}", LIVE.to_uppercase()),
        format!("Bearer {LIVE}0"),
        "Bearer ".to_string(),
    ] {
        s.with_authorization("GET", "/v1/wallet", Some(&auth), None)
            .await
            .assert_envelope(401, "AUTH.KEY.INVALID");
    }
}

#[tokio::test]
async fn a_large_auto_reload_threshold_is_paid_at_once() {
    let s = start().await;
    let (rate, cents) = s.rate_id(LIVE, None).await;
    // A one-cent reload step up to $1bn: the card is charged as many times
    // as needed, computed, not counted out one by one.
    s.set_wallet(
        0,
        "ok",
        json!({"threshold_cents": 100_000_000_000i64, "amount_cents": 1}),
    )
    .await;
    let started = std::time::Instant::now();
    let r = s.post("/v1/labels", LIVE, json!({"rate_id": rate})).await;
    assert_eq!(r.status, 201, "{}", r.json);
    assert_eq!(r.json["wallet_balance_after_cents"], 100_000_000_000i64);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(s.balance().await, 100_000_000_000i64);
    let _ = cents;
}

#[tokio::test]
async fn latency_fault_delays_the_answer_not_the_effect() {
    let s = start().await;
    let before = s.balance().await;
    let (rate, cents) = s.rate_id(LIVE, None).await;
    s.control("PUT", "/__sim/faults", json!({"latency_ms": 400}))
        .await;
    let started = std::time::Instant::now();
    let r = s.post("/v1/labels", LIVE, json!({"rate_id": rate})).await;
    assert_eq!(r.status, 201);
    assert!(started.elapsed() >= std::time::Duration::from_millis(400));
    s.control("PUT", "/__sim/faults", json!({})).await;
    assert_eq!(s.balance().await, before - cents);
    let r = s
        .call(
            "PUT",
            "/__sim/faults",
            None,
            Some(json!({"latency_ms": 60_001})),
        )
        .await;
    r.assert_envelope(422, "VALIDATION.FIELD.INVALID");
}
