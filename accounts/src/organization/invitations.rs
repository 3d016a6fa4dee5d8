//! The organization object's invitations: only their tokens' hashes, each
//! made, withdrawn or accepted with its audit line; whether one is still
//! usable is `orgs::rules`.

use api::orgs::{AuditAction, Invite, InvitePreview};
use api::session::Role;
use serde::Deserialize;
use worker::{Result, SqlStorage};

use super::{Organization, label};
use domain::orgs::rules::InviteFacts;
use domain::orgs::{
    AcceptInvite, Accepted, AuditLine, CreateInvite, PreviewInvite, Refusal, RevokeInvite,
};

#[derive(Deserialize)]
struct InviteRow {
    id: String,
    role: String,
    created_by: String,
    created_at: u64,
    expires_at: u64,
    accepted_by: Option<String>,
    revoked: u64,
}

impl InviteRow {
    fn facts(&self) -> InviteFacts {
        InviteFacts {
            expires_at: self.expires_at,
            accepted: self.accepted_by.is_some(),
            revoked: self.revoked != 0,
        }
    }

    fn role(&self) -> Role {
        Role::from_name(&self.role).unwrap_or(Role::Viewer)
    }

    fn invite(&self, now: u64) -> Invite {
        Invite {
            id: self.id.clone(),
            role: self.role(),
            created_by: self.created_by.clone(),
            created_at: self.created_at,
            expires_at: self.expires_at,
            state: self.facts().state(now),
            accepted_by: self.accepted_by.clone(),
        }
    }
}

const INVITE_COLUMNS: &str = "id, role, created_by, created_at, expires_at, accepted_by, revoked";

impl Organization {
    fn invite_by_hash(sql: &SqlStorage, token_hash: &str) -> Result<Option<InviteRow>> {
        let rows: Vec<InviteRow> = sql
            .exec(
                &format!("SELECT {INVITE_COLUMNS} FROM invites WHERE token_hash = ?"),
                vec![token_hash.into()],
            )?
            .to_array()?;
        Ok(rows.into_iter().next())
    }

    pub(super) fn invites(sql: &SqlStorage, now: u64) -> Result<Vec<Invite>> {
        let rows: Vec<InviteRow> = sql
            .exec(
                &format!(
                    "SELECT {INVITE_COLUMNS} FROM invites ORDER BY created_at DESC, id LIMIT 200"
                ),
                None,
            )?
            .to_array()?;
        Ok(rows.iter().map(|r| r.invite(now)).collect())
    }

    pub(super) fn create_invite(sql: &SqlStorage, c: CreateInvite) -> Result<Invite> {
        sql.exec(
            "INSERT INTO invites (id, token_hash, role, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            vec![
                c.id.clone().into(),
                c.token_hash.into(),
                c.role.as_str().into(),
                c.actor.label.clone().into(),
                (c.at as i64).into(),
                (c.expires_at as i64).into(),
            ],
        )?;
        Self::audit(
            sql,
            c.at,
            AuditLine {
                actor: c.actor.label.clone(),
                action: AuditAction::InviteCreated,
                detail: format!(
                    "invitation {} as {}, expires {}",
                    c.id,
                    c.role,
                    super::audit::when(c.expires_at)
                ),
            },
        )?;
        Ok(Invite {
            id: c.id,
            role: c.role,
            created_by: c.actor.label,
            created_at: c.at,
            expires_at: c.expires_at,
            state: api::orgs::InviteState::Pending,
            accepted_by: None,
        })
    }

    pub(super) fn revoke_invite(
        sql: &SqlStorage,
        RevokeInvite { actor, id, at }: RevokeInvite,
    ) -> Result<std::result::Result<Vec<Invite>, Refusal>> {
        let rows: Vec<InviteRow> = sql
            .exec(
                &format!("SELECT {INVITE_COLUMNS} FROM invites WHERE id = ?"),
                vec![id.clone().into()],
            )?
            .to_array()?;
        let answer = match rows.first().map(|r| r.facts().usable(at)) {
            None => Err(Refusal::InviteUnknown),
            Some(Err(refusal)) => Err(refusal),
            Some(Ok(())) => {
                sql.exec(
                    "UPDATE invites SET revoked = 1 WHERE id = ?",
                    vec![id.clone().into()],
                )?;
                Self::audit(
                    sql,
                    at,
                    AuditLine {
                        actor: actor.label,
                        action: AuditAction::InviteRevoked,
                        detail: format!("invitation {id} withdrawn"),
                    },
                )?;
                Ok(Self::invites(sql, at)?)
            }
        };
        Ok(answer)
    }

    pub(super) fn preview_invite(
        sql: &SqlStorage,
        p: PreviewInvite,
    ) -> Result<std::result::Result<InvitePreview, Refusal>> {
        let answer = match (Self::invite_by_hash(sql, &p.token_hash)?, Self::name(sql)?) {
            (Some(row), Some(org_name)) => row.facts().usable(p.at).map(|()| InvitePreview {
                org_name,
                role: row.role(),
                invited_by: row.created_by.clone(),
                expires_at: row.expires_at,
            }),
            _ => Err(Refusal::InviteUnknown),
        };
        Ok(answer)
    }

    pub(super) fn accept_invite(
        sql: &SqlStorage,
        a: AcceptInvite,
    ) -> Result<std::result::Result<Accepted, Refusal>> {
        let answer = match (Self::invite_by_hash(sql, &a.token_hash)?, Self::name(sql)?) {
            (Some(row), Some(org_name)) => match row.facts().usable(a.at) {
                Err(refusal) => Err(refusal),
                Ok(()) => {
                    let who = label(&a.person.name, &a.person.email);
                    sql.exec(
                        "UPDATE invites SET accepted_by = ? WHERE id = ?",
                        vec![who.clone().into(), row.id.clone().into()],
                    )?;
                    // Already a member: the invitation is used, the role kept.
                    let role = match Self::membership(sql, a.person.account.as_str())? {
                        Some(m) => m.role,
                        None => {
                            Self::join(sql, &a.person, row.role(), a.at)?;
                            row.role()
                        }
                    };
                    Self::audit(
                        sql,
                        a.at,
                        AuditLine {
                            actor: who.clone(),
                            action: AuditAction::MemberJoined,
                            detail: format!(
                                "{who} joined as {role} (invitation {} from {})",
                                row.id, row.created_by
                            ),
                        },
                    )?;
                    Ok(Accepted { org_name, role })
                }
            },
            _ => Err(Refusal::InviteUnknown),
        };
        Ok(answer)
    }
}
