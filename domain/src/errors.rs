//! Errors the edge makes itself. They use the v1 envelope and the
//! `RESOURCE.CATEGORY.SPECIFIC` code form so the app handles them like any
//! upstream error; internals (and the key) never reach the body.

use api::inbox::RejectReason;
use api::session::Role;
use api::validation::{BodyError, MAX_BODY_BYTES};
use api::{ApiError, ErrorCode, ErrorEnvelope, Scope};

/// Why a call needs the caller to sign in (again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInReason {
    NoSession,
    /// Expired, signed out, forged, or the user or role changed since.
    SessionEnded,
}

/// Which per-minute budget a local 429 protects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Budget {
    /// The upstream's own limit for this key and endpoint, as last reported.
    Upstream { endpoint: String },
    /// The share of that limit the storefront widget may use.
    WidgetShare { endpoint: String },
    /// One shopper's (client IP's) widget calls per minute.
    WidgetClient { per_minute: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeError {
    /// The path is not one of the v1 endpoints we forward.
    RouteNotFound {
        path: String,
    },
    /// The path is a v1 endpoint but not with this method.
    MethodNotAllowed {
        method: String,
        path: String,
        allowed: Vec<&'static str>,
    },
    /// A setting is missing or malformed. Names the setting, never its value.
    Config {
        setting: &'static str,
        problem: String,
    },
    /// Upstream could not be reached. `outcome_unknown` is true when the
    /// request may have had an effect (a purchase that may have gone through).
    UpstreamUnreachable {
        outcome_unknown: bool,
    },
    /// Upstream did not answer in time; same meaning of `outcome_unknown`.
    UpstreamTimeout {
        outcome_unknown: bool,
        seconds: u64,
    },
    /// A purchase came without its `Idempotency-Key`.
    IdempotencyKeyMissing,
    IdempotencyKeyInvalid,
    /// The same purchase (same key) is still running.
    IdempotencyInProgress,
    /// The key was used for a different request.
    IdempotencyKeyReused,
    /// The purchase records could not be reached, so a purchase is not risked.
    PurchaseRecordsUnavailable,
    /// The purchase record of this `Idempotency-Key` exists but cannot be
    /// read: an earlier attempt may have bought, so nothing is sent.
    PurchaseRecordUnreadable,
    /// Something the Worker needs from its runtime failed (e.g. the random
    /// source); nothing was sent upstream.
    Internal {
        what: &'static str,
    },
    /// The JSON body does not fit the contract type (caught before any upstream call).
    InvalidBody(BodyError),
    BodyTooLarge,
    SignInRequired(SignInReason),
    InvalidToken,
    /// A cross-site write, or a widget call from an origin not configured.
    OriginRefused {
        origin: String,
    },
    /// An admin-only action (mode switch, key rotation).
    AdminOnly {
        action: &'static str,
    },
    /// The principal lacks the endpoint's scope. `key_lacks` when the role
    /// would allow it but the API key itself does not have it.
    InsufficientScope {
        required: Scope,
        scopes: Vec<Scope>,
        role: Option<Role>,
        key_lacks: bool,
    },
    /// A per-minute budget is spent; the Worker answers without calling upstream.
    RateLimited {
        budget: Budget,
        retry_after: u64,
    },
    /// The mode has no key in this deployment.
    ModeUnavailable {
        mode: &'static str,
    },
    /// The control store (sessions, active keys) did not answer.
    ControlUnavailable,
    /// Activating a next key that is not configured.
    NoNextKey {
        setting: &'static str,
    },
    /// A webhook delivery refused (recorded in the inbox as rejected).
    WebhookRefused(RejectReason),
    /// No `WEBHOOK_SECRET` is set, so no delivery can be verified.
    WebhookSecretMissing,
    /// The webhook inbox did not answer; an event is not acknowledged, so
    /// the service retries it.
    InboxUnavailable,
    /// The live feed is a WebSocket; a plain GET gets this.
    UpgradeRequired,
    /// The job object did not answer.
    JobUnavailable,
    JobNotFound {
        id: String,
    },
    /// The action does not apply to the job as it is (why, for the merchant).
    JobActionRefused {
        reason: String,
    },
    /// A job request's rows refused before anything is stored.
    JobRows {
        code: ErrorCode,
        message: String,
        field: String,
    },
    /// No bought label in that part of the job.
    JobLabelsNone {
        part: u32,
    },
    /// A label's PDF could not be fetched or read for a merged file.
    JobLabelPdf {
        reference: String,
    },
    /// The PDF Worker did not merge the labels (unreachable, or it failed).
    JobPrintUnavailable,
    /// A bought label's PDF could not be fetched (its upstream status, if
    /// one answered; `None` for no answer or an unusable `label_url`).
    LabelPdfUnavailable {
        status: Option<u16>,
    },
    // The accounts Worker's own refusals (`orgs::accounts`): the main
    // Worker passes them on as made, so its build leaves them out.
    /// The same answer for an unknown email and a wrong password.
    SignInFailed,
    /// Too many failed sign-ins for this email or from this address.
    SignInThrottled {
        retry_after: u64,
    },
    PasswordWeak(String),
    InviteUnknown,
    InviteExpired,
    InviteUsed,
    InviteRevoked,
    MemberNotFound,
    LastAdmin,
    /// A setup link that is forged or expired, or (`used`) already made its organization.
    OrgSetupInvalid {
        used: bool,
    },
    /// No setup link, and this deployment's sign-up is not open.
    SignupClosed,
    /// This client address made the most organizations an open sign-up allows for now.
    SignupThrottled {
        retry_after: u64,
    },
    /// The account directory did not answer.
    DirectoryUnavailable,
    /// What was entered is not a v1 key (the problem, in words).
    KeyMalformed(String),
    /// The service refused the key (`code`, its message): nothing stored.
    KeyRefused {
        redacted: String,
        code: api::ErrorCode,
        message: String,
    },
    /// The key could not be checked (why): nothing stored.
    KeyCheckUnavailable(String),
    /// Promote or discard with no rotation under way.
    KeyNoNext,
    /// No such access token that the caller may see.
    TokenNotFound,
    /// Every failed passkey sign-in, whatever failed (logged apart).
    PasskeyRefused,
    /// None of the person's passkeys has that id.
    PasskeyNotFound,
    /// The person has `api::passkeys::MAX_PASSKEYS` already.
    PasskeyLimit,
    /// A viewer's write (saved addresses and presets: admins and operators).
    ViewerReadOnly {
        action: &'static str,
    },
    /// No saved address or preset (`what`) with that id in the caller's
    /// organization (another organization's reads the same).
    SavedNotFound {
        what: &'static str,
    },
    /// The organization keeps `api::presets::MAX_SAVED` of these already.
    SavedLimit {
        what: &'static str,
    },
    /// Not a member of that organization, or no such organization: the
    /// same answer, so it never tells whether another organization exists.
    OrgNotFound,
    /// The organization's object did not answer.
    OrgUnavailable,
    /// The deployment's own organization: its people and keys are Worker
    /// secrets, not managed in the app.
    ManagedBySettings,
}

impl EdgeError {
    /// The status is the code's, from the one table in `api::error`.
    pub fn status(&self) -> u16 {
        self.code().http_status()
    }

    /// Seconds after which a retry makes sense, sent as `Retry-After`.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            EdgeError::IdempotencyInProgress => Some(1),
            EdgeError::RateLimited { retry_after, .. } => Some(*retry_after),
            EdgeError::SignInThrottled { retry_after } => Some(*retry_after),
            EdgeError::SignupThrottled { retry_after } => Some(*retry_after),
            _ => None,
        }
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            EdgeError::RouteNotFound { .. } => ErrorCode::EdgeRouteNotFound,
            EdgeError::MethodNotAllowed { .. } => ErrorCode::EdgeRouteMethodNotAllowed,
            EdgeError::Config { .. } => ErrorCode::EdgeConfigInvalid,
            EdgeError::UpstreamUnreachable { .. } => ErrorCode::EdgeUpstreamUnreachable,
            EdgeError::UpstreamTimeout { .. } => ErrorCode::EdgeUpstreamTimeout,
            EdgeError::IdempotencyKeyMissing => ErrorCode::ValidationFieldRequired,
            EdgeError::IdempotencyKeyInvalid => ErrorCode::ValidationFieldInvalid,
            EdgeError::IdempotencyInProgress => ErrorCode::EdgeIdempotencyInProgress,
            EdgeError::IdempotencyKeyReused => ErrorCode::EdgeIdempotencyKeyReused,
            EdgeError::PurchaseRecordsUnavailable => ErrorCode::EdgeIdempotencyUnavailable,
            EdgeError::PurchaseRecordUnreadable => ErrorCode::EdgeIdempotencyRecordUnreadable,
            EdgeError::Internal { .. } => ErrorCode::EdgeInternal,
            EdgeError::InvalidBody(e) => e.code(),
            EdgeError::BodyTooLarge => ErrorCode::ValidationBodyTooLarge,
            EdgeError::SignInRequired(_) => ErrorCode::EdgeSessionRequired,
            EdgeError::InvalidToken => ErrorCode::EdgeSessionInvalidToken,
            EdgeError::OriginRefused { .. } => ErrorCode::EdgeOriginRefused,
            EdgeError::AdminOnly { .. } => ErrorCode::EdgeRoleForbidden,
            EdgeError::InsufficientScope { .. } => ErrorCode::AuthKeyInsufficientScope,
            EdgeError::RateLimited { .. } => ErrorCode::AuthRateLimitExceeded,
            EdgeError::ModeUnavailable { .. } => ErrorCode::EdgeModeUnavailable,
            EdgeError::NoNextKey { .. } => ErrorCode::EdgeKeyNoNextKey,
            EdgeError::ControlUnavailable => ErrorCode::EdgeControlUnavailable,
            EdgeError::WebhookRefused(reason) => match reason {
                RejectReason::MissingSignature => ErrorCode::WebhookSignatureMissing,
                RejectReason::MalformedSignature => ErrorCode::WebhookSignatureMalformed,
                RejectReason::WrongSignature => ErrorCode::WebhookSignatureInvalid,
                RejectReason::UnreadableEvent => ErrorCode::WebhookEventUnreadable,
                RejectReason::TooLarge => ErrorCode::WebhookBodyTooLarge,
            },
            EdgeError::WebhookSecretMissing => ErrorCode::WebhookSecretMissing,
            EdgeError::InboxUnavailable => ErrorCode::EdgeInboxUnavailable,
            EdgeError::UpgradeRequired => ErrorCode::EdgeWebsocketRequired,
            EdgeError::LabelPdfUnavailable { .. } => ErrorCode::EdgeLabelPdfUnavailable,
            EdgeError::JobUnavailable => ErrorCode::EdgeJobUnavailable,
            EdgeError::JobNotFound { .. } => ErrorCode::EdgeJobNotFound,
            EdgeError::JobActionRefused { .. } => ErrorCode::EdgeJobActionRefused,
            EdgeError::JobRows { code, .. } => code.clone(),
            EdgeError::JobLabelsNone { .. } => ErrorCode::EdgeJobNoLabels,
            EdgeError::JobLabelPdf { .. } => ErrorCode::EdgeJobLabelPdfUnavailable,
            EdgeError::JobPrintUnavailable => ErrorCode::EdgeJobPrintUnavailable,
            EdgeError::SignInFailed => ErrorCode::EdgeSignInFailed,
            EdgeError::SignInThrottled { .. } => ErrorCode::EdgeSignInThrottled,
            EdgeError::PasswordWeak(_) => ErrorCode::EdgePasswordWeak,
            EdgeError::InviteUnknown => ErrorCode::EdgeInviteUnknown,
            EdgeError::InviteExpired => ErrorCode::EdgeInviteExpired,
            EdgeError::InviteUsed => ErrorCode::EdgeInviteUsed,
            EdgeError::InviteRevoked => ErrorCode::EdgeInviteRevoked,
            EdgeError::MemberNotFound => ErrorCode::EdgeMemberNotFound,
            EdgeError::LastAdmin => ErrorCode::EdgeMemberLastAdmin,
            EdgeError::OrgNotFound => ErrorCode::EdgeOrgNotFound,
            EdgeError::OrgSetupInvalid { .. } => ErrorCode::EdgeOrgSetupInvalid,
            EdgeError::SignupClosed => ErrorCode::EdgeOrgSignupClosed,
            EdgeError::SignupThrottled { .. } => ErrorCode::EdgeSignInThrottled,
            EdgeError::OrgUnavailable => ErrorCode::EdgeOrgUnavailable,
            EdgeError::ManagedBySettings => ErrorCode::EdgeOrgManagedBySettings,
            EdgeError::DirectoryUnavailable => ErrorCode::EdgeDirectoryUnavailable,
            EdgeError::KeyMalformed(_) => ErrorCode::EdgeKeyMalformed,
            EdgeError::KeyRefused { .. } => ErrorCode::EdgeKeyRefused,
            EdgeError::KeyCheckUnavailable(_) => ErrorCode::EdgeKeyCheckUnavailable,
            EdgeError::KeyNoNext => ErrorCode::EdgeKeyNoNext,
            EdgeError::TokenNotFound => ErrorCode::EdgeTokenNotFound,
            EdgeError::PasskeyRefused => ErrorCode::EdgePasskeyRefused,
            EdgeError::PasskeyNotFound => ErrorCode::EdgePasskeyNotFound,
            EdgeError::PasskeyLimit => ErrorCode::EdgePasskeyLimit,
            EdgeError::ViewerReadOnly { .. } => ErrorCode::EdgeRoleForbidden,
            EdgeError::SavedNotFound { .. } => ErrorCode::EdgeSavedNotFound,
            EdgeError::SavedLimit { .. } => ErrorCode::EdgeSavedLimitReached,
        }
    }

    /// Whether an earlier attempt of this purchase may have spent money
    /// (`api::ApiError::outcome_unknown`); `None` where it says nothing.
    pub fn outcome_unknown(&self) -> Option<bool> {
        match self {
            EdgeError::UpstreamUnreachable { outcome_unknown }
            | EdgeError::UpstreamTimeout {
                outcome_unknown, ..
            } => Some(*outcome_unknown),
            // The first attempt is running, or its record is out of reach:
            // the retry must carry the same key.
            EdgeError::IdempotencyInProgress
            | EdgeError::PurchaseRecordsUnavailable
            | EdgeError::PurchaseRecordUnreadable => Some(true),
            _ => None,
        }
    }

    /// The v1 envelope for this error.
    pub fn to_api_error(&self, request_id: &str) -> ApiError {
        let (message, suggestion) = match self {
            EdgeError::RouteNotFound { path } => (
                format!("No v1 endpoint at {path}."),
                "Use one of the /api/v1 endpoints listed in the v1 interface.".to_string(),
            ),
            EdgeError::MethodNotAllowed { method, path, allowed } => (
                format!("{method} is not allowed on {path}."),
                format!("Use {}.", allowed.join(" or ")),
            ),
            EdgeError::Config { setting, problem } => (
                format!("The Worker setting {setting} is invalid: {problem}."),
                format!("Ask an administrator to fix {setting} (see README, Configuration) and redeploy."),
            ),
            EdgeError::UpstreamUnreachable { outcome_unknown: true } => (
                "The shipping service could not be reached; the outcome of this request is unknown."
                    .to_string(),
                "Check your labels and wallet before trying again, so nothing is bought twice.".to_string(),
            ),
            EdgeError::UpstreamUnreachable { outcome_unknown: false } => (
                "The shipping service could not be reached; nothing was changed.".to_string(),
                "Try again in a moment.".to_string(),
            ),
            EdgeError::UpstreamTimeout { outcome_unknown: true, seconds } => (
                format!("The shipping service did not answer within {seconds} s; the outcome of this request is unknown."),
                "Check your labels and wallet before trying again, so nothing is bought twice.".to_string(),
            ),
            EdgeError::UpstreamTimeout { outcome_unknown: false, seconds } => (
                format!("The shipping service did not answer within {seconds} s; nothing was changed."),
                "Try again in a moment.".to_string(),
            ),
            EdgeError::IdempotencyKeyMissing => (
                "A purchase needs an Idempotency-Key header.".to_string(),
                "Send a new random Idempotency-Key (a UUID) for each purchase, and the same one when retrying it.".to_string(),
            ),
            EdgeError::IdempotencyKeyInvalid => (
                "The Idempotency-Key must be 1 to 255 visible ASCII characters.".to_string(),
                "Use a UUID as the Idempotency-Key.".to_string(),
            ),
            EdgeError::IdempotencyInProgress => (
                "This purchase is still being processed; it was not sent twice.".to_string(),
                "Retry with the same Idempotency-Key in a second to get its result.".to_string(),
            ),
            EdgeError::IdempotencyKeyReused => (
                "This Idempotency-Key was already used for a different request.".to_string(),
                "Use a new Idempotency-Key for a new purchase.".to_string(),
            ),
            EdgeError::InvalidBody(e) => (e.message(), e.suggestion()),
            EdgeError::BodyTooLarge => (
                format!("The request body is larger than {MAX_BODY_BYTES} bytes."),
                "Send at most 5,000 batch items per request.".to_string(),
            ),
            EdgeError::PurchaseRecordsUnavailable => (
                "The purchase was not sent: the Worker could not record it safely.".to_string(),
                "Try again in a moment with the same Idempotency-Key.".to_string(),
            ),
            EdgeError::PurchaseRecordUnreadable => (
                "The purchase was not sent: the record of earlier attempts with this Idempotency-Key could not be read, so one of them may already have bought it.".to_string(),
                "Try again in a moment with the same Idempotency-Key. If this keeps happening, check your labels and wallet before buying with a new key, so nothing is bought twice.".to_string(),
            ),
            EdgeError::Internal { what } => (
                format!("The Worker could not {what}; nothing was sent to the shipping service."),
                "Try again in a moment. If it keeps happening, contact support with this request id.".to_string(),
            ),
            EdgeError::SignInRequired(SignInReason::NoSession) => (
                "You are not signed in.".to_string(),
                "Sign in with your email and password (or an access token).".to_string(),
            ),
            EdgeError::SignInRequired(SignInReason::SessionEnded) => (
                "Your session has ended (expired, signed out, or your access changed).".to_string(),
                "Sign in again.".to_string(),
            ),
            EdgeError::InvalidToken => (
                "That access token is not valid.".to_string(),
                "Paste the whole token; one that expired or was revoked needs a new one (the Access tokens page, or your administrator).".to_string(),
            ),
            EdgeError::OriginRefused { origin } => (
                format!("Requests from {origin} are not allowed here."),
                "Call the dashboard API from the dashboard itself; storefront widgets must be served from an origin listed in WIDGET_ORIGINS.".to_string(),
            ),
            EdgeError::AdminOnly { action } => (
                format!("Only an admin can {action}."),
                "Ask an admin of this account.".to_string(),
            ),
            EdgeError::InsufficientScope { required, key_lacks: true, .. } => (
                format!("The account's API key does not have the {required} scope."),
                format!("An admin can create a key with {required} in the service's dashboard and rotate to it (API status page)."),
            ),
            EdgeError::InsufficientScope { required, role, key_lacks: false, .. } => (
                match role {
                    Some(role) => format!("Your role ({role}) does not allow {required}."),
                    None => format!("The storefront widget may not use {required}."),
                },
                "Ask an admin for a role that allows it.".to_string(),
            ),
            EdgeError::RateLimited { budget, retry_after } => match budget {
                Budget::Upstream { endpoint } => (
                    format!("The per-minute limit for {endpoint} is used up (as the service last reported it); it was not called."),
                    format!("Retry in {retry_after} s."),
                ),
                Budget::WidgetShare { endpoint } => (
                    format!("The storefront's share of the per-minute limit for {endpoint} is used up; the rest is kept for the merchant's dashboard."),
                    format!("Retry in {retry_after} s."),
                ),
                Budget::WidgetClient { per_minute } => (
                    format!("Too many requests from this shopper: at most {per_minute} per minute."),
                    format!("Retry in {retry_after} s."),
                ),
            },
            EdgeError::ModeUnavailable { mode } => (
                format!("This deployment has no {mode} key."),
                "An admin can add it as a Worker secret (README, Configuration).".to_string(),
            ),
            EdgeError::ControlUnavailable => (
                "The Worker could not reach its session store; nothing was sent.".to_string(),
                "Try again in a moment.".to_string(),
            ),
            EdgeError::NoNextKey { setting } => (
                format!("No new key is set in {setting}."),
                format!("Set the new key with `wrangler secret put {setting}`, verify it, then activate it."),
            ),
            EdgeError::WebhookRefused(reason) => (
                format!("Webhook refused: {}.", reason.describe()),
                match reason {
                    RejectReason::TooLarge => format!("Send at most {} bytes.", api::inbox::MAX_BODY_BYTES),
                    RejectReason::UnreadableEvent => "Send a label.created event with its label as data.".to_string(),
                    _ => "Sign the raw body with the webhook secret: svc-signature: sha256=<hex HMAC-SHA256>. If the secret was changed, set it as WEBHOOK_SECRET (or WEBHOOK_SECRET_NEXT during a rotation).".to_string(),
                },
            ),
            EdgeError::WebhookSecretMissing => (
                "This Worker has no webhook secret, so it cannot verify deliveries.".to_string(),
                "Set the service's webhook secret with `wrangler secret put WEBHOOK_SECRET`; the service retries the delivery later.".to_string(),
            ),
            EdgeError::InboxUnavailable => (
                "The webhook inbox could not be reached; nothing was stored.".to_string(),
                "Try again in a moment (the service retries deliveries by itself).".to_string(),
            ),
            EdgeError::UpgradeRequired => (
                "This is a live feed: it needs a WebSocket connection.".to_string(),
                "Open it with `new WebSocket(...)`; for a one-off read use GET /api/webhooks/inbox.".to_string(),
            ),
            EdgeError::JobUnavailable => (
                "The batch job could not be reached; nothing was sent for it.".to_string(),
                "Try again in a moment: the job keeps its state.".to_string(),
            ),
            EdgeError::JobNotFound { id } => (
                format!("There is no batch job {id} in this mode."),
                "Open the jobs list; jobs of the other mode (live or sandbox) show there when you switch.".to_string(),
            ),
            EdgeError::JobActionRefused { reason } => (
                reason.clone(),
                "Reload the job to see where it stands.".to_string(),
            ),
            EdgeError::JobRows { message, field, .. } => (
                message.clone(),
                format!("Correct {field} and upload the rows again; nothing was bought."),
            ),
            EdgeError::JobLabelsNone { part } => (
                format!("Part {part} of this job has no bought label yet."),
                "Download the parts listed on the job; each holds 100 labels in row order.".to_string(),
            ),
            EdgeError::JobLabelPdf { reference } => (
                format!("The label PDF of row {reference} could not be fetched or read."),
                "The labels are bought and unchanged: try the download again in a minute.".to_string(),
            ),
            EdgeError::JobPrintUnavailable => (
                "The labels could not be merged into one PDF just now.".to_string(),
                "The labels are bought and unchanged: try the download again in a minute.".to_string(),
            ),
            EdgeError::LabelPdfUnavailable { status } => (
                match status {
                    Some(status) => format!("The service did not hand over the label PDF (HTTP {status})."),
                    None => "The label PDF could not be fetched from the service.".to_string(),
                },
                "The label itself is bought and unchanged: try the download again in a minute. If it keeps failing, contact support with this request id.".to_string(),
            ),
            EdgeError::SignInFailed => (
                "That email and password do not match an account.".to_string(),
                "Check both and try again; after 5 failed tries the account waits 15 minutes. An admin can invite you again if you have no account yet.".to_string(),
            ),
            EdgeError::SignInThrottled { retry_after } => (
                "Too many failed sign-ins: signing in is paused for this account or this network.".to_string(),
                format!("Try again in {} minutes.", retry_after.div_ceil(60)),
            ),
            EdgeError::PasswordWeak(problem) => (
                "That password is too weak.".to_string(),
                problem.clone(),
            ),
            EdgeError::InviteUnknown => (
                "This invitation link is not known.".to_string(),
                "Copy the whole link from the message you were sent, or ask an admin for a new invitation.".to_string(),
            ),
            EdgeError::InviteExpired => (
                "This invitation has expired.".to_string(),
                "Ask an admin of the organization for a new invitation.".to_string(),
            ),
            EdgeError::InviteUsed => (
                "This invitation was already used.".to_string(),
                "Sign in with the account that accepted it, or ask an admin for a new invitation.".to_string(),
            ),
            EdgeError::InviteRevoked => (
                "This invitation was withdrawn by an admin.".to_string(),
                "Ask an admin of the organization for a new invitation.".to_string(),
            ),
            EdgeError::MemberNotFound => (
                "That person is not a member of this organization.".to_string(),
                "Reload the team page: they may have been removed already.".to_string(),
            ),
            EdgeError::LastAdmin => (
                "An organization needs at least one admin: this is its last one.".to_string(),
                "Make another member an admin first.".to_string(),
            ),
            EdgeError::OrgNotFound => (
                "You are not a member of that organization.".to_string(),
                "Choose one of your organizations from the menu, or ask its admin for an invitation.".to_string(),
            ),
            EdgeError::OrgSetupInvalid { used: true } => (
                "This setup link was already used: its organization exists.".to_string(),
                "Sign in to that organization, or run scripts/new-org for a new link.".to_string(),
            ),
            EdgeError::OrgSetupInvalid { used: false } => (
                "This setup link is not valid (expired, incomplete or for another deployment).".to_string(),
                "Run scripts/new-org again for a new link (they last 24 hours).".to_string(),
            ),
            EdgeError::SignupClosed => (
                "This deployment makes organizations only from setup links.".to_string(),
                "Ask whoever runs Parcel for a link (they make one with scripts/new-org).".to_string(),
            ),
            EdgeError::SignupThrottled { retry_after } => (
                "Too many new organizations from this network for now.".to_string(),
                format!("Try again in {} minutes.", retry_after.div_ceil(60)),
            ),
            EdgeError::OrgUnavailable => (
                "The organization's records could not be reached; nothing was changed.".to_string(),
                "Try again in a moment.".to_string(),
            ),
            EdgeError::ManagedBySettings => (
                "This deployment's own organization is configured by Worker secrets (USERS and the SVC_* keys), not in the app.".to_string(),
                "Change its people with scripts/new-user and `wrangler secret put USERS`, or move it into an organization (README, Organizations).".to_string(),
            ),
            EdgeError::DirectoryUnavailable => (
                "The account directory could not be reached; nothing was changed.".to_string(),
                "Try again in a moment.".to_string(),
            ),
            EdgeError::KeyMalformed(problem) => (
                format!("That is not a v1 API key: {problem}."),
                "Paste the whole key from the service's dashboard: svc_live_ or svc_test_ and 32 hexadecimal characters.".to_string(),
            ),
            EdgeError::KeyRefused {
                redacted,
                code,
                message,
            } => (
                format!("The service refused {redacted} ({code}: {message}); it was not saved."),
                "Check that the key is not revoked or expired, or create a new one in the service's dashboard.".to_string(),
            ),
            EdgeError::KeyCheckUnavailable(why) => (
                format!("The key could not be checked ({why}); it was not saved."),
                "Try again in a minute.".to_string(),
            ),
            EdgeError::KeyNoNext => (
                "There is no next key in that mode: no rotation is under way.".to_string(),
                "Add a next key first, verify and activate it, then make it the only one.".to_string(),
            ),
            EdgeError::TokenNotFound => (
                "There is no such access token among those you can see.".to_string(),
                "Reload the access tokens page: it may have been revoked already.".to_string(),
            ),
            EdgeError::PasskeyRefused => (
                "That passkey did not sign you in.".to_string(),
                "Try again, or sign in with your email and password. A passkey removed from your account, or saved for another site, cannot sign in: add it again on the Passkeys page.".to_string(),
            ),
            EdgeError::PasskeyNotFound => (
                "You have no passkey with that id.".to_string(),
                "Reload the Passkeys page: it may have been removed already.".to_string(),
            ),
            EdgeError::PasskeyLimit => (
                format!("You have {} passkeys, the most one person may have.", api::passkeys::MAX_PASSKEYS),
                "Remove one you no longer use on the Passkeys page, then add the new one.".to_string(),
            ),
            EdgeError::ViewerReadOnly { action } => (
                format!("Viewers cannot {action}."),
                "Ask an admin for the operator role.".to_string(),
            ),
            EdgeError::SavedNotFound { what } => (
                format!("This organization has no saved {what} with that id."),
                "Reload the list: it may have been deleted.".to_string(),
            ),
            EdgeError::SavedLimit { what } => (
                format!(
                    "This organization keeps {} saved {what}s already, the most it can.",
                    api::presets::MAX_SAVED
                ),
                format!("Delete a {what} no longer used, then save this one."),
            ),
        };
        let mut error = ApiError::new(self.code(), message, suggestion, request_id.to_string());
        error.outcome_unknown = self.outcome_unknown();
        match self {
            EdgeError::IdempotencyKeyMissing | EdgeError::IdempotencyKeyInvalid => {
                error.with_field(crate::purchases::HEADER)
            }
            EdgeError::InvalidBody(e) => error.with_field(e.field()),
            EdgeError::KeyMalformed(_) | EdgeError::KeyRefused { .. } => error.with_field("key"),
            EdgeError::JobRows { field, .. } => error.with_field(field.clone()),
            EdgeError::InsufficientScope {
                required, scopes, ..
            } => ApiError {
                required_scope: Some(required.to_string()),
                key_scopes: Some(scopes.iter().map(|s| s.to_string()).collect()),
                ..error
            },
            EdgeError::RateLimited { retry_after, .. } => ApiError {
                retry_after_seconds: Some(*retry_after),
                ..error
            },
            EdgeError::SignInThrottled { retry_after }
            | EdgeError::SignupThrottled { retry_after } => ApiError {
                retry_after_seconds: Some(*retry_after),
                ..error
            },
            _ => error,
        }
    }

    pub fn to_body(&self, request_id: &str) -> String {
        let envelope = ErrorEnvelope {
            error: self.to_api_error(request_id),
        };
        serde_json::to_string(&envelope).unwrap_or_else(|_| String::from("{}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_every_field_and_code_form() {
        let err = EdgeError::UpstreamUnreachable {
            outcome_unknown: true,
        };
        let body: serde_json::Value = serde_json::from_str(&err.to_body("req_1")).unwrap();
        let e = &body["error"];
        assert_eq!(e["code"], "EDGE.UPSTREAM.UNREACHABLE");
        assert_eq!(e["request_id"], "req_1");
        assert!(e["message"].as_str().unwrap().contains("unknown"));
        assert!(
            e["suggestion"]
                .as_str()
                .unwrap()
                .contains("before trying again")
        );
        assert!(e["docs_url"].as_str().unwrap().starts_with("http"));
        assert_eq!(err.status(), 502);
    }

    #[test]
    fn config_error_names_the_setting_not_the_value() {
        let err = EdgeError::Config {
            setting: "SVC_LIVE_KEY",
            problem: "not a svc_live_ key".into(),
        };
        let body = err.to_body("req_2");
        assert!(body.contains("SVC_LIVE_KEY"));
        assert_eq!(err.status(), 503);
    }
}
