//! A label's PDF through the Worker (`api::inbox::label_pdf_path`): the
//! service names the file in `label_url`; the Worker fetches it, adding the
//! key only when the file is on the service's own origin (never sending the
//! key anywhere else), and serves it from the dashboard's origin.

use crate::errors::Failure;
use api::ErrorCode;
use api::origins::origin_of;

/// A bought label's PDF could not be fetched (its upstream status, if one
/// answered; `None` for no answer or an unusable `label_url`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelPdfUnavailable {
    pub status: Option<u16>,
}

impl Failure for LabelPdfUnavailable {
    fn code(&self) -> ErrorCode {
        ErrorCode::EdgeLabelPdfUnavailable
    }
    fn message(&self) -> String {
        match self.status {
            Some(status) => format!("The service did not hand over the label PDF (HTTP {status})."),
            None => "The label PDF could not be fetched from the service.".to_string(),
        }
    }
    fn suggestion(&self) -> String {
        "The label itself is bought and unchanged: try the download again in a minute. If it keeps failing, contact support with this request id.".to_string()
    }
}

/// Where to fetch a label's PDF, and whether the key goes with it.
#[derive(Debug, PartialEq, Eq)]
pub struct PdfSource<'a> {
    pub url: &'a str,
    pub with_key: bool,
}

pub fn pdf_source<'a>(
    label_url: &'a str,
    upstream: &str,
) -> Result<PdfSource<'a>, LabelPdfUnavailable> {
    let theirs = origin_of(label_url).ok_or(LabelPdfUnavailable { status: None })?;
    Ok(PdfSource {
        url: label_url,
        with_key: origin_of(upstream).is_some_and(|ours| ours == theirs),
    })
}

/// Whether the PDF is asked for to be viewed (`?inline=1`) rather than downloaded.
pub fn inline(query: Option<&str>) -> bool {
    crate::routes::query_param(query, "inline").as_deref() == Some("1")
}

/// `attachment` (a download named after the label) or `inline` (viewed).
pub fn content_disposition(id: &str, inline: bool) -> String {
    let how = if inline { "inline" } else { "attachment" };
    format!(r#"{how}; filename="{id}.pdf""#)
}

#[cfg(test)]
mod tests {
    use super::*;

    const UP: &str = "https://api.ship.example";

    #[test]
    fn the_key_goes_only_to_the_service_s_own_origin() {
        let own = pdf_source("https://API.ship.example/labels/l1.pdf", UP).unwrap();
        assert!(own.with_key);
        for elsewhere in [
            "https://cdn.carrier.example/l1.pdf",
            "http://api.ship.example/l1.pdf",
            "https://api.ship.example:8443/l1.pdf",
            "https://api.ship.example@evil.example/l1.pdf",
        ] {
            let source = pdf_source(elsewhere, UP);
            assert!(
                source.as_ref().is_ok_and(|s| !s.with_key) || source.is_err(),
                "{elsewhere}"
            );
        }
        for not_http in ["file:///etc/passwd", "/relative.pdf", "javascript:alert(1)"] {
            assert!(pdf_source(not_http, UP).is_err(), "{not_http}");
        }
    }

    #[test]
    fn dispositions() {
        assert_eq!(
            content_disposition("lbl_1", false),
            r#"attachment; filename="lbl_1.pdf""#
        );
        assert_eq!(
            content_disposition("lbl_1", true),
            r#"inline; filename="lbl_1.pdf""#
        );
    }
}
