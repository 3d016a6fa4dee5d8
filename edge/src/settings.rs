//! The deployment's settings, parsed once per isolate.

use std::cell::RefCell;
use std::rc::Rc;

use domain::config::Config;
use domain::errors::SettingError;
use worker::Env;

thread_local! {
    /// Settings never change within an isolate: parsed once, when valid.
    static CONFIG: RefCell<Option<Rc<Config>>> = const { RefCell::new(None) };
}

pub(crate) fn config(env: &Env) -> Result<Rc<Config>, SettingError> {
    if let Some(config) = CONFIG.with(|c| c.borrow().clone()) {
        return Ok(config);
    }
    // Secrets and vars are both strings to `var`.
    let config = Rc::new(Config::from_lookup(|name| {
        env.var(name).ok().map(|v| v.to_string())
    })?);
    CONFIG.with(|c| *c.borrow_mut() = Some(config.clone()));
    Ok(config)
}
