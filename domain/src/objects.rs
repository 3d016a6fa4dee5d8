//! The one call protocol of the Worker's Durable Objects (`purchases`,
//! `control`, `webhooks`, `jobs`): each object names its binding and its request
//! enum and says what "unavailable" means for its callers; each request
//! names its typed reply. A call is one JSON request and one JSON reply
//! (`platform::objects::ask` on the caller's side, [`reply`] on the object's),
//! so a request and its reply cannot drift apart between the two sides.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A Durable Object class as its callers see it.
pub trait Object {
    /// The binding in wrangler.toml.
    const BINDING: &'static str;
    /// Every call the object answers, as one enum. Calls and their replies
    /// keep serde's default (external) enum tags: an internally tagged enum
    /// (`tag = "op"`) buffers its payload and so compiles a second
    /// deserializer for every type in it (about 25 KiB gzip of the wasm).
    type Request: Serialize + DeserializeOwned;
    /// The error of the feature the object belongs to.
    type Error;
    /// What a caller answers when the object cannot be reached or fails.
    /// Each object's error says what it means for the user (a purchase not
    /// sent, a session not checked, an event not acknowledged).
    fn unavailable() -> Self::Error;
}

/// One call to object `O`, and the type of its reply.
pub trait Ask<O: Object>: Into<O::Request> {
    type Reply: Serialize + DeserializeOwned;
}

/// The object's side: serialises the reply of the call `A`, so the type the
/// object sends is the type the caller decodes.
pub fn reply<O: Object, A: Ask<O>>(reply: &A::Reply) -> Result<String, serde_json::Error> {
    serde_json::to_string(reply)
}

/// States the calls of an object: each call type goes into the object's
/// request enum as its variant and names its reply.
/// `calls!(InboxCall for InboxStore: Accept(AcceptEvent) => Accepted, ...)`.
#[macro_export]
macro_rules! calls {
    ($request:ident for $object:ty: $($variant:ident($call:ident) => $reply:ty,)*) => {$(
        impl From<$call> for $request {
            fn from(c: $call) -> Self {
                $request::$variant(c)
            }
        }
        impl $crate::objects::Ask<$object> for $call {
            type Reply = $reply;
        }
    )*};
}

/// The path every call is posted to, followed by `/{the object's name}`
/// (the object's own URL space is private).
pub const CALL_URL: &str = "https://object/call";
