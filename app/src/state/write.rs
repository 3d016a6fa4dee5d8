//! Every user-initiated write (sign-in, a purchase, a void, an address
//! check, …) goes through one `Write`: an `Action` with its pending state
//! for the button, its last failure for the form, and no second submit
//! while one is in flight (a double click, Enter pressed twice).

use crate::api::ClientError;
use leptos::prelude::*;
use std::future::Future;

/// The write reads its input when it starts and puts what it got where
/// the page shows it, so every write is the same `Action` type: one copy
/// of Leptos's action code in the wasm, not one per write.
#[derive(Clone, Copy)]
pub struct Write {
    action: Action<(), Result<(), ClientError>>,
    pending: Memo<bool>,
}

impl Write {
    pub fn new<F, Fut>(run: F) -> Self
    where
        F: Fn() -> Fut + 'static,
        Fut: Future<Output = Result<(), ClientError>> + 'static,
    {
        let action = Action::new_local(move |_: &()| run());
        Write {
            action,
            pending: action.pending(),
        }
    }

    /// Starts the write, unless one is still running.
    pub fn submit(self) {
        if !self.pending.get_untracked() {
            self.action.dispatch_local(());
        }
    }

    /// Whether a write is in flight (tracked): its button waits.
    pub fn pending(self) -> bool {
        self.pending.get()
    }

    /// The button's text: `busy` while the write runs.
    pub fn label(self, idle: &'static str, busy: &'static str) -> &'static str {
        if self.pending() { busy } else { idle }
    }

    /// The last failure, hidden while a retry runs (tracked).
    pub fn error(self) -> Option<ClientError> {
        if self.pending() {
            return None;
        }
        self.action.value().get().and_then(Result::err)
    }

    /// Forgets the last failure (the form was closed or changed).
    pub fn clear(self) {
        self.action.clear();
    }
}
