//! The OpenAPI document's security schemes: the bearer token of `/api/v1` and the Jobe-compatible
//! endpoint's API key header.

pub(super) struct SecurityAddon;

impl utoipa::Modify for SecurityAddon {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("A client token from `pruefstein client add NAME`"))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "jobe_api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-KEY",
                "A client token, for the Jobe-compatible endpoint (CodeRunner's Jobe server API key)",
            ))),
        );
    }
}
