//! `sim --addr 127.0.0.1:8788 [--live-key K] [--sandbox-key K] [--webhook-url U --webhook-secret S] [--balance-cents N]`
//! Keys and webhook settings may also come from SIM_LIVE_KEY, SIM_SANDBOX_KEY,
//! SIM_WEBHOOK_URL and SIM_WEBHOOK_SECRET, so they need not be on the command line.

use std::io::Write;
use std::net::SocketAddr;

const USAGE: &str = "usage: sim [--addr HOST:PORT] [--live-key KEY] [--sandbox-key KEY] [--webhook-url URL] [--webhook-secret SECRET] [--balance-cents N]";

fn main() {
    if let Err(message) = run() {
        eprintln!("sim: {message}\n{USAGE}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut addr: SocketAddr = "127.0.0.1:8788".parse().expect("valid default");
    let mut config = sim::random_config();
    let generated = (config.live_key.clone(), config.sandbox_key.clone());
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    config.live_key = env("SIM_LIVE_KEY").unwrap_or(config.live_key);
    config.sandbox_key = env("SIM_SANDBOX_KEY").unwrap_or(config.sandbox_key);
    config.webhook_url = env("SIM_WEBHOOK_URL");
    config.webhook_secret = env("SIM_WEBHOOK_SECRET");
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            println!("{USAGE}");
            return Ok(());
        }
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--addr" => {
                addr = value
                    .parse()
                    .map_err(|_| format!("--addr {value}: expected HOST:PORT"))?
            }
            "--live-key" => config.live_key = value,
            "--sandbox-key" => config.sandbox_key = value,
            "--webhook-url" => config.webhook_url = Some(value),
            "--webhook-secret" => config.webhook_secret = Some(value),
            "--balance-cents" => {
                config.balance_cents = value
                    .parse()
                    .map_err(|_| "--balance-cents: expected an integer")?
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    match (&config.webhook_url, &config.webhook_secret) {
        (Some(url), Some(_)) if !url.starts_with("http://") => {
            return Err(format!(
                "--webhook-url {url}: the simulator delivers to http:// URLs only"
            ));
        }
        (Some(_), None) => return Err("--webhook-url needs --webhook-secret".into()),
        (None, Some(_)) => return Err("--webhook-secret needs --webhook-url".into()),
        _ => {}
    }
    for (name, key, env) in [
        ("live key", &config.live_key, api::KeyEnv::Live),
        ("sandbox key", &config.sandbox_key, api::KeyEnv::Sandbox),
    ] {
        match api::ApiKey::parse(key) {
            Ok(k) if k.env() == env => {}
            _ => {
                return Err(format!(
                    "the {name} must be {}<32 hex characters>",
                    env.prefix()
                ));
            }
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let (bound, _sim) = sim::start(addr, config.clone())
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "account: {}", sim::world::DEFAULT_ACCOUNT);
        // A key we were given is a secret of the caller's: show only its tail.
        let show = |key: &str, made: &str| {
            if key == made {
                key.to_string()
            } else {
                api::ApiKey::parse(key)
                    .map(|k| k.redacted())
                    .unwrap_or_default()
            }
        };
        let _ = writeln!(out, "live key: {}", show(&config.live_key, &generated.0));
        let _ = writeln!(
            out,
            "sandbox key: {}",
            show(&config.sandbox_key, &generated.1)
        );
        let _ = writeln!(
            out,
            "wallet: {} cents, card ok, auto-reload off",
            config.balance_cents
        );
        let _ = writeln!(
            out,
            "webhook: {}",
            config.webhook_url.as_deref().unwrap_or("none")
        );
        let _ = writeln!(out, "listening on http://{bound}");
        let _ = out.flush();
        drop(out);
        std::future::pending::<()>().await;
        Ok(())
    })
}
