//! The organization's saved addresses and package presets (`api::presets`)
//! on the one typed client. Every write answers the whole list.

use super::orgs::with_id;
use super::{Client, ClientError};
use api::presets::{
    ADDRESS_PATH, ADDRESSES_PATH, AddressInput, DEFAULT_ADDRESS_PATH, PACKAGE_PATH, PACKAGES_PATH,
    PackageInput, PackageList, SavedAddressList,
};
use api::session::SessionInfo;
use gloo_net::http::Request;

/// Whether the session's organization keeps saved addresses and presets
/// in the app (the deployment's own is configured by Worker settings).
pub fn keeps_presets(session: &SessionInfo) -> bool {
    !session.org.id.is_deployment()
}

impl Client {
    pub async fn saved_addresses(self) -> Result<SavedAddressList, ClientError> {
        self.send(Request::get(ADDRESSES_PATH)).await
    }

    /// `id`: change that one; else a new one (last in the answer).
    pub async fn save_address(
        self,
        id: Option<String>,
        input: &AddressInput,
    ) -> Result<SavedAddressList, ClientError> {
        let request = match id {
            Some(id) => Request::put(&with_id(ADDRESS_PATH, &id)),
            None => Request::post(ADDRESSES_PATH),
        };
        self.send_json(request, input).await
    }

    pub async fn delete_address(self, id: String) -> Result<SavedAddressList, ClientError> {
        self.send(Request::delete(&with_id(ADDRESS_PATH, &id)))
            .await
    }

    pub async fn make_default_address(self, id: String) -> Result<SavedAddressList, ClientError> {
        self.send(Request::put(&with_id(DEFAULT_ADDRESS_PATH, &id)))
            .await
    }

    pub async fn packages(self) -> Result<PackageList, ClientError> {
        self.send(Request::get(PACKAGES_PATH)).await
    }

    /// `id`: change that one; else a new one (last in the answer).
    pub async fn save_package(
        self,
        id: Option<String>,
        input: &PackageInput,
    ) -> Result<PackageList, ClientError> {
        let request = match id {
            Some(id) => Request::put(&with_id(PACKAGE_PATH, &id)),
            None => Request::post(PACKAGES_PATH),
        };
        self.send_json(request, input).await
    }

    pub async fn delete_package(self, id: String) -> Result<PackageList, ClientError> {
        self.send(Request::delete(&with_id(PACKAGE_PATH, &id)))
            .await
    }
}
