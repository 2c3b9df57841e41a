//! RS256 signing keys and claims. A 2048-bit key pair is generated with aws-lc-rs on first
//! start into `<data_dir>/keys/` (private key PEM, mode 0600, and its `kid`) and loaded on
//! later starts. Tokens carry `kid` in the header; validation checks the algorithm (only RS256:
//! `none` and HS256 tokens are refused), the signature, the issuer and the expiry with no
//! leeway. The public key is published as a JWK set.

use std::io::Write;
use std::path::Path;

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::{KeyPair, KeySize};
use chrono::{DateTime, SecondsFormat, Utc};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, JwkSet, KeyAlgorithm, PublicKeyUse, ThumbprintHash};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::AuthError;
use super::verified::{VerifiedTokens, token_digest};

/// Private key file name under `<data_dir>/keys/`.
const PRIVATE_KEY_FILE: &str = "jwt_rs256_private.pem";
/// Key id file name under `<data_dir>/keys/`.
const KID_FILE: &str = "jwt_rs256.kid";
/// Verified tokens remembered (a few MiB at most).
const VERIFIED_CAPACITY: usize = 10_000;

/// Access or refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenKind {
    /// Authenticates requests (15 minutes by default).
    Access,
    /// Renews a session once (7 days by default).
    Refresh,
}

/// The claims of every token: the spec's `sub, email, role, permissoes, iat, exp, jti, iss`,
/// plus the session id `sid` and the kind `typ`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// User id.
    pub sub: Uuid,
    /// User e-mail.
    pub email: String,
    /// Role name.
    pub role: String,
    /// Permission names.
    pub permissoes: Vec<String>,
    /// Issued at (epoch seconds).
    pub iat: i64,
    /// Expires at (epoch seconds).
    pub exp: i64,
    /// Unique token id (revocation key).
    pub jti: String,
    /// Issuer.
    pub iss: String,
    /// Session id.
    pub sid: Uuid,
    /// Access or refresh.
    pub typ: TokenKind,
}

/// An epoch-seconds instant as RFC 3339 UTC with milliseconds.
pub fn rfc3339(epoch_secs: i64) -> String {
    DateTime::<Utc>::from_timestamp(epoch_secs, 0).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The service's key pair, its id, the published JWK and the validation rules.
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    kid: String,
    jwk: Jwk,
    issuer: String,
    validation: Validation,
    verified: VerifiedTokens,
}

fn keys_err(what: &str, path: &Path, e: impl std::fmt::Display) -> AuthError {
    AuthError::Keys(format!("{what} {}: {e}", path.display()))
}

impl JwtKeys {
    /// Loads the key pair from `<data_dir>/keys/`, generating and persisting it on first start.
    pub fn load_or_generate(data_dir: &Path, issuer: &str) -> Result<JwtKeys, AuthError> {
        let dir = data_dir.join("keys");
        let key_path = dir.join(PRIVATE_KEY_FILE);
        let kid_path = dir.join(KID_FILE);
        let pem = if key_path.exists() {
            std::fs::read_to_string(&key_path).map_err(|e| keys_err("reading", &key_path, e))?
        } else {
            let pem = generate_pem()?;
            create_dir_private(&dir)?;
            write_private(&key_path, pem.as_bytes())?;
            pem
        };
        let encoding = EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|e| keys_err("parsing", &key_path, e))?;
        let mut jwk =
            Jwk::from_encoding_key(&encoding, Algorithm::RS256).map_err(|e| AuthError::Keys(e.to_string()))?;
        let kid = match std::fs::read_to_string(&kid_path) {
            Ok(kid) if !kid.trim().is_empty() => kid.trim().to_string(),
            _ => {
                // RFC 7638 thumbprint: a stable id derived from the public key itself.
                let kid = jwk.thumbprint(ThumbprintHash::SHA256).map_err(|e| AuthError::Keys(e.to_string()))?;
                std::fs::write(&kid_path, &kid).map_err(|e| keys_err("writing", &kid_path, e))?;
                kid
            }
        };
        jwk.common.key_id = Some(kid.clone());
        jwk.common.public_key_use = Some(PublicKeyUse::Signature);
        jwk.common.key_algorithm = Some(KeyAlgorithm::RS256);
        let decoding = DecodingKey::from_jwk(&jwk).map_err(|e| AuthError::Keys(e.to_string()))?;
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_issuer(&[issuer]);
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        // jsonwebtoken's default leeway is 60 s; an expired token must fail at once.
        validation.leeway = 0;
        validation.validate_aud = false;
        let verified = VerifiedTokens::new(VERIFIED_CAPACITY);
        Ok(JwtKeys { encoding, decoding, kid, jwk, issuer: issuer.to_string(), validation, verified })
    }

    /// The configured issuer (`iss`).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The key id in every header.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// Signs claims into a compact RS256 token with `kid`.
    pub fn sign(&self, claims: &Claims) -> Result<String, AuthError> {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).map_err(|e| AuthError::Keys(e.to_string()))
    }

    /// Verifies algorithm, signature, issuer and expiry. An expired but otherwise valid token
    /// is [`AuthError::Expired`] with its claims; everything else is [`AuthError::Invalid`].
    /// A token verified before skips the signature check (see [`super::verified`]) but not the
    /// expiry.
    pub fn verify(&self, token: &str) -> Result<Claims, AuthError> {
        let key = token_digest(token);
        if let Some(claims) = self.verified.get(&key) {
            // jsonwebtoken's rule with no leeway: expired once `exp` is in the past.
            return if claims.exp < Utc::now().timestamp() {
                Err(AuthError::Expired(Box::new(claims)))
            } else {
                Ok(claims)
            };
        }
        let claims = self.verify_uncached(token)?;
        self.verified.insert(key, &claims, Utc::now().timestamp());
        Ok(claims)
    }

    /// [`JwtKeys::verify`] without the cache of verified tokens: the full RS256 check.
    pub fn verify_uncached(&self, token: &str) -> Result<Claims, AuthError> {
        match jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation) {
            Ok(data) => Ok(data.claims),
            Err(e) if matches!(e.kind(), ErrorKind::ExpiredSignature) => {
                // The signature was checked before the expiry; read the claims without it.
                let mut lenient = self.validation.clone();
                lenient.validate_exp = false;
                match jsonwebtoken::decode::<Claims>(token, &self.decoding, &lenient) {
                    Ok(data) => Err(AuthError::Expired(Box::new(data.claims))),
                    Err(e) => Err(AuthError::Invalid(reason(e.kind()))),
                }
            }
            Err(e) => Err(AuthError::Invalid(reason(e.kind()))),
        }
    }

    /// The public key set for `/.well-known/jwks.json`.
    pub fn jwks(&self) -> JwkSet {
        JwkSet { keys: vec![self.jwk.clone()] }
    }
}

/// A short, client-safe reason (never the token).
fn reason(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::InvalidSignature => "bad signature",
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName | ErrorKind::UnsupportedAlgorithm => {
            "algorithm not accepted (RS256 only)"
        }
        ErrorKind::InvalidIssuer => "wrong issuer",
        ErrorKind::MissingRequiredClaim(_) | ErrorKind::InvalidClaimFormat(_) => "claims missing or malformed",
        ErrorKind::ImmatureSignature => "not yet valid",
        _ => "malformed token",
    }
    .to_string()
}

fn generate_pem() -> Result<String, AuthError> {
    let pair = KeyPair::generate(KeySize::Rsa2048).map_err(|e| AuthError::Keys(format!("generating: {e}")))?;
    let der = pair.as_der().map_err(|e| AuthError::Keys(format!("encoding: {e}")))?;
    // jsonwebtoken's aws-lc backend wants PKCS#1 DER; its PEM reader unwraps PKCS#8 to it.
    Ok(pem::encode(&pem::Pem::new("PRIVATE KEY", der.as_ref().to_vec())))
}

fn create_dir_private(dir: &Path) -> Result<(), AuthError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| keys_err("creating", dir, e))
}

/// Writes a new file readable by the owner only.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), AuthError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|e| keys_err("creating", path, e))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| keys_err("writing", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(keys: &JwtKeys, exp_in: i64) -> Claims {
        let now = Utc::now().timestamp();
        Claims {
            sub: Uuid::now_v7(),
            email: "a@b.org".into(),
            role: "analista".into(),
            permissoes: vec!["ler:investigacoes".into()],
            iat: now,
            exp: now + exp_in,
            jti: Uuid::new_v4().to_string(),
            iss: keys.issuer().into(),
            sid: Uuid::now_v7(),
            typ: TokenKind::Access,
        }
    }

    #[test]
    fn keys_persist_and_tokens_verify_across_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let keys = JwtKeys::load_or_generate(dir.path(), "vigia").unwrap();
        let token = keys.sign(&claims(&keys, 60)).unwrap();
        let again = JwtKeys::load_or_generate(dir.path(), "vigia").unwrap();
        assert_eq!(again.kid(), keys.kid());
        assert_eq!(again.verify(&token).unwrap().email, "a@b.org");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("keys").join(PRIVATE_KEY_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn expired_tampered_foreign_and_hs256_tokens_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let keys = JwtKeys::load_or_generate(dir.path(), "vigia").unwrap();
        let expired = keys.sign(&claims(&keys, -1)).unwrap();
        assert!(matches!(keys.verify(&expired), Err(AuthError::Expired(_))));
        let good = keys.sign(&claims(&keys, 60)).unwrap();
        let mut parts: Vec<String> = good.split('.').map(str::to_string).collect();
        parts[1] = parts[1].chars().rev().collect();
        assert!(matches!(keys.verify(&parts.join(".")), Err(AuthError::Invalid(_))));
        let other = JwtKeys::load_or_generate(dir.path(), "someone-else").unwrap();
        assert!(matches!(other.verify(&good), Err(AuthError::Invalid(_))), "wrong issuer");
        let hs = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims(&keys, 60),
            &EncodingKey::from_secret(b"guess"),
        )
        .unwrap();
        assert!(matches!(keys.verify(&hs), Err(AuthError::Invalid(_))));
        assert!(matches!(keys.verify("not.a.token"), Err(AuthError::Invalid(_))));
    }
}
