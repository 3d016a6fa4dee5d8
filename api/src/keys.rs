//! API keys (part 5): `svc_live_` or `svc_test_` plus 32 hexadecimal
//! characters (either case accepted). A key never prints itself.

use std::fmt;

crate::names! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum KeyEnv {
        Live = "live",
        Sandbox = "sandbox",
    }
}

impl KeyEnv {
    pub fn prefix(self) -> &'static str {
        match self {
            KeyEnv::Live => "svc_live_",
            KeyEnv::Sandbox => "svc_test_",
        }
    }
}

impl fmt::Display for KeyEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `live` or `sandbox`, as in paths (`/api/keys/live/verify`) and settings.
impl std::str::FromStr for KeyEnv {
    type Err = String;
    fn from_str(s: &str) -> Result<KeyEnv, String> {
        KeyEnv::from_name(s).ok_or_else(|| format!("unknown mode {s:?} (live or sandbox)"))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyError {
    /// Neither `svc_live_` nor `svc_test_`.
    UnknownPrefix,
    /// Not exactly 32 hexadecimal characters after the prefix.
    Malformed,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyError::UnknownPrefix => "an API key starts with svc_live_ or svc_test_",
            KeyError::Malformed => {
                "an API key has exactly 32 hexadecimal characters after its prefix"
            }
        })
    }
}

impl std::error::Error for KeyError {}

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ApiKey {
    value: String,
    env: KeyEnv,
}

impl ApiKey {
    pub fn parse(value: &str) -> Result<ApiKey, KeyError> {
        let (env, rest) = if let Some(rest) = value.strip_prefix(KeyEnv::Live.prefix()) {
            (KeyEnv::Live, rest)
        } else if let Some(rest) = value.strip_prefix(KeyEnv::Sandbox.prefix()) {
            (KeyEnv::Sandbox, rest)
        } else {
            return Err(KeyError::UnknownPrefix);
        };
        if rest.len() != 32 || !rest.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(KeyError::Malformed);
        }
        Ok(ApiKey {
            value: value.to_string(),
            env,
        })
    }

    pub fn env(&self) -> KeyEnv {
        self.env
    }

    /// The secret itself, for the Authorization header only.
    pub fn expose(&self) -> &str {
        &self.value
    }

    /// A safe label for logs and screens: prefix and last four characters.
    pub fn redacted(&self) -> String {
        format!(
            "{}…{}",
            self.env.prefix(),
            &self.value[self.value.len() - 4..]
        )
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({})", self.redacted())
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

crate::names! {
    /// Which of a mode's two key slots forwarded calls use.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum KeySlot {
        /// `SVC_LIVE_KEY` / `SVC_SANDBOX_KEY`.
        Current = "current",
        /// `SVC_LIVE_KEY_NEXT` / `SVC_SANDBOX_KEY_NEXT`: the rotation candidate.
        Next = "next",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789ABCDEF";

    #[test]
    fn parses_both_kinds() {
        assert_eq!(
            ApiKey::parse(&format!("svc_live_{HEX}")).unwrap().env(),
            KeyEnv::Live
        );
        assert_eq!(
            ApiKey::parse(&format!("svc_test_{HEX}")).unwrap().env(),
            KeyEnv::Sandbox
        );
    }

    #[test]
    fn modes_round_trip_by_name() {
        for mode in KeyEnv::ALL {
            assert_eq!(mode.to_string().parse::<KeyEnv>(), Ok(mode));
        }
        assert!("prod".parse::<KeyEnv>().is_err());
    }

    #[test]
    fn rejects_malformed_keys() {
        assert_eq!(
            ApiKey::parse(&format!("svc_prod_{HEX}")),
            Err(KeyError::UnknownPrefix)
        );
        assert_eq!(ApiKey::parse("svc_live_abc"), Err(KeyError::Malformed));
        assert_eq!(
            ApiKey::parse(&format!("svc_live_{HEX}0")),
            Err(KeyError::Malformed)
        );
        assert_eq!(
            ApiKey::parse(&format!("svc_live_{}g", &HEX[..31])),
            Err(KeyError::Malformed)
        );
        assert_eq!(ApiKey::parse(""), Err(KeyError::UnknownPrefix));
    }

    #[test]
    fn never_prints_the_secret() {
        let key = ApiKey::parse(&format!("svc_live_{HEX}")).unwrap();
        for shown in [format!("{key}"), format!("{key:?}"), key.redacted()] {
            assert!(!shown.contains(&HEX[..28]), "{shown}");
            assert!(shown.ends_with("CDEF") || shown.ends_with("CDEF)"));
        }
    }
}
