//! Users (by id, with a unique e-mail index) and service API keys (by the SHA-256 of the key).

use super::{StorageError, Store, get, put, scan};
use crate::domain::{ApiKey, Email, User, UserId};

impl Store {
    /// Inserts a new user; `false` (and nothing written) when the e-mail is taken.
    pub fn create_user(&self, user: &User) -> Result<bool, StorageError> {
        // Claiming the e-mail first makes two concurrent registrations of it impossible.
        let claimed = self.users_by_email.compare_and_swap(
            user.email.as_str(),
            None as Option<&[u8]>,
            Some(user.id.0.as_bytes().as_slice()),
        )?;
        if claimed.is_err() {
            return Ok(false);
        }
        put(&self.users, user.id.0.as_bytes(), user)?;
        Ok(true)
    }

    /// Whether no user exists yet (a first start).
    pub fn has_no_users(&self) -> bool {
        self.users.is_empty()
    }

    /// One user.
    pub fn user(&self, id: UserId) -> Result<Option<User>, StorageError> {
        get(&self.users, id.0.as_bytes())
    }

    /// The user with this e-mail.
    pub fn user_by_email(&self, email: &Email) -> Result<Option<User>, StorageError> {
        match self.users_by_email.get(email.as_str())? {
            Some(id) => match uuid::Uuid::from_slice(&id) {
                Ok(id) => self.user(UserId(id)),
                Err(_) => Ok(None),
            },
            None => Ok(None),
        }
    }

    /// Atomically changes a user; `None` when there is no such user.
    pub fn update_user(&self, id: UserId, mut f: impl FnMut(&mut User)) -> Result<Option<User>, StorageError> {
        super::update(&self.users, id.0.as_bytes(), |u: Option<User>| {
            u.map(|mut u| {
                f(&mut u);
                u
            })
        })
    }

    /// Stores an API key under the digest of its secret.
    pub fn insert_api_key(&self, digest: &str, key: &ApiKey) -> Result<(), StorageError> {
        put(&self.api_keys, digest, key)
    }

    /// The API key whose secret has this digest.
    pub fn api_key_by_digest(&self, digest: &str) -> Result<Option<ApiKey>, StorageError> {
        get(&self.api_keys, digest)
    }

    /// Every API key (never the secrets, which are not stored).
    pub fn api_keys(&self) -> Result<Vec<ApiKey>, StorageError> {
        let mut keys: Vec<ApiKey> = scan(&self.api_keys, b"")?;
        keys.sort_by_key(|k| k.created_at);
        Ok(keys)
    }

    /// Revokes an API key by id; `false` when unknown.
    pub fn remove_api_key(&self, id: uuid::Uuid) -> Result<bool, StorageError> {
        for entry in self.api_keys.iter() {
            let (digest, value) = entry?;
            if super::decode::<ApiKey>(&value)?.id == id {
                self.api_keys.remove(digest)?;
                return Ok(true);
            }
        }
        Ok(false)
    }
}
