//! Talking with the shop's window (`api::widget`): events out, commands in,
//! both by `postMessage` and only with the shop's origin, which the Worker
//! confirmed and the page's `frame-ancestors` guarantees.

use super::setup::ParcelInput;
use api::Address;
use api::widget::{commands, events};
use serde::{Deserialize, Serialize};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// A command from the shop (the embed script's element API).
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    SetParcel(ParcelInput),
    SetDestination(Destination),
}

/// A command as it comes: `{type, parcel}` or `{type, address}` (read as a
/// plain struct: a tagged enum would cost the widget kilobytes of wasm).
#[derive(Deserialize)]
struct Message {
    #[serde(rename = "type")]
    kind: String,
    parcel: Option<ParcelInput>,
    address: Option<Destination>,
}

/// A destination as the shop gives it (a logged-in customer's address).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Destination {
    pub name: Option<String>,
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip: Option<String>,
    pub country: Option<String>,
}

impl Destination {
    /// `address` with every field the shop gave replaced.
    pub fn apply(self, address: &mut Address) {
        let set = |field: &mut String, value: Option<String>| {
            if let Some(v) = value {
                *field = v.trim().to_string();
            }
        };
        set(&mut address.name, self.name);
        set(&mut address.street1, self.street1);
        set(&mut address.city, self.city);
        set(&mut address.state, self.state);
        set(&mut address.zip, self.zip);
        set(&mut address.country, self.country);
        if let Some(line) = self.street2 {
            address.street2 = (!line.trim().is_empty()).then(|| line.trim().to_string());
        }
    }
}

/// A command from its JSON; the error is for the shop's developer.
pub fn parse_command(json: &str) -> Result<Command, String> {
    let problem = |what: String| {
        format!(
            "The widget did not understand a message from the shop ({what}). Use the element's \
             setParcel and setDestination (see the README)."
        )
    };
    let message: Message = serde_json::from_str(json).map_err(|e| problem(e.to_string()))?;
    match (message.kind.as_str(), message.parcel, message.address) {
        (commands::SET_PARCEL, Some(parcel), _) => Ok(Command::SetParcel(parcel)),
        (commands::SET_DESTINATION, _, Some(address)) => Ok(Command::SetDestination(address)),
        (kind, ..) => Err(problem(format!("{kind} without its parcel or address"))),
    }
}

/// The `error` event's detail: a code to branch on and a sentence for the
/// shop's developer (the shopper sees a sentence of their own).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

impl ErrorDetail {
    /// A problem the widget found itself (no request was made).
    pub fn widget(code: &str, message: String, field: Option<&str>) -> ErrorDetail {
        ErrorDetail {
            code: code.to_string(),
            message,
            field: field.map(str::to_string),
            request_id: None,
        }
    }
}

/// The shop's window, spoken to at its origin only.
#[derive(Clone, Debug)]
pub struct Shop {
    pub origin: String,
}

impl Shop {
    /// Sends `{type, detail, ...extra}` to the shop's window.
    pub fn send(&self, kind: &str, detail: &impl Serialize, extra: &[(&str, f64)]) {
        let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) else {
            return;
        };
        let Ok(json) = serde_json::to_string(detail) else {
            return;
        };
        let Ok(detail) = js_sys::JSON::parse(&json) else {
            return;
        };
        let message = js_sys::Object::new();
        let set = |k: &str, v: JsValue| js_sys::Reflect::set(&message, &k.into(), &v);
        let _ = set("type", kind.into());
        let _ = set("detail", detail);
        for (k, v) in extra {
            let _ = set(k, (*v).into());
        }
        let _ = parent.post_message(&message, &self.origin);
    }

    /// Calls `on_command` with each message from the shop's window (and its
    /// origin); anything else is ignored.
    pub fn listen(&self, on_command: impl Fn(Result<Command, String>) + 'static) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let Ok(Some(parent)) = window.parent() else {
            return;
        };
        let origin = self.origin.clone();
        let receive =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let from_parent = event
                    .source()
                    .is_some_and(|source| js_sys::Object::is(&source, &parent));
                if event.origin() != origin || !from_parent {
                    return;
                }
                let json = js_sys::JSON::stringify(&event.data())
                    .ok()
                    .and_then(|s| s.as_string())
                    .unwrap_or_default();
                on_command(parse_command(&json));
            });
        let _ =
            window.add_event_listener_with_callback("message", receive.as_ref().unchecked_ref());
        // Lives as long as the page.
        receive.forget();
    }

    /// Tells the shop's window this page's height whenever it changes, so
    /// the embed script can size the iframe to fit.
    pub fn report_height(&self) {
        let Some(body) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
        else {
            return;
        };
        let shop = self.clone();
        let observed = body.clone();
        let report = Closure::<dyn FnMut()>::new(move || {
            let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) else {
                return;
            };
            let message = js_sys::Object::new();
            let set = |k: &str, v: JsValue| js_sys::Reflect::set(&message, &k.into(), &v);
            let _ = set("type", events::HEIGHT.into());
            let _ = set("height", f64::from(body.scroll_height()).into());
            let _ = parent.post_message(&message, &shop.origin);
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(report.as_ref().unchecked_ref()) {
            observer.observe(&observed);
        }
        // Lives as long as the page.
        report.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::address_form::blank_address;
    use crate::widget::setup::Params;
    use api::widget::{DEFAULT_WAIT_SECONDS, PAGE_PATH, STATUS_PATH, embed_codes};

    #[test]
    fn commands_parse_from_the_shops_messages() {
        let parcel = format!(
            r#"{{"type":"{}","parcel":{{"preset":"small-box","weight_oz":12}}}}"#,
            commands::SET_PARCEL
        );
        assert_eq!(
            parse_command(&parcel),
            Ok(Command::SetParcel(ParcelInput {
                weight_oz: Some(12.0),
                preset: Some("small-box".into()),
                ..ParcelInput::default()
            }))
        );
        let to = format!(
            r#"{{"type":"{}","address":{{"street1":" 12 Elm St ","city":"Brooklyn","state":"NY","zip":"11201"}}}}"#,
            commands::SET_DESTINATION
        );
        let Ok(Command::SetDestination(address)) = parse_command(&to) else {
            panic!("{:?}", parse_command(&to))
        };
        let mut a = blank_address();
        a.name = "Shopper".into();
        address.apply(&mut a);
        assert_eq!(
            (
                a.name.as_str(),
                a.street1.as_str(),
                a.zip.as_str(),
                a.country.as_str()
            ),
            ("Shopper", "12 Elm St", "11201", "US")
        );
        let wrong =
            parse_command(r#"{"type":"parcel-widget:set-parcel","parcel":{"weight_oz":"12"}}"#)
                .unwrap_err();
        assert!(wrong.contains("setParcel"), "{wrong}");
        assert!(parse_command(r#"{"type":"parcel-widget:buy"}"#).is_err());
    }

    /// The embed script restates the protocol's names: each must be there.
    #[test]
    fn the_embed_script_speaks_the_same_protocol() {
        let embed = include_str!("../../../widget/embed.js");
        let names = events::DISPATCHED
            .into_iter()
            .chain([
                events::HEIGHT,
                commands::SET_PARCEL,
                commands::SET_DESTINATION,
            ])
            .chain(Params::names())
            .chain([
                STATUS_PATH,
                embed_codes::FRAME_TIMEOUT,
                embed_codes::UNREACHABLE,
            ])
            .chain([api::ErrorCode::EdgeOriginRefused.as_str()]);
        for name in names {
            assert!(
                embed.contains(&format!("'{name}'")),
                "embed.js lacks '{name}'"
            );
        }
        assert!(embed.contains(PAGE_PATH));
        assert!(embed.contains(&format!("DEFAULT_WAIT_SECONDS = {DEFAULT_WAIT_SECONDS};")));
    }
}
