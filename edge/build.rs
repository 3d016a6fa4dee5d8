//! `main_worker`: the main Worker's build (neither `accounts` nor
//! `ledger`), the one cfg its glue is compiled under.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(main_worker)");
    let accounts = std::env::var_os("CARGO_FEATURE_ACCOUNTS").is_some();
    let ledger = std::env::var_os("CARGO_FEATURE_LEDGER").is_some();
    if !accounts && !ledger {
        println!("cargo::rustc-cfg=main_worker");
    }
}
