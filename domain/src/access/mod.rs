//! Who is calling and what they may do: signed session cookies (`session`),
//! the configured users (`users`) and roles (`roles`), the gate that turns a
//! request into a principal and checks its scopes (`gate`), and the
//! Worker's own sign-in, session, mode and key endpoints (`console` decides
//! their answers, `glue` serves them).

pub mod console;
mod error;
pub mod gate;
pub mod roles;
pub mod session;
pub mod settings;
pub mod users;

pub use error::{AccessError, SignInReason};
