//! Who may sign in to a deployment and how sessions are signed: the
//! deployment's own people (`USERS`), the session secret, and the roles'
//! scopes (`ROLES`). An organization's people are its members instead.

use super::roles::RoleTable;
use super::users::Users;
use crate::errors::SettingError;
use crate::settings::Lookup;

pub const USERS: &str = "USERS";
pub const SESSION_SECRET: &str = "SESSION_SECRET";
pub const ROLES: &str = "ROLES";

#[derive(Clone)]
pub struct Settings {
    pub users: Users,
    pub session_secret: Vec<u8>,
    pub roles: RoleTable,
}

impl Settings {
    pub fn from_lookup(get: Lookup) -> Result<Settings, SettingError> {
        let users = Users::parse(&get(USERS).unwrap_or_default())
            .map_err(|problem| SettingError::new(USERS, problem))?;
        let session_secret = get(SESSION_SECRET)
            .map(|s| s.trim().as_bytes().to_vec())
            .filter(|s| s.len() >= 32)
            .ok_or(SettingError::new(
                SESSION_SECRET,
                "it must be set to at least 32 random characters",
            ))?;
        let roles = RoleTable::parse(get(ROLES).as_deref())
            .map_err(|problem| SettingError::new(ROLES, problem))?;
        Ok(Settings {
            users,
            session_secret,
            roles,
        })
    }

    /// An organization's: the same secret and roles, and no deployment
    /// people (its members sign in through the accounts Worker).
    pub fn for_org(&self) -> Settings {
        Settings {
            users: Users::default(),
            ..self.clone()
        }
    }
}
