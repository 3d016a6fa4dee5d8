//! Black-box helpers: the simulator on 127.0.0.1:0 and a plain HTTP/1.1 client.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub const LIVE: &str = "svc_live_00000000000000000000000000000001";
pub const SANDBOX: &str = "svc_test_00000000000000000000000000000002";

pub struct Server {
    pub addr: SocketAddr,
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub raw: Vec<u8>,
    pub json: Value,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    pub fn code(&self) -> &str {
        self.json["error"]["code"].as_str().unwrap_or("")
    }

    /// Asserts the v1 envelope: every field, and the request id in header and body.
    pub fn assert_envelope(&self, status: u16, code: &str) -> &Self {
        assert_eq!(
            (self.status, self.code()),
            (status, code),
            "body: {}",
            self.json
        );
        let e = &self.json["error"];
        for f in ["message", "suggestion", "docs_url", "request_id"] {
            assert!(
                e[f].as_str().is_some_and(|v| !v.is_empty()),
                "{f} missing in {}",
                self.json
            );
        }
        assert_eq!(
            self.header("x-request-id"),
            e["request_id"].as_str(),
            "X-Request-Id equals request_id"
        );
        if code.starts_with("VALIDATION.FIELD.") {
            assert!(
                e["field"].as_str().is_some_and(|f| !f.is_empty()),
                "a validation error names its field: {}",
                self.json
            );
        }
        self
    }

    /// The three `X-RateLimit-*` headers as numbers (panics if one is missing).
    pub fn limits(&self) -> (u32, u32, u64) {
        let get = |name: &str| {
            self.header(name)
                .unwrap_or_else(|| panic!("{name} missing ({} {})", self.status, self.json))
                .parse::<u64>()
                .unwrap()
        };
        (
            get("x-ratelimit-limit") as u32,
            get("x-ratelimit-remaining") as u32,
            get("x-ratelimit-reset"),
        )
    }
}

pub async fn start() -> Server {
    start_with(None).await
}

pub async fn start_with(webhook: Option<(String, String)>) -> Server {
    let config = sim::SimConfig {
        live_key: LIVE.into(),
        sandbox_key: SANDBOX.into(),
        webhook_url: webhook.as_ref().map(|w| w.0.clone()),
        webhook_secret: webhook.map(|w| w.1),
        balance_cents: 10_000,
    };
    let (addr, _sim) = sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .unwrap();
    Server { addr }
}

impl Server {
    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&[u8]>,
    ) -> Resp {
        let auth = key.map(|k| format!("Bearer {k}"));
        self.with_authorization(method, path, auth.as_deref(), body)
            .await
    }

    /// A request with this exact Authorization header value (or none).
    pub async fn with_authorization(
        &self,
        method: &str,
        path: &str,
        authorization: Option<&str>,
        body: Option<&[u8]>,
    ) -> Resp {
        let mut stream = TcpStream::connect(self.addr).await.unwrap();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        if let Some(a) = authorization {
            head.push_str(&format!("Authorization: {a}\r\n"));
        }
        if let Some(b) = body {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            ));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        if let Some(b) = body {
            // A server may answer and close before an oversized body is written.
            let _ = stream.write_all(b).await;
        }
        let mut buf = Vec::new();
        let _ = stream.read_to_end(&mut buf).await;
        let split = buf
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a complete HTTP answer");
        let head = String::from_utf8_lossy(&buf[..split]).to_string();
        let raw = buf[split + 4..].to_vec();
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let json = serde_json::from_slice(&raw).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            raw,
            json,
        }
    }

    pub async fn call(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let bytes = body.map(|b| serde_json::to_vec(&b).unwrap());
        self.raw(method, path, key, bytes.as_deref()).await
    }

    pub async fn get(&self, path: &str, key: &str) -> Resp {
        self.call("GET", path, Some(key), None).await
    }

    pub async fn post(&self, path: &str, key: &str, body: Value) -> Resp {
        self.call("POST", path, Some(key), Some(body)).await
    }

    pub async fn control(&self, method: &str, path: &str, body: Value) -> Resp {
        let r = self.call(method, path, None, Some(body)).await;
        assert!(r.status < 300, "{method} {path}: {} {}", r.status, r.json);
        r
    }

    pub async fn advance(&self, seconds: u64) -> u64 {
        self.control("POST", "/__sim/clock/advance", json!({"seconds": seconds}))
            .await
            .json["now"]
            .as_u64()
            .unwrap()
    }

    /// Stops real time from moving the simulated clock: only `advance`
    /// does, so a test can count what happens per simulated second.
    pub async fn freeze(&self) -> u64 {
        self.control("POST", "/__sim/clock/freeze", json!({"frozen": true}))
            .await
            .json["now"]
            .as_u64()
            .unwrap()
    }

    pub async fn new_key(&self, env: &str, scopes: &[&str], extra: Value) -> String {
        let mut body = json!({"env": env, "scopes": scopes});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap_or_default());
        self.control("POST", "/__sim/keys", body).await.json["key"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub async fn set_wallet(&self, balance: i64, card: &str, auto_reload: Value) {
        self.control(
            "PUT",
            "/__sim/accounts/acct_demo/wallet",
            json!({"balance_cents": balance, "card": card, "auto_reload": auto_reload}),
        )
        .await;
    }

    pub async fn balance(&self) -> i64 {
        self.get("/v1/wallet", LIVE).await.json["balance_cents"]
            .as_i64()
            .unwrap()
    }

    /// Quotes rates and returns the whole response.
    pub async fn quote(&self, key: &str, to: Value, parcel: Value) -> Resp {
        self.post(
            "/v1/rates",
            key,
            json!({"from_address": from(), "to_address": to, "parcel": parcel}),
        )
        .await
    }

    /// The id of the cheapest rate from `carrier` (any carrier when None).
    pub async fn rate_id(&self, key: &str, carrier: Option<&str>) -> (String, i64) {
        let r = self.quote(key, to(), parcel()).await;
        let rate = r.json["rates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| carrier.is_none_or(|c| r["carrier"] == c))
            .unwrap()
            .clone();
        (
            rate["id"].as_str().unwrap().to_string(),
            rate["rate_cents"].as_i64().unwrap(),
        )
    }

    /// The demo account as the control surface shows it (balance, live labels).
    pub async fn account(&self) -> Value {
        let r = self
            .call("GET", "/__sim/accounts/acct_demo", None, None)
            .await;
        assert_eq!(r.status, 200, "{}", r.json);
        r.json
    }

    /// `n` batch items from one real quote (its cheapest rate, bought `n`
    /// times, which is allowed) and their total in cents.
    pub async fn quoted_items(&self, key: &str, n: usize) -> (Vec<Value>, i64) {
        let r = self.quote(key, to(), parcel()).await;
        assert_eq!(r.status, 200, "{}", r.json);
        let rate = r.json["rates"][0].clone();
        let cents = rate["rate_cents"].as_i64().unwrap();
        let items = (0..n).map(|_| item_for(&rate, &to(), &parcel())).collect();
        (items, cents * n as i64)
    }

    pub async fn buy(&self, key: &str) -> Resp {
        let (rate, _) = self.rate_id(key, None).await;
        self.post("/v1/labels", key, json!({"rate_id": rate})).await
    }
}

pub fn from() -> Value {
    json!({"name": "Ada Shop Inc", "street1": "500 Market St Suite 3", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"})
}

pub fn to() -> Value {
    json!({"name": "Grace Hopper", "street1": "12 Elm St", "city": "Brooklyn", "state": "NY", "zip": "11201", "country": "US"})
}

pub fn parcel() -> Value {
    json!({"weight_oz": 20, "length": 10, "width": 8, "height": 4})
}

/// An item of the right shape whose rate does not exist: for the checks
/// made before rates are looked up.
pub fn batch_item(rate_cents: i64) -> Value {
    json!({"from_address": from(), "to_address": to(), "parcel": parcel(), "rate_id": "rate_x", "carrier": "Pacific Post", "service": "Ground Advantage", "rate_cents": rate_cents})
}

/// A batch item for `rate` (a Rate from a rates response), quoted for
/// `to` and `parcel` from `from()`.
pub fn item_for(rate: &Value, to: &Value, parcel: &Value) -> Value {
    json!({"from_address": from(), "to_address": to, "parcel": parcel, "rate_id": rate["id"], "carrier": rate["carrier"], "service": rate["service"], "rate_cents": rate["rate_cents"]})
}
