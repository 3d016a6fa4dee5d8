//! The v1 shipping interface (`shared/spec/v1-interface.md`) in types: the
//! one place the contract is stated. App, edge and simulator import it.
//! Where the interface says "not shown", the choice made here is documented
//! on the item and in `sim/README.md`.

pub mod access_tokens;
pub mod address;
pub mod batches;
pub mod carrier_accounts;
pub mod code;
pub mod endpoints;
pub mod error;
pub mod inbox;
pub mod insights;
pub mod jobs;
pub mod keys;
pub mod labels;
pub mod names;
pub mod orgs;
pub mod origins;
pub mod parcel;
pub mod passkeys;
pub mod places;
pub mod presets;
pub mod rates;
pub mod role;
pub mod scopes;
pub mod session;
pub mod shipments;
pub mod signing;
pub mod trackers;
pub mod validation;
pub mod wallet;
pub mod webhooks;
pub mod widget;

pub use address::{Address, AddressValidation, FieldProblem};
pub use batches::{
    Batch, BatchItem, BatchItemResult, BatchItemState, BatchState, BatchStatus, BuyBatchRequest,
    CreateBatchRequest, ResultsPage,
};
pub use carrier_accounts::{CarrierAccount, CarrierAccountList, CarrierAccountStatus};
pub use code::{ErrorCode, errors_page};
pub use endpoints::{
    Caller, ENDPOINTS, Endpoint, EndpointId, Method, OWN_ENDPOINTS, OwnEndpoint, OwnId, RouteMatch,
    match_own, match_route,
};
pub use error::{ApiError, DOCS_BASE_URL, ErrorEnvelope};
pub use keys::{ApiKey, KeyEnv, KeyError};
pub use labels::{BuyLabelRequest, Label, LabelDetails, VoidResponse, VoidStatus};
pub use parcel::Parcel;
pub use rates::{AccountType, Rate, RatesRequest, RatesResponse};
pub use scopes::Scope;
pub use trackers::{CreateTrackerRequest, Tracker, TrackerEvent, TrackerStatus};
pub use wallet::{AutoReload, CardState, Wallet};
pub use webhooks::{DeliveryList, DeliveryStatus, SignatureError, WebhookDelivery, WebhookEvent};
