//! How a session's person signed in, and so which of their organizations
//! the session reaches. As themselves (a password, a passkey, an accepted
//! invitation, a new organization), a session reaches each organization
//! they belong to: it may switch. With a personal access token, it reaches
//! the token's organization alone: the token is listed and revoked there
//! only, so a script's token leaked from one shop must open no other. Any
//! other organization is answered as one the person is not in.

use api::orgs::OrgId;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Person,
    Token,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Person => "person",
            Via::Token => "token",
        }
    }

    pub fn from_name(name: &str) -> Option<Via> {
        match name {
            "person" => Some(Via::Person),
            "token" => Some(Via::Token),
            _ => None,
        }
    }

    /// Whether a session of `session_org` signed in this way reaches `org`
    /// (the person's membership there is asked apart).
    pub fn reaches(self, session_org: &OrgId, org: &OrgId) -> bool {
        self == Via::Person || session_org == org
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_session_reaches_its_organization_alone() {
        let a = OrgId::parse("org_a").unwrap();
        let b = OrgId::parse("org_b").unwrap();
        assert!(Via::Token.reaches(&a, &a));
        assert!(!Via::Token.reaches(&a, &b));
        assert!(Via::Person.reaches(&a, &b));
        for via in [Via::Person, Via::Token] {
            assert_eq!(Via::from_name(via.as_str()), Some(via));
        }
        assert_eq!(Via::from_name("admin"), None);
    }
}
