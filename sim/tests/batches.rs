//! Batches as the Worker's batch engine uses them: items from real quotes,
//! checked at creation like label purchases, processed with the clock,
//! failing and refunded per item, results read a page at a time.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};

const ALL: [&str; 9] = [
    "rates:read",
    "labels:write",
    "labels:read",
    "tracking:read",
    "addresses:read",
    "carrier-accounts:read",
    "batches:write",
    "batches:read",
    "wallet:read",
];

/// A key of the demo account allowed 100 batch creations a minute, so a
/// test can make many attempts without waiting out the real limit of 10.
async fn batch_key(s: &Server, env: &str) -> String {
    s.new_key(env, &ALL, json!({"limits": {"POST /v1/batches": 100}}))
        .await
}

/// The rate of `carrier` (and `service`, if given) in a quote for `to` and `parcel`.
async fn rate_of(
    s: &Server,
    key: &str,
    to: &Value,
    parcel: &Value,
    carrier: &str,
    service: Option<&str>,
) -> Value {
    let r = s.quote(key, to.clone(), parcel.clone()).await;
    assert_eq!(r.status, 200, "{}", r.json);
    r.json["rates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["carrier"] == carrier && service.is_none_or(|sv| r["service"] == sv))
        .unwrap_or_else(|| panic!("no {carrier} rate in {}", r.json))
        .clone()
}

fn cents(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// Every result of a batch, read in pages of `limit`, following the offsets.
async fn all_results(s: &Server, key: &str, id: &str, limit: u32) -> Vec<Value> {
    let mut results = Vec::new();
    let mut offset = 0;
    loop {
        let r = s
            .get(
                &format!("/v1/batches/{id}?results_offset={offset}&results_limit={limit}"),
                key,
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.json);
        assert_eq!(r.json["results_offset"], offset);
        let page = r.json["results"].as_array().unwrap().clone();
        assert!(page.len() <= limit as usize);
        let total = r.json["results_total"].as_u64().unwrap();
        offset += page.len() as u64;
        results.extend(page);
        if offset >= total {
            return results;
        }
    }
}

#[tokio::test]
async fn a_bad_rate_refuses_the_whole_batch_naming_the_item_as_a_label_purchase_would() {
    let s = start().await;
    s.freeze().await;
    let live = batch_key(&s, "live").await;
    let sandbox = batch_key(&s, "sandbox").await;
    let other = s
        .new_key("live", &["rates:read"], json!({"account": "acct_other"}))
        .await;
    s.set_wallet(1_000_000, "ok", Value::Null).await;
    // Quoted 15 minutes before the others: expired when the batch is made.
    let (old, _) = s.quoted_items(&live, 1).await;
    s.advance(15 * 60).await;
    let (good, total) = s.quoted_items(&live, 20).await;
    let (sandbox_rate, _) = s.quoted_items(&sandbox, 1).await;
    let (other_account, _) = s.quoted_items(&other, 1).await;
    let before = s.account().await;

    let with_17 = |rate_id: &Value| {
        let mut items = good.clone();
        items[17]["rate_id"] = rate_id.clone();
        json!({"items": items})
    };
    // (key, rate id, status, code): each as POST /v1/labels answers it.
    let cases = [
        (&live, json!("rate_ffff_0_00000000"), 404, "RATE.NOT_FOUND"),
        (&live, old[0]["rate_id"].clone(), 422, "RATE.EXPIRED"),
        (
            &live,
            other_account[0]["rate_id"].clone(),
            404,
            "RATE.NOT_FOUND",
        ),
        (
            &live,
            sandbox_rate[0]["rate_id"].clone(),
            404,
            "RATE.NOT_FOUND",
        ),
        (
            &sandbox,
            good[0]["rate_id"].clone(),
            403,
            "AUTH.KEY.SANDBOX_IN_PRODUCTION",
        ),
    ];
    for (key, rate_id, status, code) in cases {
        let body = if key == &sandbox {
            // A sandbox batch whose item 17 is a live rate.
            let mut items: Vec<Value> = (0..20).map(|_| sandbox_rate[0].clone()).collect();
            items[17]["rate_id"] = rate_id.clone();
            items[17]["rate_cents"] = good[0]["rate_cents"].clone();
            json!({"items": items})
        } else {
            with_17(&rate_id)
        };
        let r = s.post("/v1/batches", key, body).await;
        r.assert_envelope(status, code);
        assert_eq!(r.json["error"]["field"], "items[17].rate_id", "{code}");
        let label = s.post("/v1/labels", key, json!({"rate_id": rate_id})).await;
        label.assert_envelope(status, code);
    }

    // An item that does not match its rate: it cannot pay less, nor ship
    // something else than was priced.
    let mut elsewhere = to();
    elsewhere["zip"] = json!("99501");
    let mut heavier = parcel();
    heavier["weight_oz"] = json!(200);
    for (field, value) in [
        ("rate_cents", json!(cents(&good[0]["rate_cents"]) - 1)),
        (
            "carrier",
            json!(format!("{} Co", good[0]["carrier"].as_str().unwrap())),
        ),
        (
            "service",
            json!(format!("{} Plus", good[0]["service"].as_str().unwrap())),
        ),
        ("to_address", elsewhere),
        ("parcel", heavier),
    ] {
        let mut items = good.clone();
        items[17][field] = value;
        let r = s.post("/v1/batches", &live, json!({"items": items})).await;
        r.assert_envelope(422, "VALIDATION.FIELD.INVALID");
        assert_eq!(r.json["error"]["field"], format!("items[17].{field}"));
    }

    let after = s.account().await;
    assert_eq!(after, before, "nothing charged, nothing made");
    // The same items with item 17 intact are accepted and charged in full.
    let r = s.post("/v1/batches", &live, json!({"items": good})).await;
    assert_eq!(r.status, 201, "{}", r.json);
    assert_eq!(r.json["total_cost_cents"], total);
    assert_eq!(
        s.account().await["balance_cents"],
        cents(&before["balance_cents"]) - total
    );
}

#[tokio::test]
async fn failing_items_are_refunded_when_processing_reaches_them_and_the_others_become_labels() {
    let s = start().await;
    s.freeze().await;
    let key = batch_key(&s, "live").await;
    s.set_wallet(1_000_000, "ok", Value::Null).await;
    let mut undeliverable = to();
    undeliverable["street1"] = json!("1 UNDELIVERABLE Rd");
    let heavy = json!({"weight_oz": 1500, "length": 10, "width": 8, "height": 4});
    let mut hawaii = to();
    hawaii["state"] = json!("HI");
    let bad = [
        (
            5,
            item_for(
                &rate_of(&s, &key, &to(), &heavy, "Pacific Post", None).await,
                &to(),
                &heavy,
            ),
            "LABEL.WEIGHT.EXCEEDED",
        ),
        (
            12,
            item_for(
                &rate_of(
                    &s,
                    &key,
                    &hawaii,
                    &parcel(),
                    "Comet Express",
                    Some("Overnight"),
                )
                .await,
                &hawaii,
                &parcel(),
            ),
            "LABEL.SERVICE.UNAVAILABLE",
        ),
        (
            25,
            item_for(
                &rate_of(&s, &key, &undeliverable, &parcel(), "Atlas Freight", None).await,
                &undeliverable,
                &parcel(),
            ),
            "LABEL.ADDRESS.UNDELIVERABLE",
        ),
    ];
    let (mut items, _) = s.quoted_items(&key, 30).await;
    for (index, item, _) in &bad {
        items[*index] = item.clone();
    }
    let total: i64 = items.iter().map(|i| cents(&i["rate_cents"])).sum();
    let price = |index: usize| cents(&items[index]["rate_cents"]);
    let labels_before = cents(&s.account().await["live_labels"]);

    let r = s.post("/v1/batches", &key, json!({"items": items})).await;
    assert_eq!(r.status, 201, "{}", r.json);
    let id = r.json["id"].as_str().unwrap().to_string();
    let charged = 1_000_000 - total;
    assert_eq!(s.balance().await, charged, "the whole total at creation");
    let buy = s
        .post(&format!("/v1/batches/{id}/buy"), &key, json!({}))
        .await;
    assert_eq!(buy.status, 202);
    let buy_request = buy.header("x-request-id").unwrap().to_string();

    // After 1 s, items 0..20 are processed: two of them failed.
    s.advance(1).await;
    let b = s.get(&format!("/v1/batches/{id}"), &key).await.json;
    assert_eq!(
        (&b["state"], &b["labels_created"], &b["labels_failed"]),
        (&json!("processing"), &json!(18), &json!(2))
    );
    assert_eq!(b["estimated_completion_percentage"], 66);
    assert_eq!(b["estimated_time_remaining_seconds"], 1);
    assert_eq!(b["refunded_cents"], price(5) + price(12));
    assert_eq!(s.balance().await, charged + price(5) + price(12));
    assert_eq!(b["results"][25]["state"], "pending", "not reached yet");

    s.advance(1).await;
    let b = s.get(&format!("/v1/batches/{id}"), &key).await.json;
    assert_eq!(
        (&b["state"], &b["labels_created"], &b["labels_failed"]),
        (&json!("completed"), &json!(27), &json!(3))
    );
    assert_eq!(b["estimated_completion_percentage"], 100);
    assert_eq!(b["estimated_time_remaining_seconds"], 0);
    let refunded = price(5) + price(12) + price(25);
    assert_eq!(b["refunded_cents"], refunded);
    assert_eq!(
        s.balance().await,
        charged + refunded,
        "exactly the failed items back"
    );
    for (index, _, code) in &bad {
        let result = &b["results"][*index];
        assert_eq!(result["index"], *index);
        assert_eq!(result["state"], "failed");
        assert_eq!(result["rate_cents"], price(*index));
        assert!(result.get("label_id").is_none());
        let e = &result["error"];
        assert_eq!(e["code"], *code);
        for f in ["message", "suggestion", "docs_url"] {
            assert!(e[f].as_str().is_some_and(|v| !v.is_empty()), "{f}: {e}");
        }
        assert_eq!(e["request_id"], buy_request.as_str());
    }
    assert_eq!(b["results"][25]["error"]["field"], "items[25].to_address");
    assert_eq!(
        b["results"][5]["error"]["field"],
        "items[5].parcel.weight_oz"
    );
    // The others are real labels of this account.
    let created: Vec<&Value> = b["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["state"] == "created")
        .collect();
    assert_eq!(created.len(), 27);
    let label = s
        .get(
            &format!("/v1/labels/{}", created[0]["label_id"].as_str().unwrap()),
            &key,
        )
        .await;
    assert_eq!(label.status, 200);
    assert_eq!(label.json["tracking_number"], created[0]["tracking_number"]);
    assert_eq!(label.json["label_url"], created[0]["label_url"]);
    assert_eq!(cents(&s.account().await["live_labels"]), labels_before + 27);
    s.post(&format!("/v1/batches/{id}/buy"), &key, json!({}))
        .await
        .assert_envelope(422, "BATCH.ALREADY_PROCESSING");
}

#[tokio::test]
async fn a_sandbox_batch_fails_items_the_same_way_and_refunds_nothing() {
    let s = start().await;
    s.freeze().await;
    let key = batch_key(&s, "sandbox").await;
    let before = s.balance().await;
    let mut undeliverable = to();
    undeliverable["street1"] = json!("1 UNDELIVERABLE Rd");
    let bad = item_for(
        &rate_of(&s, &key, &undeliverable, &parcel(), "Atlas Freight", None).await,
        &undeliverable,
        &parcel(),
    );
    let (mut items, _) = s.quoted_items(&key, 3).await;
    items[1] = bad;
    let id = s
        .post("/v1/batches", &key, json!({"items": items}))
        .await
        .json["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.post(&format!("/v1/batches/{id}/buy"), &key, json!({}))
        .await;
    s.advance(1).await;
    let b = s.get(&format!("/v1/batches/{id}"), &key).await.json;
    assert_eq!(
        (
            &b["labels_created"],
            &b["labels_failed"],
            &b["refunded_cents"]
        ),
        (&json!(2), &json!(1), &json!(0))
    );
    assert_eq!(
        b["results"][1]["error"]["code"],
        "LABEL.ADDRESS.UNDELIVERABLE"
    );
    assert_eq!(b["sandbox"], true);
    assert_eq!(s.balance().await, before, "the live wallet is untouched");
}

#[tokio::test]
async fn paging_returns_every_items_result_exactly_once() {
    let s = start().await;
    s.freeze().await;
    let key = batch_key(&s, "live").await;
    s.set_wallet(10_000_000, "ok", Value::Null).await;
    let (items, _) = s.quoted_items(&key, 250).await;
    let id = s
        .post("/v1/batches", &key, json!({"items": items}))
        .await
        .json["id"]
        .as_str()
        .unwrap()
        .to_string();

    // Without parameters: the first 100, all pending before `buy`.
    let b = s.get(&format!("/v1/batches/{id}"), &key).await.json;
    assert_eq!(
        (&b["results_offset"], &b["results_total"]),
        (&json!(0), &json!(250))
    );
    let first = b["results"].as_array().unwrap();
    assert_eq!(first.len(), 100);
    assert!(first.iter().all(|r| r["state"] == "pending"));

    s.post(&format!("/v1/batches/{id}/buy"), &key, json!({}))
        .await;
    s.advance(5).await; // 100 processed, 150 pending
    let results = all_results(&s, &key, &id, 100).await;
    let indices: Vec<u64> = results
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indices, (0..250).collect::<Vec<_>>(), "each once, in order");
    let states: Vec<&str> = results
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert!(states[..100].iter().all(|s| *s == "created"));
    assert!(states[100..].iter().all(|s| *s == "pending"));

    s.advance(10).await;
    // An odd page size, so the last page is short.
    let results = all_results(&s, &key, &id, 7).await;
    let indices: Vec<u64> = results
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indices, (0..250).collect::<Vec<_>>());
    let labels: BTreeSet<&str> = results
        .iter()
        .map(|r| r["label_id"].as_str().unwrap())
        .collect();
    assert_eq!(labels.len(), 250, "every item its own label");

    let past = s
        .get(&format!("/v1/batches/{id}?results_offset=250"), &key)
        .await
        .json;
    assert_eq!(past["results"], json!([]));
    assert_eq!(past["results_total"], 250);
    for (query, field) in [
        ("results_limit=0", "results_limit"),
        ("results_limit=1001", "results_limit"),
        ("results_limit=ten", "results_limit"),
        ("results_offset=-1", "results_offset"),
    ] {
        let r = s.get(&format!("/v1/batches/{id}?{query}"), &key).await;
        r.assert_envelope(422, "VALIDATION.FIELD.INVALID");
        assert_eq!(r.json["error"]["field"], field, "{query}");
    }
    let r = s
        .get(&format!("/v1/batches/{id}?results_limit=1000"), &key)
        .await;
    assert_eq!(r.json["results"].as_array().unwrap().len(), 250);
}

#[tokio::test]
async fn five_thousand_items_from_real_quotes_are_created_processed_and_paged_quickly() {
    let s = start().await;
    s.freeze().await;
    let key = s
        .new_key("live", &ALL, json!({"limits": {"POST /v1/rates": 6000}}))
        .await;
    s.set_wallet(100_000_000, "ok", Value::Null).await;
    let started = Instant::now();
    // 5,000 rows, each quoted on its own (different destinations, so prices
    // differ), eight connections at a time.
    let mut tasks = Vec::new();
    for worker in 0..8 {
        let (addr, key) = (s.addr, key.clone());
        tasks.push(tokio::spawn(async move {
            let s = Server { addr };
            let mut items = Vec::new();
            for row in (worker..5000).step_by(8) {
                let mut to = to();
                to["street1"] = json!(format!("{row} Elm St"));
                to["zip"] = json!(format!("{:05}", 10_000 + row * 17));
                let r = s.quote(&key, to.clone(), parcel()).await;
                assert_eq!(r.status, 200, "{}", r.json);
                items.push((row, item_for(&r.json["rates"][0], &to, &parcel())));
            }
            items
        }));
    }
    let mut rows = Vec::new();
    for t in tasks {
        rows.extend(t.await.unwrap());
    }
    rows.sort_by_key(|(row, _)| *row);
    let items: Vec<Value> = rows.into_iter().map(|(_, item)| item).collect();
    let total: i64 = items.iter().map(|i| cents(&i["rate_cents"])).sum();
    let quoted = started.elapsed();

    let created = Instant::now();
    let r = s.post("/v1/batches", &key, json!({"items": items})).await;
    let create_time = created.elapsed();
    assert_eq!(r.status, 201, "{}", r.json);
    assert_eq!(
        (&r.json["item_count"], &r.json["total_cost_cents"]),
        (&json!(5000), &json!(total))
    );
    assert_eq!(s.balance().await, 100_000_000 - total);
    let id = r.json["id"].as_str().unwrap().to_string();
    s.post(&format!("/v1/batches/{id}/buy"), &key, json!({}))
        .await;
    let b = s.get(&format!("/v1/batches/{id}"), &key).await.json;
    assert_eq!(b["estimated_time_remaining_seconds"], 250);
    s.advance(250).await;
    let results = all_results(&s, &key, &id, 1000).await;
    assert_eq!(results.len(), 5000);
    assert!(results.iter().all(|r| r["state"] == "created"));
    let labels: BTreeSet<&str> = results
        .iter()
        .map(|r| r["label_id"].as_str().unwrap())
        .collect();
    assert_eq!(labels.len(), 5000);
    assert_eq!(
        s.balance().await,
        100_000_000 - total,
        "paid once, at creation"
    );
    // Generous bounds for a debug build on a shared machine; the point is
    // that nothing is quadratic in the number of items.
    assert!(
        create_time < Duration::from_secs(5),
        "creating 5,000 items took {create_time:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "quotes {quoted:?}, all {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn with_latency_a_batch_is_paid_before_its_answer_arrives() {
    let s = start().await;
    s.freeze().await;
    let (items, total) = s.quoted_items(LIVE, 2).await;
    let before = s.balance().await;
    // Only batch creations are slow: a quote answers at once.
    s.control(
        "PUT",
        "/__sim/faults",
        json!({"latency_ms": 1500, "latency_endpoints": ["POST /v1/batches"]}),
    )
    .await;
    let started = std::time::Instant::now();
    s.get("/v1/wallet", LIVE).await;
    assert!(started.elapsed() < Duration::from_millis(1000));
    let addr = s.addr;
    let create = tokio::spawn(async move {
        Server { addr }
            .post("/v1/batches", LIVE, json!({"items": items}))
            .await
    });
    // The control surface is not delayed: the wallet shows the charge while
    // the client is still waiting for its answer.
    let mut seen = before;
    for _ in 0..20 {
        seen = cents(&s.account().await["balance_cents"]);
        if seen != before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(seen, before - total);
    assert!(!create.is_finished(), "the answer is still held");
    let r = create.await.unwrap();
    assert_eq!(r.status, 201);
}
