//! The signed-in session, beyond the login form: the first check when the
//! app starts, the live/sandbox switch and sign-out. The session itself is
//! `Client::session`; a 401 `EDGE.SESSION.REQUIRED` on any call clears it.

use crate::api::{Client, ClientError};
use crate::state::write::Write;
use api::KeyEnv;
use api::session::SessionInfo;
use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct Session {
    /// `Ok` once the Worker said who is signed in, or that nobody is.
    pub start: LocalResource<Result<(), ClientError>>,
    pub switch_mode: Write<KeyEnv, SessionInfo>,
    pub sign_out: Write<(), ()>,
}

pub fn use_session(client: Client) -> Session {
    let start = LocalResource::new(move || async move {
        match client.session().await {
            Ok(info) => {
                client.session.set(Some(info));
                Ok(())
            }
            Err(e) if e.is_sign_in_required() => Ok(()),
            Err(e) => Err(e),
        }
    });
    Session {
        start,
        switch_mode: Write::new(move |mode| client.set_mode(mode)),
        sign_out: Write::new(move |()| client.sign_out()),
    }
}
