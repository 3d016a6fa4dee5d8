//! Saved addresses and package presets (`api::presets`), the
//! organization's: kept in one row of its object, each change with its
//! audit line.

use api::OwnId;
use api::presets::{
    ADDRESS_ID_PREFIX, AddressInput, PACKAGE_ID_PREFIX, PackageInput, PackageList, SavedAddressList,
};
use api::session::Role;
use domain::errors::BadBody;
use domain::errors::RouteError;
use domain::orgs::AccountError;
use worker::Env;
use worker::web_sys::{Request, Response};

use crate::caller::member;
use crate::error::AccountsError;
use crate::input::MAX_BODY;
use domain::orgs::Org;
use domain::orgs::presets::{Change, Refused};
use domain::orgs::wire::Caller;
use platform::objects::ask;
use platform::{json_body, now_s, random_hex, reply};

/// Saved addresses and package presets (`api::presets`): every member
/// reads them; admins and operators, who ship daily, change them.
pub(crate) async fn saved(
    endpoint: OwnId,
    param: String,
    req: Request,
    env: &Env,
    caller: &Caller,
) -> Result<Response, AccountsError> {
    let m = member(env, caller).await?;
    let addresses = matches!(
        endpoint,
        OwnId::Addresses
            | OwnId::SaveAddress
            | OwnId::UpdateAddress
            | OwnId::DeleteAddress
            | OwnId::DefaultAddress
    );
    let reads = matches!(endpoint, OwnId::Addresses | OwnId::Packages);
    if !reads && m.role == Role::Viewer {
        let action = if addresses {
            "change the saved addresses"
        } else {
            "change the package presets"
        };
        return Err(AccountError::ViewerReadOnly { action }.into());
    }
    let address = || async {
        let input: AddressInput = json_body(&req, MAX_BODY).await?;
        input.check().map_err(BadBody::Invalid)?;
        Ok::<_, AccountsError>(input)
    };
    let package = || async {
        let input: PackageInput = json_body(&req, MAX_BODY).await?;
        input.check().map_err(BadBody::Invalid)?;
        Ok::<_, AccountsError>(input)
    };
    let new_id = |prefix: &str| Ok::<_, AccountsError>(format!("{prefix}{}", random_hex(6)?));
    let id = param;
    let change = match endpoint {
        OwnId::SaveAddress => Some(Change::SaveAddress {
            id: new_id(ADDRESS_ID_PREFIX)?,
            input: address().await?,
        }),
        OwnId::UpdateAddress => Some(Change::UpdateAddress {
            input: address().await?,
            id,
        }),
        OwnId::DeleteAddress => Some(Change::DeleteAddress { id }),
        OwnId::DefaultAddress => Some(Change::DefaultAddress { id }),
        OwnId::SavePackage => Some(Change::SavePackage {
            id: new_id(PACKAGE_ID_PREFIX)?,
            input: package().await?,
        }),
        OwnId::UpdatePackage => Some(Change::UpdatePackage {
            input: package().await?,
            id,
        }),
        OwnId::DeletePackage => Some(Change::DeletePackage { id }),
        OwnId::Addresses | OwnId::Packages => None,
        _ => return Err(RouteError::NotFound { path: req.url() }.into()),
    };
    let created = matches!(endpoint, OwnId::SaveAddress | OwnId::SavePackage);
    let org = caller.org.as_str();
    let lists = match change {
        None => ask::<Org, _>(env, org, domain::orgs::SavedLists {}).await?,
        Some(change) => {
            let call = domain::orgs::ChangeSaved {
                actor: m.actor(&caller.account),
                change: Box::new(change),
                at: now_s(),
            };
            let what = if addresses {
                "address"
            } else {
                "package preset"
            };
            ask::<Org, _>(env, org, call).await?.map_err(|r| match r {
                Refused::NotFound => AccountError::SavedNotFound { what },
                Refused::Full => AccountError::SavedLimit { what },
            })?
        }
    };
    let status = if created { 201 } else { 200 };
    if addresses {
        let list = SavedAddressList {
            addresses: lists.addresses,
        };
        reply::json(status, &list, &[])
    } else {
        let list = PackageList {
            packages: lists.packages,
        };
        reply::json(status, &list, &[])
    }
}
