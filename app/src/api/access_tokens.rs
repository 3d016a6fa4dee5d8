//! Personal access tokens (`api::access_tokens`) on the one typed client.

use super::{Client, ClientError, encode};
use api::access_tokens::{TOKEN_PATH, TOKENS_PATH, TokenCreated, TokenList, TokenRequest};
use gloo_net::http::Request;

impl Client {
    /// The person's own tokens; an admin's list holds everyone's.
    pub async fn access_tokens(self) -> Result<TokenList, ClientError> {
        self.send(Request::get(TOKENS_PATH)).await
    }

    /// The answer holds the token: shown once, never stored here.
    pub async fn create_access_token(
        self,
        request: TokenRequest,
    ) -> Result<TokenCreated, ClientError> {
        self.send_json(Request::post(TOKENS_PATH), &request).await
    }

    pub async fn revoke_access_token(self, id: String) -> Result<TokenList, ClientError> {
        self.send(Request::delete(&TOKEN_PATH.replace("{id}", &encode(&id))))
            .await
    }
}
