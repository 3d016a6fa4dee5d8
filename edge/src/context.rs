//! What every handler of the main Worker is given besides the request, so
//! each has one signature: `async fn(Request, &mut Cx<'_>) -> Result<Response, EdgeError>`.

use std::rc::Rc;

use api::KeyEnv;
use domain::access::gate::Facts;
use domain::config::Config;
use domain::errors::RouteError;
use platform::Trace;
use worker::Env;

pub(crate) struct Cx<'a> {
    pub env: &'a Env,
    /// The settings the request works with: its session's organization's,
    /// the organization a widget or webhook names, or the deployment's.
    pub config: Rc<Config>,
    pub facts: Facts<'a>,
    /// The path's `{id}` or `{mode}`, as the route checked it (empty where
    /// the pattern has none).
    pub param: String,
    pub query: Option<&'a str>,
    pub request_id: &'a str,
    pub trace: &'a mut Trace,
}

impl Cx<'_> {
    /// The path's `{mode}` (checked by the route, so never refused here in practice).
    pub fn mode_param(&self) -> Result<KeyEnv, RouteError> {
        self.param.parse().map_err(|_| RouteError::NotFound {
            path: self.param.clone(),
        })
    }
}
