//! Secrets at rest: an organization's v1 keys (and, later, its webhook
//! secret) are stored only as AES-256-GCM ciphertexts under a master key
//! that is a secret (`MASTER_KEYS`) of the accounts Worker alone, which
//! seals them and opens them for the main Worker. The master key's
//! id is written beside each ciphertext (`{kid}.{iv}.{ciphertext}`), so a
//! second master key can be added in front and the old one kept to open
//! what it sealed until everything is sealed again. The organization's id
//! and the secret's purpose are the associated data: a ciphertext copied
//! to another organization, or from a key to a webhook secret, does not open.
//!
//! The cipher is WebCrypto's (`accounts/src/sealing.rs`); what is decided (which master key
//! seals, which opens, the associated data) is here.

use api::orgs::OrgId;

/// The setting, the accounts Worker's alone: `kid:secret`, comma-separated, the first
/// seals; ids are 1–16 of `[a-z0-9]`, secrets at least 32 characters.
pub const SETTING: &str = "MASTER_KEYS";
pub const MIN_SECRET_CHARS: usize = 32;

/// What a sealed secret is for: part of the associated data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    V1Key,
    WebhookSecret,
}

/// The associated data of `org`'s secret for `purpose`.
pub fn associated_data(org: &OrgId, purpose: Purpose) -> String {
    let purpose = match purpose {
        Purpose::V1Key => "v1-key",
        Purpose::WebhookSecret => "webhook-secret",
    };
    format!("parcel/{org}/{purpose}")
}

#[derive(Clone, PartialEq, Eq)]
pub struct MasterKeys(Vec<(String, String)>);

impl std::fmt::Debug for MasterKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.0.iter().map(|(kid, _)| kid.as_str()).collect();
        write!(f, "MasterKeys({ids:?})")
    }
}

impl MasterKeys {
    /// `Err` names what is wrong, never the secret.
    pub fn parse(value: &str) -> Result<MasterKeys, String> {
        let mut keys: Vec<(String, String)> = Vec::new();
        for (n, entry) in value.split(',').map(str::trim).enumerate() {
            let (kid, secret) = entry
                .split_once(':')
                .ok_or(format!("entry {} is not `id:secret`", n + 1))?;
            let kid_ok = (1..=16).contains(&kid.len())
                && kid
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
            if !kid_ok {
                return Err(format!("entry {}'s id is not 1 to 16 of a-z0-9", n + 1));
            }
            if secret.chars().any(char::is_control) {
                return Err(format!("the secret of `{kid}` holds a control character"));
            }
            if secret.chars().count() < MIN_SECRET_CHARS {
                return Err(format!(
                    "the secret of `{kid}` is shorter than {MIN_SECRET_CHARS} characters"
                ));
            }
            if keys.iter().any(|(k, _)| k == kid) {
                return Err(format!("`{kid}` is named twice"));
            }
            keys.push((kid.to_string(), secret.to_string()));
        }
        Ok(MasterKeys(keys))
    }

    /// The key new secrets are sealed with: `(id, secret)`.
    pub fn sealing(&self) -> (&str, &str) {
        let (kid, secret) = &self.0[0];
        (kid, secret)
    }

    /// The secret of the master key that sealed `sealed`, and the rest of
    /// it (`{iv}.{ciphertext}`); `None`: malformed or sealed by a master key
    /// no longer configured.
    pub fn opening<'a>(&self, sealed: &'a str) -> Option<(&str, &'a str)> {
        let (kid, rest) = sealed.split_once('.')?;
        let (_, secret) = self.0.iter().find(|(k, _)| k == kid)?;
        Some((secret, rest))
    }

    /// Whether `sealed` should be sealed again with the current master key.
    pub fn is_stale(&self, sealed: &str) -> bool {
        sealed.split_once('.').map(|(kid, _)| kid) != Some(self.sealing().0)
    }
}

/// `{kid}.{iv}.{ciphertext}`: what is stored.
pub fn sealed(kid: &str, iv_and_ciphertext: &str) -> String {
    format!("{kid}.{iv_and_ciphertext}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    #[test]
    fn master_keys_name_their_problem_and_never_their_secret() {
        let keys = MasterKeys::parse(&format!("k2:{B}, k1:{A}")).unwrap();
        assert_eq!(keys.sealing(), ("k2", B));
        assert_eq!(keys.opening("k1.iv.ct"), Some((A, "iv.ct")));
        assert_eq!(keys.opening("k3.iv.ct"), None);
        assert_eq!(keys.opening("k1"), None);
        assert!(keys.is_stale("k1.iv.ct"));
        assert!(!keys.is_stale("k2.iv.ct"));
        assert!(!format!("{keys:?}").contains(A));
        for (bad, says) in [
            ("", "entry 1"),
            ("k1", "entry 1"),
            (&format!("K1:{A}"), "id"),
            (&format!("k1:{A},k1:{B}"), "twice"),
            ("k1:short", "shorter"),
            (&format!("k1:aaaa\tbbbb{A}"), "control"),
        ] {
            let problem = MasterKeys::parse(bad).unwrap_err();
            assert!(problem.contains(says), "{bad}: {problem}");
            assert!(!problem.contains(A));
        }
    }

    #[test]
    fn associated_data_binds_organization_and_purpose() {
        let a = OrgId::parse("org_a").unwrap();
        let b = OrgId::parse("org_b").unwrap();
        assert_ne!(
            associated_data(&a, Purpose::V1Key),
            associated_data(&b, Purpose::V1Key)
        );
        assert_eq!(associated_data(&a, Purpose::V1Key), "parcel/org_a/v1-key");
        assert_ne!(
            associated_data(&a, Purpose::V1Key),
            associated_data(&a, Purpose::WebhookSecret)
        );
    }
}
