//! Signed session cookies. Stateless to verify (HMAC-SHA256 with
//! SESSION_SECRET); sign-out adds the session id to a revocation list.

use api::KeyEnv;
use api::signing::{hmac_matches, hmac_sha256};

use api::orgs::OrgId;
use api::session::Role;

use crate::orgs::via::Via;

pub const COOKIE_NAME: &str = "__Host-parcel_session";
/// Sessions last a working day; signing in again is one paste.
pub const SESSION_SECONDS: u64 = 12 * 60 * 60;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Random id, the handle for revocation.
    pub sid: String,
    /// The organization the session acts for.
    pub org: OrgId,
    /// A `USERS` name (the deployment's organization) or an account id.
    pub user: String,
    pub role: Role,
    /// Which key forwarded calls use for this session.
    pub mode: KeyEnv,
    /// How its person signed in: a token's session stays in its organization.
    pub via: Via,
    /// Unix seconds after which the cookie is refused.
    pub expires_at: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionError {
    Malformed,
    BadSignature,
    Expired,
}

/// Cookies this isolate verified, and the secret that verified them (a
/// different secret starts afresh); cleared when full.
const MAX_VERIFIED: usize = 10_000;
#[derive(Default)]
struct Verified {
    secret: Vec<u8>,
    cookies: std::collections::HashMap<String, Session>,
}
thread_local! {
    static VERIFIED: std::cell::RefCell<Verified> = std::cell::RefCell::default();
}

/// Characters allowed in every field, so `.` can separate them unambiguously.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl Session {
    fn payload(&self) -> String {
        format!(
            "v3.{}.{}.{}.{}.{}.{}.{}",
            self.sid,
            self.org,
            self.user,
            self.role.as_str(),
            self.mode.as_str(),
            self.via.as_str(),
            self.expires_at
        )
    }

    /// The cookie value: payload and its signature.
    pub fn encode(&self, secret: &[u8]) -> String {
        debug_assert!(is_token(&self.sid) && is_token(&self.user));
        let payload = self.payload();
        let sig = hex::encode(hmac_sha256(secret, payload.as_bytes()));
        format!("{payload}.{sig}")
    }

    /// [`Session::decode`], remembering cookies already verified in this
    /// isolate: a signed-in user sends the same cookie with every call, and
    /// its HMAC was a measurable share of each forwarded request. The
    /// signature is still checked once per cookie, secret and isolate; the
    /// expiry on every call.
    pub fn decode_cached(value: &str, secret: &[u8], now: u64) -> Result<Session, SessionError> {
        let hit = VERIFIED.with(|m| {
            let m = m.borrow();
            (m.secret == secret).then(|| m.cookies.get(value).cloned())?
        });
        let session = match hit {
            Some(session) => session,
            None => {
                let session = Session::decode(value, secret, now)?;
                VERIFIED.with(|m| {
                    let mut m = m.borrow_mut();
                    if m.secret != secret || m.cookies.len() >= MAX_VERIFIED {
                        m.cookies.clear();
                        m.secret = secret.to_vec();
                    }
                    m.cookies.insert(value.to_string(), session.clone());
                });
                session
            }
        };
        if now >= session.expires_at {
            return Err(SessionError::Expired);
        }
        Ok(session)
    }

    pub fn decode(value: &str, secret: &[u8], now: u64) -> Result<Session, SessionError> {
        let (payload, sig) = value.rsplit_once('.').ok_or(SessionError::Malformed)?;
        let sig = hex::decode(sig).map_err(|_| SessionError::Malformed)?;
        // Constant-time comparison of the signature.
        if !hmac_matches(secret, payload.as_bytes(), &sig) {
            return Err(SessionError::BadSignature);
        }
        let parts: Vec<&str> = payload.split('.').collect();
        let org_of = |org: &str| OrgId::parse(org).ok_or(SessionError::Malformed);
        // v1 cookies (before organizations) are the deployment's
        // organization's; v1 and v2 cookies (before a session said how it
        // was started) stay in their organization, as a token's would.
        let (sid, org, user, role, mode, via, expires_at) = match parts.as_slice() {
            ["v3", sid, org, user, role, mode, via, expires_at] => {
                let via = Via::from_name(via).ok_or(SessionError::Malformed)?;
                (sid, org_of(org)?, user, role, mode, via, expires_at)
            }
            ["v2", sid, org, user, role, mode, expires_at] => {
                (sid, org_of(org)?, user, role, mode, Via::Token, expires_at)
            }
            ["v1", sid, user, role, mode, expires_at] => {
                let org = OrgId::deployment();
                (sid, org, user, role, mode, Via::Token, expires_at)
            }
            _ => return Err(SessionError::Malformed),
        };
        if !is_token(sid) || !is_token(user) {
            return Err(SessionError::Malformed);
        }
        let role: Role = role.parse().map_err(|_| SessionError::Malformed)?;
        let mode: KeyEnv = mode.parse().map_err(|_| SessionError::Malformed)?;
        let expires_at: u64 = expires_at.parse().map_err(|_| SessionError::Malformed)?;
        if now >= expires_at {
            return Err(SessionError::Expired);
        }
        Ok(Session {
            sid: sid.to_string(),
            org,
            user: user.to_string(),
            role,
            mode,
            via,
            expires_at,
        })
    }

    /// `Set-Cookie` value that stores this session: HttpOnly, Secure,
    /// SameSite=Strict, host-only (`__Host-` prefix), expiring with the session.
    pub fn set_cookie(&self, secret: &[u8], now: u64) -> String {
        format!(
            "{COOKIE_NAME}={}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age={}",
            self.encode(secret),
            self.expires_at.saturating_sub(now)
        )
    }
}

/// `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie() -> String {
    format!("{COOKIE_NAME}=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0")
}

/// Finds our cookie in a `Cookie` request header.
pub fn cookie_value(header: &str) -> Option<&str> {
    header
        .split(';')
        .map(str::trim)
        .find_map(|pair| pair.strip_prefix(COOKIE_NAME)?.strip_prefix('='))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn session() -> Session {
        Session {
            sid: "s1a2b3".into(),
            org: OrgId::deployment(),
            user: "ada".into(),
            role: Role::Operator,
            mode: KeyEnv::Live,
            via: Via::Token,
            expires_at: 2_000,
        }
    }

    #[test]
    fn round_trips() {
        let s = session();
        assert_eq!(Session::decode(&s.encode(SECRET), SECRET, 1_000), Ok(s));
    }

    #[test]
    fn a_changed_role_or_wrong_secret_is_refused() {
        let cookie = session().encode(SECRET);
        let forged = cookie.replace(".operator.", ".admin.");
        assert_eq!(
            Session::decode(&forged, SECRET, 1_000),
            Err(SessionError::BadSignature)
        );
        assert_eq!(
            Session::decode(&cookie, b"another secret", 1_000),
            Err(SessionError::BadSignature)
        );
        assert_eq!(
            Session::decode("garbage", SECRET, 1_000),
            Err(SessionError::Malformed)
        );
        assert_eq!(
            Session::decode("a.b.zz", SECRET, 1_000),
            Err(SessionError::Malformed)
        );
    }

    #[test]
    fn a_remembered_cookie_still_needs_its_secret_and_expires() {
        let cookie = session().encode(SECRET);
        assert_eq!(
            Session::decode_cached(&cookie, SECRET, 1_000),
            Ok(session())
        );
        assert_eq!(
            Session::decode_cached(&cookie, SECRET, 1_500),
            Ok(session())
        );
        assert_eq!(
            Session::decode_cached(&cookie, b"another secret", 1_000),
            Err(SessionError::BadSignature)
        );
        assert_eq!(
            Session::decode_cached(&cookie, SECRET, 2_000),
            Err(SessionError::Expired)
        );
        let forged = cookie.replace(".operator.", ".admin.");
        assert_eq!(
            Session::decode_cached(&forged, SECRET, 1_000),
            Err(SessionError::BadSignature)
        );
    }

    #[test]
    fn a_cookie_names_its_organization_and_old_cookies_are_the_deployment_s() {
        let acme = Session {
            org: OrgId::parse("org_0123456789abcdef").unwrap(),
            user: "acct_00aa".into(),
            ..session()
        };
        let cookie = acme.encode(SECRET);
        assert_eq!(Session::decode(&cookie, SECRET, 1_000), Ok(acme));
        let other = cookie.replace("org_0123456789abcdef", "org_fedcba9876543210");
        assert_eq!(
            Session::decode(&other, SECRET, 1_000),
            Err(SessionError::BadSignature)
        );
        // A cookie signed before organizations existed.
        let signed = |payload: &str| {
            let sig = hex::encode(hmac_sha256(SECRET, payload.as_bytes()));
            format!("{payload}.{sig}")
        };
        assert_eq!(
            Session::decode(&signed("v1.s1a2b3.ada.operator.live.2000"), SECRET, 1_000),
            Ok(session())
        );
        // One signed before sessions said how they were started stays in its organization.
        let v2 = signed("v2.s1a2b3.org_0123456789abcdef.acct_00aa.operator.live.2000");
        let decoded = Session::decode(&v2, SECRET, 1_000).unwrap();
        assert_eq!(decoded.via, Via::Token);
        assert_eq!(decoded.org.as_str(), "org_0123456789abcdef");
    }

    #[test]
    fn how_the_session_was_started_is_signed() {
        let person = Session {
            via: Via::Person,
            ..session()
        };
        let cookie = person.encode(SECRET);
        assert!(cookie.contains(".person."), "{cookie}");
        assert_eq!(Session::decode(&cookie, SECRET, 1_000), Ok(person));
        let bound = session().encode(SECRET);
        assert_eq!(
            Session::decode(&bound.replace(".token.", ".person."), SECRET, 1_000),
            Err(SessionError::BadSignature)
        );
    }

    #[test]
    fn expires() {
        let cookie = session().encode(SECRET);
        assert_eq!(
            Session::decode(&cookie, SECRET, 2_000),
            Err(SessionError::Expired)
        );
    }

    #[test]
    fn cookie_attributes_are_strict() {
        let c = session().set_cookie(SECRET, 1_000);
        for attr in [
            "HttpOnly",
            "Secure",
            "SameSite=Strict",
            "Path=/",
            "Max-Age=1000",
        ] {
            assert!(c.contains(attr), "{attr} in {c}");
        }
        assert!(c.starts_with("__Host-parcel_session="));
        assert!(!c.contains("Domain"));
        assert!(clear_cookie().contains("Max-Age=0"));
    }

    #[test]
    fn finds_the_cookie_among_others() {
        assert_eq!(
            cookie_value("a=1; __Host-parcel_session=xyz; b=2"),
            Some("xyz")
        );
        assert_eq!(cookie_value("__Host-parcel_sessionX=1"), None);
        assert_eq!(cookie_value("a=1"), None);
    }
}
