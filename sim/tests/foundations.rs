//! One strict body reader for every POST, and the limit headers on every
//! `/v1` answer, including the ones refused before any key is charged.

mod common;

use api::{ENDPOINTS, EndpointId, Method};
use common::*;
use serde_json::{Value, json};

#[tokio::test]
async fn trailing_data_after_the_body_is_refused_by_every_post_endpoint_and_changes_nothing() {
    let s = start().await;
    // Valid bodies, one per POST endpoint of the table (a new POST endpoint
    // without one fails this test).
    let rates = s.quote(LIVE, to(), parcel()).await.json["rates"][0].clone();
    let label = s
        .post("/v1/labels", LIVE, json!({"rate_id": rates["id"]}))
        .await
        .json;
    let batch = s
        .post(
            "/v1/batches",
            LIVE,
            json!({"items": [item_for(&rates, &to(), &parcel())]}),
        )
        .await;
    assert_eq!(batch.status, 201, "{}", batch.json);
    let batch_id = batch.json["id"].as_str().unwrap().to_string();
    let before = s.account().await;

    let mut posts = Vec::new();
    for e in ENDPOINTS.iter().filter(|e| e.method == Method::Post) {
        let (path, body): (String, Value) = match e.id {
            EndpointId::ValidateAddress => (e.pattern.into(), to()),
            EndpointId::GetRates => (
                e.pattern.into(),
                json!({"from_address": from(), "to_address": to(), "parcel": parcel()}),
            ),
            EndpointId::BuyLabel => (e.pattern.into(), json!({"rate_id": rates["id"]})),
            EndpointId::CreateTracker => (
                e.pattern.into(),
                json!({"tracking_number": label["tracking_number"]}),
            ),
            EndpointId::CreateBatch => (
                e.pattern.into(),
                json!({"items": [item_for(&rates, &to(), &parcel())]}),
            ),
            EndpointId::BuyBatch => (e.pattern.replace("{id}", &batch_id), json!({})),
            other => panic!("no valid body for POST {other:?}"),
        };
        posts.push((path, serde_json::to_vec(&body).unwrap()));
    }
    assert_eq!(posts.len(), 6);
    for (path, body) in &posts {
        for tail in [&b"garbage"[..], b"{}", b" 1"] {
            let bad = [body.as_slice(), tail].concat();
            let r = s.raw("POST", path, Some(LIVE), Some(&bad)).await;
            r.assert_envelope(422, "VALIDATION.FIELD.INVALID");
            assert_eq!(
                r.json["error"]["field"],
                "body",
                "POST {path} {}",
                String::from_utf8_lossy(&bad)
            );
        }
    }
    let after = s.account().await;
    assert_eq!(
        (&after["balance_cents"], &after["live_labels"]),
        (&before["balance_cents"], &before["live_labels"]),
        "nothing charged, no label made"
    );
    let b = s.get(&format!("/v1/batches/{batch_id}"), LIVE).await.json;
    assert_eq!(b["state"], "created", "the batch was not started");

    // The same bodies without the tail are accepted: only the tail was wrong.
    for (path, body) in &posts {
        let r = s.raw("POST", path, Some(LIVE), Some(body)).await;
        assert!(r.status < 300, "POST {path}: {} {}", r.status, r.json);
    }
}

#[tokio::test]
async fn answers_refused_before_authentication_carry_the_limit_headers_and_count_nothing() {
    let s = start().await;
    let revoked = s.new_key("live", &["rates:read"], json!({})).await;
    s.control("POST", &format!("/__sim/keys/{revoked}/revoke"), json!({}))
        .await;
    let body = json!({"from_address": from(), "to_address": to(), "parcel": parcel()});
    let now = s.advance(0).await;
    for (key, code) in [
        (None, "AUTH.KEY.MISSING"),
        (Some("svc_live_nothex"), "AUTH.KEY.INVALID"),
        (
            Some("svc_live_ffffffffffffffffffffffffffffffff"),
            "AUTH.KEY.INVALID",
        ),
        (Some(revoked.as_str()), "AUTH.KEY.REVOKED"),
    ] {
        let r = s.call("POST", "/v1/rates", key, Some(body.clone())).await;
        r.assert_envelope(401, code);
        let (limit, remaining, reset) = r.limits();
        assert_eq!(
            (limit, remaining),
            (100, 100),
            "{code}: POST /v1/rates, all left"
        );
        assert_eq!(reset % 60, 0, "the end of a minute");
        assert!(
            (now + 1..=now + 61).contains(&reset),
            "{code}: {reset} vs {now}"
        );
    }
    // Nothing was counted against the demo key (or any other).
    let r = s.quote(LIVE, to(), parcel()).await;
    assert_eq!(r.limits().1, 99);

    // Unknown path and wrong method: after authentication, still uncounted.
    let r = s.get("/v1/nothing", LIVE).await;
    r.assert_envelope(404, "ROUTE.PATH.NOT_FOUND");
    assert_eq!(
        r.limits().0,
        10,
        "the smallest limit of the table for an unknown path"
    );
    assert_eq!(r.limits().0, r.limits().1);
    let r = s.call("PATCH", "/v1/labels/lbl_1", Some(LIVE), None).await;
    r.assert_envelope(405, "ROUTE.METHOD.NOT_ALLOWED");
    assert_eq!(
        (r.limits().0, r.limits().1),
        (30, 30),
        "the smallest limit at this path (DELETE)"
    );
    let r = s.call("GET", "/v1/nothing", None, None).await;
    r.assert_envelope(401, "AUTH.KEY.MISSING");
    assert_eq!(r.limits().0, 10);

    // A scope refusal is counted: the key did call the endpoint.
    let narrow = s.new_key("live", &["wallet:read"], json!({})).await;
    let r = s.quote(&narrow, to(), parcel()).await;
    r.assert_envelope(403, "AUTH.KEY.INSUFFICIENT_SCOPE");
    assert_eq!((r.limits().0, r.limits().1), (100, 99));
}
