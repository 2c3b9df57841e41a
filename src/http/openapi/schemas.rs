//! The document's security schemes: a bearer JWT (`Authorization: Bearer <token>`, from
//! `/api/v1/auth/login`) and the legacy API key (`X-API-Key`, issued by an administrator).

use utoipa::Modify;
use utoipa::openapi::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};

/// Adds the two security schemes the annotations name (`bearer_jwt`, `api_key`).
pub struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer_jwt",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "RS256 access token from POST /api/v1/auth/login (keys at /.well-known/jwks.json)",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "API key issued by an administrator (POST /api/v1/admin/api-keys); used when no bearer token is sent",
            ))),
        );
    }
}
