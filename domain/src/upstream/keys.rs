//! The v1 keys a request works with: each mode's current key and, during a
//! rotation, its next one, with the scopes they were created with.

use api::session::KeySlot;
use api::{ApiKey, KeyEnv, Scope};
use sha2::{Digest, Sha256};

use crate::errors::SettingError;
use crate::settings::Lookup;

pub const LIVE_KEY: &str = "SVC_LIVE_KEY";
pub const SANDBOX_KEY: &str = "SVC_SANDBOX_KEY";
pub const LIVE_KEY_NEXT: &str = "SVC_LIVE_KEY_NEXT";
pub const SANDBOX_KEY_NEXT: &str = "SVC_SANDBOX_KEY_NEXT";
pub const LIVE_KEY_SCOPES: &str = "SVC_LIVE_KEY_SCOPES";
pub const SANDBOX_KEY_SCOPES: &str = "SVC_SANDBOX_KEY_SCOPES";

/// One mode's keys: the current one and, during a rotation, the next one.
pub struct ModeKeys {
    pub mode: KeyEnv,
    pub current: ApiKey,
    pub next: Option<ApiKey>,
    /// The scopes the key was created with, as configured (all by default).
    pub scopes: Vec<Scope>,
}

impl ModeKeys {
    /// The key forwarded calls use: `next` once an admin activated it
    /// (the activation stores the key's fingerprint), else `current`.
    /// Matching by fingerprint keeps working after the operator moves the
    /// new key into the `current` secret and deletes `next`.
    pub fn active(&self, activated: Option<&str>) -> (&ApiKey, KeySlot) {
        match &self.next {
            Some(next) if activated == Some(fingerprint(next).as_str()) => (next, KeySlot::Next),
            _ => (&self.current, KeySlot::Current),
        }
    }

    pub fn slot(&self, slot: KeySlot) -> Option<&ApiKey> {
        match slot {
            KeySlot::Current => Some(&self.current),
            KeySlot::Next => self.next.as_ref(),
        }
    }
}

/// A short, one-way name for a key: what the Worker stores to remember
/// which key is active, never the key.
pub fn fingerprint(key: &ApiKey) -> String {
    hex::encode(&Sha256::digest(key.expose().as_bytes())[..16])
}

/// The keys of an organization: one mode or both. The deployment's own
/// organization always has one; another organization has none until its
/// admin enters them.
pub enum Keys {
    None,
    Live(ModeKeys),
    Sandbox(ModeKeys),
    Both { live: ModeKeys, sandbox: ModeKeys },
}

impl Keys {
    pub fn of(live: Option<ModeKeys>, sandbox: Option<ModeKeys>) -> Keys {
        match (live, sandbox) {
            (Some(live), Some(sandbox)) => Keys::Both { live, sandbox },
            (Some(live), None) => Keys::Live(live),
            (None, Some(sandbox)) => Keys::Sandbox(sandbox),
            (None, None) => Keys::None,
        }
    }

    /// The deployment's keys (`SVC_*`), each checked to be of its mode.
    pub fn from_lookup(get: Lookup) -> Result<Keys, SettingError> {
        Ok(Keys::of(
            read_mode(get, KeyEnv::Live)?,
            read_mode(get, KeyEnv::Sandbox)?,
        ))
    }

    pub fn mode(&self, mode: KeyEnv) -> Option<&ModeKeys> {
        match (self, mode) {
            (Keys::Live(live) | Keys::Both { live, .. }, KeyEnv::Live) => Some(live),
            (Keys::Sandbox(sandbox) | Keys::Both { sandbox, .. }, KeyEnv::Sandbox) => Some(sandbox),
            _ => None,
        }
    }

    /// Modes with a key.
    pub fn modes(&self) -> Vec<KeyEnv> {
        [KeyEnv::Live, KeyEnv::Sandbox]
            .into_iter()
            .filter(|m| self.mode(*m).is_some())
            .collect()
    }

    /// The mode a new session starts in: live when a live key is set;
    /// sandbox without keys (nothing real can be spent by mistake).
    pub fn default_mode(&self) -> KeyEnv {
        match self {
            Keys::Live(keys) | Keys::Sandbox(keys) | Keys::Both { live: keys, .. } => keys.mode,
            Keys::None => KeyEnv::Sandbox,
        }
    }

    /// The mode a session works in: its own while there is a key for it,
    /// else the default (a session from before a key was removed).
    pub fn session_mode(&self, mode: KeyEnv) -> KeyEnv {
        self.mode(mode)
            .map_or_else(|| self.default_mode(), |keys| keys.mode)
    }
}

/// The settings of a mode's key, its next key and their scopes.
pub fn settings_of(mode: KeyEnv) -> (&'static str, &'static str, &'static str) {
    match mode {
        KeyEnv::Live => (LIVE_KEY, LIVE_KEY_NEXT, LIVE_KEY_SCOPES),
        KeyEnv::Sandbox => (SANDBOX_KEY, SANDBOX_KEY_NEXT, SANDBOX_KEY_SCOPES),
    }
}

fn read_mode(get: Lookup, mode: KeyEnv) -> Result<Option<ModeKeys>, SettingError> {
    let (current, next, scopes) = settings_of(mode);
    let next_key = read_key(get, next, mode)?;
    let Some(current_key) = read_key(get, current, mode)? else {
        return match next_key {
            Some(_) => Err(SettingError::new(
                next,
                format!("it is set without {current}"),
            )),
            None => Ok(None),
        };
    };
    let scopes = match get(scopes) {
        None => Scope::ALL.to_vec(),
        Some(list) => parse_scopes(&list).map_err(|problem| SettingError::new(scopes, problem))?,
    };
    Ok(Some(ModeKeys {
        mode,
        current: current_key,
        next: next_key,
        scopes,
    }))
}

/// A comma-separated list of v1 scopes (`rates:read,labels:write`).
pub fn parse_scopes(list: &str) -> Result<Vec<Scope>, String> {
    let mut scopes = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let scope: Scope = name.parse()?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Ok(scopes)
}

fn read_key(
    get: Lookup,
    setting: &'static str,
    env: KeyEnv,
) -> Result<Option<ApiKey>, SettingError> {
    let Some(raw) = get(setting) else {
        return Ok(None);
    };
    let key = ApiKey::parse(raw.trim()).map_err(|_| {
        SettingError::new(
            setting,
            "it is not a v1 API key (prefix + 32 hex characters)",
        )
    })?;
    if key.env() != env {
        return Err(SettingError::new(
            setting,
            format!("it must be a {} key", env.prefix()),
        ));
    }
    Ok(Some(key))
}
