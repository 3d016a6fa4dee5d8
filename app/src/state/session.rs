//! The signed-in session, beyond the login form: the first check when the
//! app starts, the live/sandbox switch, the switch to another organization
//! and sign-out. The session itself is `Client::session`; a 401
//! `EDGE.SESSION.REQUIRED` on any call clears it.

use crate::api::{Client, ClientError};
use crate::state::write::Write;
use api::KeyEnv;
use api::orgs::OrgId;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

#[derive(Clone, Copy)]
pub struct Session {
    /// The first check: `Some(Ok)` once the Worker said who is signed in,
    /// or that nobody is. A signal rather than a `LocalResource`: each
    /// resource type costs the dashboard about 1 KiB of wasm.
    pub started: RwSignal<Option<Result<(), ClientError>>>,
    /// Runs the first check (again, after a failure).
    pub start: Callback<()>,
    /// To the other mode than the session's (admins, both keys configured).
    pub switch_mode: Write,
    pub switch_org: OrgSwitch,
    pub sign_out: Write,
}

/// The switch to another of the person's organizations: the new session
/// builds every page anew, on the landing page (an address names one
/// organization's things: a label, a job).
#[derive(Clone, Copy)]
pub struct OrgSwitch {
    to: RwSignal<Option<OrgId>>,
    pub write: Write,
}

impl OrgSwitch {
    fn new(client: Client) -> Self {
        let to = RwSignal::new(None::<OrgId>);
        let navigate = use_navigate();
        let write = Write::new(move || {
            let navigate = navigate.clone();
            async move {
                if let Some(org) = to.get_untracked() {
                    client.switch_org(org).await?;
                    navigate("/", Default::default());
                }
                Ok(())
            }
        });
        OrgSwitch { to, write }
    }

    /// Switches to `org` (a switch still running has read its own).
    pub fn to(self, org: OrgId) {
        self.to.set(Some(org));
        self.write.submit();
    }
}

/// The mode the switch leads to.
pub fn other_mode(mode: KeyEnv) -> KeyEnv {
    match mode {
        KeyEnv::Live => KeyEnv::Sandbox,
        KeyEnv::Sandbox => KeyEnv::Live,
    }
}

/// Reads the session again after a change that may concern the person
/// themselves (their role, their membership), and replaces it only if it
/// changed: a new session builds every page anew. An ended one signs out.
pub async fn reread(client: Client) {
    if let Ok(info) = client.session().await
        && client.session.with_untracked(|s| s.as_ref() != Some(&info))
    {
        client.session.set(Some(info));
    }
}

/// Inside the router (the organization switch navigates).
pub fn use_session(client: Client) -> Session {
    let started = RwSignal::new(None);
    let start = Callback::new(move |()| {
        started.set(None);
        spawn_local(async move {
            started.set(Some(match client.session().await {
                Ok(info) => {
                    client.session.set(Some(info));
                    Ok(())
                }
                Err(e) if e.is_sign_in_required() => Ok(()),
                Err(e) => Err(e),
            }));
        });
    });
    start.run(());
    let switch_mode = Write::new(move || async move {
        let now = client
            .session
            .with_untracked(|s| s.as_ref().map(|s| s.mode));
        match now {
            Some(mode) => client.set_mode(other_mode(mode)).await.map(drop),
            None => Ok(()),
        }
    });
    Session {
        started,
        start,
        switch_mode,
        switch_org: OrgSwitch::new(client),
        sign_out: Write::new(move || client.sign_out()),
    }
}
