//! Passwords are stored only as a slow hash: PBKDF2-HMAC-SHA256 through
//! WebCrypto at OWASP's 600,000 iterations, as [`ROUNDS`] chained
//! derivations of [`ITERATIONS`] each (round `n` takes round `n-1`'s 32
//! bytes as its password). Production Workers refuse more than 100,000
//! iterations in one derivation (workerd's `DEFAULT_MAX_PBKDF2_ITERATIONS`;
//! the local runtime does not enforce it, so the test below does); the chain
//! costs a guesser the same 600,000 HMAC-SHA256 computations per guess.
//!
//! A record is `pbkdf2-sha256$100000x6${salt hex}${hash hex}`, so a later
//! cost can be read beside the old ones and upgraded at the next sign-in.

use subtle::ConstantTimeEq;

/// Production's cap per derivation.
pub const PLATFORM_MAX_ITERATIONS: u32 = 100_000;
pub const ITERATIONS: u32 = 100_000;
pub const ROUNDS: u32 = 6;
pub const SALT_BYTES: usize = 16;
const SCHEME: &str = "pbkdf2-sha256";

/// A stored password: its cost, salt and hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordRecord {
    pub iterations: u32,
    pub rounds: u32,
    pub salt: Vec<u8>,
    pub hash: [u8; 32],
}

impl PasswordRecord {
    pub fn encode(&self) -> String {
        format!(
            "{SCHEME}${}x{}${}${}",
            self.iterations,
            self.rounds,
            hex::encode(&self.salt),
            hex::encode(self.hash)
        )
    }

    /// `None` for anything not written by [`PasswordRecord::encode`] within
    /// the platform's limits: such a record cannot be checked, so it never
    /// lets anyone in.
    pub fn parse(record: &str) -> Option<PasswordRecord> {
        let mut parts = record.split('$');
        if parts.next()? != SCHEME {
            return None;
        }
        let (iterations, rounds) = parts.next()?.split_once('x')?;
        let iterations: u32 = iterations.parse().ok()?;
        let rounds: u32 = rounds.parse().ok()?;
        let salt = hex::decode(parts.next()?).ok()?;
        let hash: [u8; 32] = hex::decode(parts.next()?).ok()?.try_into().ok()?;
        let sane = (1..=PLATFORM_MAX_ITERATIONS).contains(&iterations)
            && (1..=16).contains(&rounds)
            && salt.len() >= SALT_BYTES
            && parts.next().is_none();
        sane.then_some(PasswordRecord {
            iterations,
            rounds,
            salt,
            hash,
        })
    }

    /// Whether `derived` (the chain's output for this record's salt and
    /// cost) is this password's hash, in constant time.
    pub fn matches(&self, derived: &[u8]) -> bool {
        derived.ct_eq(&self.hash).into()
    }

    /// Whether the record was made at a lower cost than today's.
    pub fn needs_upgrade(&self) -> bool {
        u64::from(self.iterations) * u64::from(self.rounds)
            < u64::from(ITERATIONS) * u64::from(ROUNDS)
    }
}

/// The record an unknown email is checked against, so that it costs the
/// same derivation as a real one and answers in about the same time.
pub fn dummy(salt: Vec<u8>) -> PasswordRecord {
    PasswordRecord {
        iterations: ITERATIONS,
        rounds: ROUNDS,
        salt,
        hash: [0; 32],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_hundred_thousand_iterations_within_the_platform_cap() {
        const { assert!(ITERATIONS <= PLATFORM_MAX_ITERATIONS) };
        assert!(u64::from(ITERATIONS) * u64::from(ROUNDS) >= 600_000);
    }

    #[test]
    fn records_round_trip_and_refuse_what_cannot_be_checked() {
        let record = PasswordRecord {
            iterations: ITERATIONS,
            rounds: ROUNDS,
            salt: vec![7; SALT_BYTES],
            hash: [9; 32],
        };
        let text = record.encode();
        assert!(text.starts_with("pbkdf2-sha256$100000x6$0707"));
        assert_eq!(PasswordRecord::parse(&text), Some(record.clone()));
        assert!(record.matches(&[9; 32]));
        assert!(!record.matches(&[8; 32]));
        assert!(!record.matches(&[9; 31]));
        assert!(!record.needs_upgrade());
        for bad in [
            "",
            "md5$1x1$00$00",
            &text.replace("100000x6", "600000x1"),
            &text.replace("100000x6", "100000x0"),
            &format!("{text}$extra"),
            &text.replace("$07070707070707070707070707070707$", "$07$"),
        ] {
            assert_eq!(PasswordRecord::parse(bad), None, "{bad}");
        }
        let old = PasswordRecord {
            iterations: 10_000,
            rounds: 1,
            ..record
        };
        assert!(old.needs_upgrade());
    }
}
