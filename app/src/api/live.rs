//! Live feeds: a WebSocket to the Worker (the session cookie goes with it)
//! that reconnects after a drop, and closes when the page that opened it
//! goes away. The webhook inbox's (`/api/webhooks/live`) and a batch job's.

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use serde::de::DeserializeOwned;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{MessageEvent, WebSocket};

/// Reconnects wait this long, so a Worker restart is not hammered.
const RETRY: Duration = Duration::from_secs(2);

struct Socket {
    ws: WebSocket,
    // Kept alive as long as the socket may call them.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_open: Closure<dyn FnMut()>,
    _on_close: Closure<dyn FnMut()>,
}

#[derive(Clone)]
struct Feed {
    path: Rc<str>,
    current: Rc<RefCell<Option<Socket>>>,
    stopped: Rc<std::cell::Cell<bool>>,
    set_connected: WriteSignal<bool>,
    /// Each message's text, in order (a signal would keep only the last of a burst).
    deliver: Rc<dyn Fn(String)>,
}

fn feed_url(path: &str) -> Option<String> {
    let location = web_sys::window()?.location();
    let scheme = if location.protocol().ok()? == "https:" {
        "wss"
    } else {
        "ws"
    };
    Some(format!("{scheme}://{}{path}", location.host().ok()?))
}

impl Feed {
    fn connect(&self) {
        if self.stopped.get() {
            return;
        }
        let Some(ws) = feed_url(&self.path).and_then(|url| WebSocket::new(&url).ok()) else {
            return;
        };
        let deliver = self.deliver.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(text) = event.data().as_string() {
                deliver(text);
            }
        });
        let set_connected = self.set_connected;
        let on_open = Closure::<dyn FnMut()>::new(move || set_connected.set(true));
        let feed = self.clone();
        let on_close = Closure::<dyn FnMut()>::new(move || {
            feed.set_connected.set(false);
            let again = feed.clone();
            set_timeout(move || again.connect(), RETRY);
        });
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        self.replace(Some(Socket {
            ws,
            _on_message: on_message,
            _on_open: on_open,
            _on_close: on_close,
        }));
    }

    /// Detaches and closes the old socket before its closures are dropped.
    fn replace(&self, next: Option<Socket>) {
        if let Some(old) = self.current.replace(next) {
            old.ws.set_onmessage(None);
            old.ws.set_onopen(None);
            old.ws.set_onclose(None);
            let _ = old.ws.close();
        }
    }
}

/// Opens the feed at `path` for as long as the calling component lives;
/// `on_message` gets every message (one JSON `T` each) in order. Returns
/// whether it is connected.
pub fn use_feed<T: DeserializeOwned + 'static>(
    path: &str,
    on_message: impl Fn(T) + 'static,
) -> ReadSignal<bool> {
    let (connected, set_connected) = signal(false);
    let feed = Feed {
        path: path.into(),
        current: Rc::new(RefCell::new(None)),
        stopped: Rc::new(std::cell::Cell::new(false)),
        set_connected,
        deliver: Rc::new(move |text: String| {
            if let Ok(message) = serde_json::from_str::<T>(&text) {
                on_message(message);
            }
        }),
    };
    feed.connect();
    let on_leave = SendWrapper::new(feed);
    on_cleanup(move || {
        on_leave.stopped.set(true);
        on_leave.replace(None);
    });
    connected
}
