use leptos::prelude::*;

/// How a badge reads: the colour is never the only signal, the text says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Good,
    Warn,
    Bad,
    Neutral,
}

impl Tone {
    fn class(self) -> &'static str {
        match self {
            Tone::Good => "badge badge-good",
            Tone::Warn => "badge badge-warn",
            Tone::Bad => "badge badge-bad",
            Tone::Neutral => "badge",
        }
    }
}

/// A state in a word or two, kept on one line (`.status`).
#[component]
pub fn StatusBadge(#[prop(into)] text: String, tone: Tone) -> impl IntoView {
    view! { <span class=tone.class() class:status=true>{text}</span> }
}
