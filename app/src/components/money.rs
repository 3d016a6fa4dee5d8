use leptos::prelude::*;

/// Formats integer cents as US dollars, e.g. `123456` → `$1,234.56`.
/// Integer arithmetic only, so no amount is ever rounded.
pub fn format_cents(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    let dollars = (abs / 100).to_string();
    let mut grouped = String::with_capacity(dollars.len() + dollars.len() / 3);
    for (i, ch) in dollars.chars().enumerate() {
        if i > 0 && (dollars.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    format!("{sign}${grouped}.{:02}", abs % 100)
}

#[component]
pub fn Money(cents: i64) -> impl IntoView {
    view! { <span class="money">{format_cents(cents)}</span> }
}

#[cfg(test)]
mod tests {
    use super::format_cents;

    #[test]
    fn formats_cents_exactly() {
        assert_eq!(format_cents(0), "$0.00");
        assert_eq!(format_cents(5), "$0.05");
        assert_eq!(format_cents(10000), "$100.00");
        assert_eq!(format_cents(123456), "$1,234.56");
        assert_eq!(format_cents(100000000), "$1,000,000.00");
        assert_eq!(format_cents(-2550), "-$25.50");
        assert_eq!(format_cents(i64::MIN), "-$92,233,720,368,547,758.08");
    }
}
