//! The dashboards' live feeds: hibernatable WebSockets tagged by mode, one
//! way (what a page sends is ignored), sent each label accepted in their
//! mode and each refused delivery.

use api::inbox::LiveMessage;
use worker::{Response, Result, WebSocketPair};

use super::WebhookInbox;

pub(super) fn mode_tag(sandbox: bool) -> &'static str {
    if sandbox { "sandbox" } else { "live" }
}

impl WebhookInbox {
    /// A new feed of the session's mode (the Worker checked the session).
    pub(super) fn open_feed(&self, sandbox: bool) -> Result<Response> {
        let pair = WebSocketPair::new()?;
        self.state
            .accept_websocket_with_tags(&pair.server, &[mode_tag(sandbox)]);
        Response::from_websocket(pair.client)
    }

    pub(super) fn broadcast(&self, tag: Option<&str>, message: &LiveMessage) {
        let Ok(text) = serde_json::to_string(message) else {
            return;
        };
        let sockets = match tag {
            Some(tag) => self.state.get_websockets_with_tag(tag),
            None => self.state.get_websockets(),
        };
        for ws in sockets {
            // A socket that is closing just misses this one.
            let _ = ws.send_with_str(&text);
        }
    }
}
