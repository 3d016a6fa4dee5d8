//! Personal access tokens: each member of an organization makes their own
//! for scripts, in the app; a token signs in with `POST /api/session
//! {token}` (`session::SignInRequest`) as its owner, with the role they
//! have in the organization at that moment. Stated here once so the app
//! and the edge cannot disagree.
//!
//! | Method and path                  | Who                          | Body → answer                         |
//! |----------------------------------|------------------------------|---------------------------------------|
//! | `GET /api/org/tokens`            | a member (admins: everyone's) | → `TokenList`                        |
//! | `POST /api/org/tokens`           | a member                     | `TokenRequest` → `TokenCreated` (the token, once) |
//! | `DELETE /api/org/tokens/{id}`    | its owner, or an admin       | → `TokenList`                         |
//!
//! A token is [`PREFIX`], the organization's 16-hex suffix and 256 random
//! bits in base64url: 70 characters a secret scanner can match
//! (`parcel_pat_[0-9a-f]{16}[A-Za-z0-9_-]{43}`). Only its SHA-256 is kept.
//! Every token expires: [`DEFAULT_DAYS`] unless its owner chooses 1 to
//! [`MAX_DAYS`]; a token that never expires is not offered, because a
//! script's token that leaks must stop working on its own.
//!
//! Revoking a token, or removing its owner, refuses its next sign-in; a
//! removal also ends the sessions it started (every request checks the
//! membership), while a revocation lets a session already started run to
//! its end (12 hours) or its sign-out.
//!
//! Refusals: a wrong, expired or revoked token, or one whose owner left
//! the organization, signs in to nothing with the same
//! `EDGE.SESSION.INVALID_TOKEN` (401) as an unknown token, and failures are
//! throttled per client address like password sign-in
//! (`EDGE.SIGN_IN.THROTTLED`, 429 with `Retry-After`); a token that is not
//! the caller's to see (another member's, for a non-admin; another
//! organization's) is `EDGE.TOKEN.NOT_FOUND` (404).

use crate::orgs::AccountId;
use serde::{Deserialize, Serialize};

pub const TOKENS_PATH: &str = "/api/org/tokens";
pub const TOKEN_PATH: &str = "/api/org/tokens/{id}";

/// What every personal access token starts with.
pub const PREFIX: &str = "parcel_pat_";
pub const DEFAULT_DAYS: u32 = 30;
pub const MAX_DAYS: u32 = 365;
/// A token's name: what it is for ("nightly export").
pub const NAME_MAX_CHARS: usize = 100;

/// `POST /api/org/tokens`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRequest {
    pub name: String,
    /// 1 to [`MAX_DAYS`]; [`DEFAULT_DAYS`] when absent.
    #[serde(default)]
    pub expires_in_days: Option<u32>,
}

/// A token as its owner and the organization's admins see it (never the token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessToken {
    /// `tok_…`: names it for revocation; not the token.
    pub id: String,
    pub name: String,
    /// Whose it is: the account, and `Ada <ada@example.com>`.
    pub account: AccountId,
    pub owner: String,
    pub created_at: u64,
    pub expires_at: u64,
    /// Unix seconds of its last sign-in.
    pub last_used_at: Option<u64>,
    /// Its last four characters, to tell tokens apart.
    pub last_four: String,
}

impl AccessToken {
    pub fn is_expired(&self, now: u64) -> bool {
        now >= self.expires_at
    }
}

/// Newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenList {
    pub tokens: Vec<AccessToken>,
}

/// `POST /api/org/tokens`'s answer: the token is shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCreated {
    pub info: AccessToken,
    pub token: String,
}
