//! Dashboard users. The `USERS` secret lists `name:role:sha256hex` entries
//! (comma or newline separated); the hex is SHA-256 of the user's access
//! token. Tokens are long random strings (`scripts/new-user` makes them), so a
//! plain SHA-256 is enough: there is nothing to guess a dictionary against.

use api::session::Role;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Shorter tokens are refused at sign-in: they could be guessed.
pub const MIN_TOKEN_LEN: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub role: Role,
    token_sha256: [u8; 32],
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Users(Vec<User>);

/// Names go into the session cookie and the log: letters, digits, `_`, `-`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl Users {
    pub fn parse(list: &str) -> Result<Users, String> {
        let mut users: Vec<User> = Vec::new();
        for entry in list
            .split([',', '\n', ' ', '\t', '\r'])
            .filter(|s| !s.is_empty())
        {
            let [name, role, hash] = entry.split(':').collect::<Vec<_>>()[..] else {
                return Err("each entry must be name:role:sha256-of-token".into());
            };
            if !is_valid_name(name) {
                return Err(format!(
                    "user name {name:?} must be 1-64 letters, digits, _ or -"
                ));
            }
            let role: Role = role.parse()?;
            let token_sha256: [u8; 32] = hex::decode(hash)
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| format!("the hash of {name} must be 64 hex characters"))?;
            if users.iter().any(|u| u.name == name) {
                return Err(format!("user {name} is listed twice"));
            }
            users.push(User {
                name: name.to_string(),
                role,
                token_sha256,
            });
        }
        Ok(Users(users))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The user whose token this is. Every entry is compared in constant
    /// time, so timing tells nothing about which hash came close.
    pub fn sign_in(&self, token: &str) -> Option<&User> {
        if token.len() < MIN_TOKEN_LEN || token.len() > 512 {
            return None;
        }
        let digest = Sha256::digest(token.as_bytes());
        let mut found = None;
        for user in &self.0 {
            if bool::from(user.token_sha256.ct_eq(digest.as_slice())) {
                found = Some(user);
            }
        }
        found
    }

    pub fn find(&self, name: &str) -> Option<&User> {
        self.0.iter().find(|u| u.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "pt_0123456789abcdef0123456789abcdef0123";

    fn entry(name: &str, role: &str, token: &str) -> String {
        format!("{name}:{role}:{}", hex::encode(Sha256::digest(token)))
    }

    #[test]
    fn signs_in_by_token_only() {
        let other = "pt_ffffffffffffffffffffffffffffffffffff";
        let users = Users::parse(&format!(
            "{},\n{}",
            entry("ada", "admin", TOKEN),
            entry("bob", "viewer", other)
        ))
        .unwrap();
        assert_eq!(users.sign_in(TOKEN).map(|u| u.role), Some(Role::Admin));
        assert_eq!(users.sign_in(other).map(|u| u.name.as_str()), Some("bob"));
        assert_eq!(
            users.sign_in("pt_0123456789abcdef0123456789abcdef0124"),
            None
        );
        assert_eq!(users.sign_in(""), None);
        assert_eq!(users.find("bob").map(|u| u.role), Some(Role::Viewer));
    }

    #[test]
    fn short_tokens_never_sign_in_even_if_listed() {
        let users = Users::parse(&entry("ada", "admin", "short")).unwrap();
        assert_eq!(users.sign_in("short"), None);
    }

    #[test]
    fn malformed_lists_say_what_is_wrong() {
        for (list, says) in [
            ("ada:admin", "name:role:sha256"),
            ("ada:root:00", "unknown role"),
            ("ada:admin:00", "64 hex"),
            ("a.b:admin:00", "letters"),
        ] {
            let err = Users::parse(list).unwrap_err();
            assert!(err.contains(says), "{list}: {err}");
        }
        let twice = format!("{0},{0}", entry("ada", "admin", TOKEN));
        assert!(Users::parse(&twice).unwrap_err().contains("twice"));
        assert!(Users::parse("").unwrap().is_empty());
    }
}
