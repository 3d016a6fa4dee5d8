//! Every user-initiated write (sign-in, a purchase, a void, an address
//! check, …) goes through one `Write`: an `Action` with its pending state
//! for the button, its last failure for the form, and no second submit
//! while one is in flight (a double click, Enter pressed twice).

use crate::api::ClientError;
use leptos::prelude::*;
use std::future::Future;

pub struct Write<I: 'static, T: 'static> {
    action: Action<I, Result<T, ClientError>>,
    pending: Memo<bool>,
}

impl<I, T> Clone for Write<I, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I, T> Copy for Write<I, T> {}

impl<I: Clone + 'static, T: Clone + 'static> Write<I, T> {
    /// `run` does the call and whatever its answer changes on the page.
    pub fn new<F, Fut>(run: F) -> Self
    where
        F: Fn(I) -> Fut + 'static,
        Fut: Future<Output = Result<T, ClientError>> + 'static,
    {
        let action = Action::new_local(move |input: &I| run(input.clone()));
        Write {
            action,
            pending: action.pending(),
        }
    }

    /// Starts the write, unless one is still running.
    pub fn submit(self, input: I) {
        if !self.pending.get_untracked() {
            self.action.dispatch_local(input);
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

    /// The last answer, once the write has finished (tracked).
    pub fn result(self) -> Option<Result<T, ClientError>> {
        if self.pending() {
            return None;
        }
        self.action.value().get()
    }

    /// The last failure, hidden while a retry runs (tracked).
    pub fn error(self) -> Option<ClientError> {
        self.result().and_then(Result::err)
    }

    /// Forgets the last answer (the form was closed or changed).
    pub fn clear(self) {
        self.action.clear();
    }
}
