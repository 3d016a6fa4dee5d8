//! Browser-side state shared by pages: the session, the ticking clock,
//! writes in flight, purchase intents and saved senders. Plain logic lives
//! beside it with native tests.

pub mod clock;
pub mod purchase;
pub mod saved;
pub mod senders;
pub mod session;
pub mod stored;
pub mod write;
