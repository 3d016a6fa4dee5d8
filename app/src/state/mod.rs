//! Browser-side state shared by pages: the ticking clock, saved senders and
//! purchase intents. Plain logic lives beside it with native tests.

pub mod clock;
pub mod intent;
pub mod senders;
