//! The organization object's name and members: made with its first admin,
//! joined by invitation (`invitations`), roles changed and members removed
//! (their access tokens with them), each change with its audit line.

use api::orgs::{AuditAction, Member};
use api::session::Role;
use serde::Deserialize;
use worker::{Result, SqlStorage};

use super::{Organization, label};
use domain::orgs::{AuditLine, Create, Joining, Membership, Refusal, SignedIn, rules};

#[derive(Deserialize)]
struct MemberRow {
    account: String,
    name: String,
    email: String,
    role: String,
    joined_at: u64,
    last_sign_in: Option<u64>,
}

impl MemberRow {
    fn role(&self) -> Role {
        // Only `Role::as_str` writes the column; anything else reads as the least.
        Role::from_name(&self.role).unwrap_or(Role::Viewer)
    }

    fn member(&self) -> Option<Member> {
        Some(Member {
            account: api::orgs::AccountId::parse(&self.account)?,
            name: self.name.clone(),
            email: self.email.clone(),
            role: self.role(),
            joined_at: self.joined_at,
            last_sign_in: self.last_sign_in,
        })
    }
}

impl Organization {
    pub(super) fn name(sql: &SqlStorage) -> Result<Option<String>> {
        #[derive(Deserialize)]
        struct Name {
            name: String,
        }
        let rows: Vec<Name> = sql.exec("SELECT name FROM org LIMIT 1", None)?.to_array()?;
        Ok(rows.into_iter().next().map(|r| r.name))
    }

    fn members(sql: &SqlStorage) -> Result<Vec<MemberRow>> {
        sql.exec(
            "SELECT account, name, email, role, joined_at, last_sign_in FROM members ORDER BY joined_at, account",
            None,
        )?
        .to_array()
    }

    pub(super) fn member_list(sql: &SqlStorage) -> Result<Vec<Member>> {
        Ok(Self::members(sql)?
            .iter()
            .filter_map(MemberRow::member)
            .collect())
    }

    pub(super) fn join(sql: &SqlStorage, person: &Joining, role: Role, at: u64) -> Result<()> {
        sql.exec(
            "INSERT INTO members (account, name, email, role, joined_at) VALUES (?, ?, ?, ?, ?)",
            vec![
                person.account.as_str().into(),
                person.name.clone().into(),
                person.email.clone().into(),
                role.as_str().into(),
                (at as i64).into(),
            ],
        )?;
        Ok(())
    }

    pub(super) fn membership(sql: &SqlStorage, account: &str) -> Result<Option<Membership>> {
        let Some(org_name) = Self::name(sql)? else {
            return Ok(None);
        };
        let rows: Vec<MemberRow> = sql
            .exec(
                "SELECT account, name, email, role, joined_at, last_sign_in FROM members WHERE account = ?",
                vec![account.into()],
            )?
            .to_array()?;
        Ok(rows.first().map(|m| Membership {
            org_name,
            role: m.role(),
            name: m.name.clone(),
            email: m.email.clone(),
        }))
    }

    /// The person's membership, their sign-in noted.
    pub(super) fn signed_in(sql: &SqlStorage, s: SignedIn) -> Result<Option<Membership>> {
        sql.exec(
            "UPDATE members SET last_sign_in = ? WHERE account = ?",
            vec![(s.at as i64).into(), s.account.as_str().into()],
        )?;
        Self::membership(sql, s.account.as_str())
    }

    pub(super) fn create(sql: &SqlStorage, c: Create) -> Result<std::result::Result<(), Refusal>> {
        if Self::name(sql)?.is_some() {
            return Ok(Err(Refusal::Exists));
        }
        sql.exec(
            "INSERT INTO org (id, name, created_at) VALUES (?, ?, ?)",
            vec![
                c.org.as_str().into(),
                c.name.clone().into(),
                (c.at as i64).into(),
            ],
        )?;
        Self::join(sql, &c.admin, Role::Admin, c.at)?;
        // A new organization starts in sandbox until an admin turns live on.
        Self::put_live(sql, false)?;
        let actor = label(&c.admin.name, &c.admin.email);
        Self::audit(
            sql,
            c.at,
            AuditLine {
                actor: actor.clone(),
                action: AuditAction::OrgCreated,
                detail: format!("{} created by {actor} (admin) from a setup link", c.name),
            },
        )?;
        Ok(Ok(()))
    }

    pub(super) fn change(
        sql: &SqlStorage,
        actor: &str,
        account: &str,
        role: Option<Role>,
        at: u64,
    ) -> Result<std::result::Result<Vec<Member>, Refusal>> {
        let members = Self::members(sql)?;
        let roles = members.iter().map(|m| (m.account.as_str(), m.role()));
        if let Err(refusal) = rules::may_change(roles, account, role) {
            return Ok(Err(refusal));
        }
        let Some(row) = members.iter().find(|m| m.account == account) else {
            return Ok(Err(Refusal::NoSuchMember));
        };
        let who = label(&row.name, &row.email);
        let line = match role {
            Some(role) => {
                sql.exec(
                    "UPDATE members SET role = ? WHERE account = ?",
                    vec![role.as_str().into(), account.into()],
                )?;
                AuditLine {
                    actor: actor.to_string(),
                    action: AuditAction::RoleChanged,
                    detail: format!("{who}: {} → {role}", row.role()),
                }
            }
            None => {
                sql.exec(
                    "DELETE FROM members WHERE account = ?",
                    vec![account.into()],
                )?;
                // Their access tokens go with them (a return by invitation revives none).
                sql.exec("DELETE FROM tokens WHERE account = ?", vec![account.into()])?;
                // And their reset link, likewise.
                sql.exec("DELETE FROM resets WHERE account = ?", vec![account.into()])?;
                AuditLine {
                    actor: actor.to_string(),
                    action: AuditAction::MemberRemoved,
                    detail: format!("{who} ({}) removed", row.role()),
                }
            }
        };
        Self::audit(sql, at, line)?;
        Ok(Ok(Self::member_list(sql)?))
    }
}
