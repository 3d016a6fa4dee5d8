//! Countries and their regions: the codes an address must use (ISO 3166-1
//! alpha-2 countries; in the US and Canada, the two-letter state, province
//! and territory codes carriers print), and the names merchants' files carry
//! instead ("United States", "USA", "Deutschland", "Florida", "Québec"),
//! read as those codes. Regions of other countries are not checked and not
//! read: they stay as typed. Nothing is guessed: a name either is in the
//! tables (`places/tables.rs`) or is not read.

mod tables;

use std::collections::HashMap;
use std::sync::OnceLock;

use tables::{CA_CODES, CA_NAMES, COUNTRY_CODES, COUNTRY_NAMES, US_CODES, US_NAMES};

/// `code` (two letters, any case) as it stands in `codes`, if it does.
/// The tables are sorted and upper case (a test says so): a binary search,
/// since every quote checks two countries.
fn find_code(codes: &'static str, code: &str) -> Option<&'static str> {
    let &[a, b] = code.as_bytes() else {
        return None;
    };
    let wanted = [a.to_ascii_uppercase(), b.to_ascii_uppercase()];
    let table = codes.as_bytes();
    let (mut low, mut high) = (0, table.len() / 2);
    while low < high {
        let mid = (low + high) / 2;
        match table[mid * 2..mid * 2 + 2].cmp(&wanted[..]) {
            std::cmp::Ordering::Less => low = mid + 1,
            std::cmp::Ordering::Greater => high = mid,
            std::cmp::Ordering::Equal => return codes.get(mid * 2..mid * 2 + 2),
        }
    }
    None
}

/// Whether `code` is a country's code: assigned in ISO 3166-1 (or XK, see
/// the tables), any case, no spaces.
pub fn is_country(code: &str) -> bool {
    find_code(COUNTRY_CODES, code).is_some()
}

/// The region codes of `country`, if its addresses must use them.
fn region_codes(country: &str) -> Option<&'static str> {
    if country.eq_ignore_ascii_case("US") {
        Some(US_CODES)
    } else if country.eq_ignore_ascii_case("CA") {
        Some(CA_CODES)
    } else {
        None
    }
}

/// Whether `region` is a region code of `country`; `None` when the
/// regions of that country are not checked (anything but US and CA).
pub fn is_region(country: &str, region: &str) -> Option<bool> {
    region_codes(country.trim()).map(|codes| find_code(codes, region.trim()).is_some())
}

/// Latin letters with their accents taken off, so `Osterreich` and `Cote
/// d'Ivoire` read as `Österreich` and `Côte d'Ivoire`.
fn fold(c: char) -> char {
    match c {
        'à'..='å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'č' => 'c',
        'ď' | 'đ' => 'd',
        'è'..='ë' | 'ē' | 'ė' | 'ę' | 'ě' => 'e',
        'ì'..='ï' | 'ī' | 'į' | 'ı' => 'i',
        'ĺ' | 'ļ' | 'ľ' | 'ł' => 'l',
        'ñ' | 'ń' | 'ņ' | 'ň' => 'n',
        'ò'..='ö' | 'ø' | 'ō' | 'ő' => 'o',
        'ŕ' | 'ř' => 'r',
        'ś' | 'ş' | 'š' | 'ș' => 's',
        'ţ' | 'ť' | 'ț' => 't',
        'ù'..='ü' | 'ũ' | 'ū' | 'ů' | 'ű' | 'ų' => 'u',
        'ý' | 'ÿ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        other => other,
    }
}

/// A name as compared: lower case, accents off, letters and digits only,
/// without the words "the" and "and", "st" read as "saint". `The
/// Netherlands`, `netherlands` and `Trinidad & Tobago` / `Trinidad and
/// Tobago` each compare equal; `U.S.A.` is `usa`.
fn key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for word in name.split(|c: char| !c.is_alphanumeric()) {
        let word: String = word
            .chars()
            .flat_map(char::to_lowercase)
            .map(fold)
            .collect();
        match word.as_str() {
            "" | "the" | "and" => {}
            "st" => out.push_str("saint"),
            w => out.push_str(w),
        }
    }
    out
}

/// A table row `CODE rest`: its code, and the `|`-separated names after
/// `skip` more bytes.
fn row_names(row: &'static str, skip: usize) -> (&'static str, impl Iterator<Item = &'static str>) {
    let code = row.get(..2).unwrap_or_default();
    let names = row.get(3 + skip..).unwrap_or_default().split('|');
    (code, names)
}

/// Each name's key (and with `alpha3`, each alpha-3 code's) to its code,
/// made once: a file of 5,000 different values is then 5,000 look-ups,
/// not 5,000 passes over the tables.
fn index(rows: &'static [&'static str], alpha3: bool) -> HashMap<String, &'static str> {
    let mut index = HashMap::new();
    for row in rows {
        let (code, names) = row_names(row, if alpha3 { 4 } else { 0 });
        for name in names {
            index.insert(key(name), code);
        }
        if let Some(a3) = row.get(3..6).filter(|_| alpha3) {
            index.insert(a3.to_ascii_lowercase(), code);
        }
    }
    index
}

/// The code `text` names: the code itself (any case, `U.S.` too), or a
/// name in `index`.
fn read(
    codes: &'static str,
    index: &HashMap<String, &'static str>,
    text: &str,
) -> Option<&'static str> {
    let text = text.trim();
    // A code as typed first: `ST` is São Tomé, not an abbreviated "saint".
    if let Some(code) = find_code(codes, text) {
        return Some(code);
    }
    let wanted = key(text);
    find_code(codes, &wanted).or_else(|| index.get(&wanted).copied())
}

/// The country `text` names, as its two-letter code: a code (`us`,
/// `U.S.`), an ISO 3166-1 alpha-3 code (`USA`, `DEU`), an ISO name in its
/// short, common or official form (`United States of America`,
/// `Korea, Republic of`, `South Korea`), a common English short form (`UK`,
/// `Holland`) or, for the main destinations, the country's own name
/// (`Deutschland`, `España`).
pub fn country_code(text: &str) -> Option<&'static str> {
    static INDEX: OnceLock<HashMap<String, &'static str>> = OnceLock::new();
    read(
        COUNTRY_CODES,
        INDEX.get_or_init(|| index(&COUNTRY_NAMES, true)),
        text,
    )
}

/// The region of `country` that `text` names, as its code (`Florida` and
/// `fl` in the US are `FL`; `Québec` in Canada is `QC`); `None` when it
/// names none, or when the regions of `country` are not read (outside the
/// US and Canada).
pub fn region_code(country: &str, text: &str) -> Option<&'static str> {
    static US: OnceLock<HashMap<String, &'static str>> = OnceLock::new();
    static CA: OnceLock<HashMap<String, &'static str>> = OnceLock::new();
    let country = country.trim();
    if country.eq_ignore_ascii_case("US") {
        read(US_CODES, US.get_or_init(|| index(&US_NAMES, false)), text)
    } else if country.eq_ignore_ascii_case("CA") {
        read(CA_CODES, CA.get_or_init(|| index(&CA_NAMES, false)), text)
    } else {
        None
    }
}

/// A row's name as a list shows it: its first (ISO) name, or where that
/// is inverted (`Korea, Republic of`), the common form of its head word if
/// the row has one (`Bolivia`, `South Korea`, `DR Congo`).
fn shown_name(row: &'static str, skip: usize) -> (&'static str, &'static str) {
    let (code, mut names) = row_names(row, skip);
    let first = names.next().unwrap_or(code);
    let Some((head, _)) = first.split_once(',') else {
        return (code, first);
    };
    // The head itself, or one word before it.
    let common = names.find(|n| {
        n.strip_suffix(head)
            .is_some_and(|w| w.is_empty() || (w.ends_with(' ') && !w.trim().contains(' ')))
    });
    (code, common.unwrap_or(first))
}

/// `(code, name)` of `rows`, by name as compared (accents and "the" aside).
fn listed(rows: &'static [&'static str], skip: usize) -> Vec<(&'static str, &'static str)> {
    let mut list: Vec<_> = rows.iter().map(|row| shown_name(row, skip)).collect();
    list.sort_by_cached_key(|(_, name)| key(name));
    list
}

/// Every country as a form lists it: `(code, name)`, by name.
pub fn countries() -> Vec<(&'static str, &'static str)> {
    listed(&COUNTRY_NAMES, 4)
}

/// The regions of `country` as a form lists them, `(code, name)` by name,
/// where its addresses must use their codes (the US and Canada); `None`
/// elsewhere, where the region is typed.
pub fn regions(country: &str) -> Option<Vec<(&'static str, &'static str)>> {
    let country = country.trim();
    if country.eq_ignore_ascii_case("US") {
        Some(listed(&US_NAMES, 0))
    } else if country.eq_ignore_ascii_case("CA") {
        Some(listed(&CA_NAMES, 0))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_tables_are_sorted_upper_case_pairs() {
        for codes in [COUNTRY_CODES, US_CODES, CA_CODES] {
            let pairs: Vec<&[u8]> = codes.as_bytes().chunks(2).collect();
            assert!(pairs.iter().all(|p| p.len() == 2));
            assert!(
                pairs
                    .iter()
                    .flat_map(|p| p.iter())
                    .all(u8::is_ascii_uppercase)
            );
            assert!(pairs.windows(2).all(|w| w[0] < w[1]), "{codes}");
        }
        // Every code is found, first, last and all between.
        for codes in [COUNTRY_CODES, US_CODES, CA_CODES] {
            for pair in codes.as_bytes().chunks(2) {
                let code = std::str::from_utf8(pair).unwrap();
                assert_eq!(find_code(codes, code), Some(code));
                assert_eq!(find_code(codes, &code.to_lowercase()), Some(code));
            }
        }
    }

    #[test]
    fn codes_any_case_and_only_assigned_ones() {
        assert!(is_country("US") && is_country("gb") && is_country("XK"));
        assert!(!is_country("UK") && !is_country("ZZ") && !is_country("USA") && !is_country(""));
        assert_eq!(is_region("US", "fl"), Some(true));
        assert_eq!(
            is_region("us", "PR"),
            Some(true),
            "territories are states to carriers"
        );
        assert_eq!(is_region("US", "AE"), Some(true), "armed forces Europe");
        assert_eq!(is_region("US", "ZZ"), Some(false));
        assert_eq!(
            is_region("US", "ON"),
            Some(false),
            "a Canadian province on a US address"
        );
        assert_eq!(is_region("CA", "QC"), Some(true));
        assert_eq!(is_region("CA", "NY"), Some(false));
        assert_eq!(
            is_region("GB", "Kent"),
            None,
            "other countries' regions are not checked"
        );
    }

    #[test]
    fn country_names_and_codes_as_merchants_write_them() {
        for (text, code) in [
            ("US", "US"),
            ("us", "US"),
            (" U.S. ", "US"),
            ("USA", "US"),
            ("U.S.A.", "US"),
            ("United States", "US"),
            ("united states of america", "US"),
            ("Estados Unidos", "US"),
            ("UK", "GB"),
            ("United Kingdom", "GB"),
            ("Great Britain", "GB"),
            ("England", "GB"),
            ("Deutschland", "DE"),
            ("DEU", "DE"),
            ("Germany", "DE"),
            ("Österreich", "AT"),
            ("Osterreich", "AT"),
            ("The Netherlands", "NL"),
            ("Holland", "NL"),
            ("Korea, Republic of", "KR"),
            ("Republic of Korea", "KR"),
            ("South Korea", "KR"),
            ("Côte d'Ivoire", "CI"),
            ("Cote d'Ivoire", "CI"),
            ("Trinidad & Tobago", "TT"),
            ("St. Lucia", "LC"),
            ("ST", "ST"),
            ("Canada", "CA"),
            ("Viet Nam", "VN"),
            ("Vietnam", "VN"),
            ("Kosovo", "XK"),
        ] {
            assert_eq!(country_code(text), Some(code), "{text}");
        }
        for text in [
            "",
            " ",
            "Untied States",
            "ZZ",
            "Korea",
            "Europe",
            "Congo-ish",
        ] {
            assert_eq!(country_code(text), None, "{text} is not guessed");
        }
    }

    #[test]
    fn us_and_canadian_regions_by_name_or_code() {
        for (country, text, code) in [
            ("US", "Florida", "FL"),
            ("US", "fl", "FL"),
            ("US", "N.Y.", "NY"),
            ("us", "new york", "NY"),
            ("US", "District of Columbia", "DC"),
            ("US", "Puerto Rico", "PR"),
            ("US", "U.S. Virgin Islands", "VI"),
            ("US", "Armed Forces Europe", "AE"),
            ("CA", "Ontario", "ON"),
            ("CA", "Québec", "QC"),
            ("CA", "Quebec", "QC"),
            ("CA", "Colombie-Britannique", "BC"),
            ("CA", "Newfoundland & Labrador", "NL"),
        ] {
            assert_eq!(region_code(country, text), Some(code), "{country} {text}");
        }
        assert_eq!(region_code("US", "Ontario"), None);
        assert_eq!(region_code("US", "Floridaa"), None);
        assert_eq!(region_code("CA", "Florida"), None);
        assert_eq!(region_code("GB", "Kent"), None, "left as typed");
    }

    #[test]
    fn lists_by_common_name() {
        let all = countries();
        assert_eq!(all.len(), 250);
        let name = |code: &str| all.iter().find(|c| c.0 == code).map(|c| c.1);
        assert_eq!(name("US"), Some("United States"));
        assert_eq!(name("KR"), Some("South Korea"));
        assert_eq!(name("TW"), Some("Taiwan"));
        assert_eq!(name("GB"), Some("United Kingdom"));
        assert_eq!(name("AX"), Some("Åland Islands"));
        assert_eq!(name("BO"), Some("Bolivia"));
        assert_eq!(name("CD"), Some("DR Congo"));
        assert_eq!(name("PS"), Some("Palestine"));
        assert_eq!(name("VG"), Some("British Virgin Islands"));
        assert_eq!(
            name("SH"),
            Some("Saint Helena, Ascension and Tristan da Cunha")
        );
        // By name, accents aside: Åland after Afghanistan, before Albania.
        let at = |code: &str| all.iter().position(|c| c.0 == code).unwrap();
        assert!(at("AF") < at("AX") && at("AX") < at("AL"));
        assert!(all.windows(2).all(|w| key(w[0].1) <= key(w[1].1)));
        for (code, _) in &all {
            assert_eq!(country_code(code), Some(*code));
        }
        let us = regions("us").unwrap();
        assert_eq!(us.len(), 63);
        assert!(us.contains(&("IL", "Illinois")));
        assert_eq!(
            us.iter()
                .filter(|r| is_region("US", r.0) == Some(true))
                .count(),
            63
        );
        assert_eq!(regions(" CA").unwrap().first(), Some(&("AB", "Alberta")));
        assert_eq!(regions("GB"), None);
    }

    /// The names tables list the codes tables' codes, in their order, and no
    /// name (nor alpha-3 code) reads as two countries or two regions.
    #[test]
    fn the_tables_agree_and_no_name_is_ambiguous() {
        for (codes, rows, skip) in [
            (COUNTRY_CODES, &COUNTRY_NAMES[..], 4),
            (US_CODES, &US_NAMES[..], 0),
            (CA_CODES, &CA_NAMES[..], 0),
        ] {
            let listed: String = rows.iter().map(|r| &r[..2]).collect();
            assert_eq!(listed, codes);
            let mut seen: HashMap<String, &str> = HashMap::new();
            for row in rows {
                let (code, names) = row_names(row, skip);
                let alpha3 = (skip == 4).then(|| row[3..6].to_ascii_lowercase());
                for k in names.map(key).chain(alpha3) {
                    assert!(!k.is_empty(), "{row}");
                    if let Some(other) = seen.insert(k.clone(), code) {
                        assert_eq!(other, code, "{k} reads as {other} and {code}");
                    }
                    // A name that reads as a code would never be reached.
                    assert!(k.len() != 2 || find_code(codes, &k).is_none(), "{k}");
                }
            }
        }
        assert_eq!(COUNTRY_CODES.len(), 2 * 250);
    }
}
