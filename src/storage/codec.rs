//! How values are stored: a version byte, then JSON. Values of [`DEFLATE_FROM`] bytes or more
//! (an investigation's results body, about 90 KB of JSON for 200 demo contracts) and batches of
//! events of [`EVENTS_DEFLATE_FROM`] bytes or more (a step of a run's findings) are stored
//! deflated under their own version byte: their JSON repeats field names and evidence, and a
//! value a fourth the size is less for the store to write, keep and rewrite. Smaller values
//! (heads, single events, chat messages, sessions) stay plain: compressing them would cost more
//! time than the space it saves. Values written before compression existed (plain JSON under
//! [`VALUE_VERSION`], whatever their size) are read as they are. Batches of event kinds (see
//! `event_batches`) have version bytes of their own, [`KINDS_VERSION`] and [`KINDS_DEFLATED`]:
//! their events are numbered from the record's key, not in the JSON; an events record may
//! instead point to a batch shared by the investigations holding one results body
//! ([`KINDS_SHARED`]).

use std::borrow::Cow;
use std::io::{Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::StorageError;

/// Version byte of a value stored as plain JSON.
pub(super) const VALUE_VERSION: u8 = 1;
/// Version byte of a value stored as deflated JSON.
pub(super) const VALUE_DEFLATED: u8 = 2;
/// Encoded values at least this large are stored deflated.
pub(super) const DEFLATE_FROM: usize = 32 * 1024;
/// Version byte of a batch of event kinds (numbered from its key) stored as plain JSON.
pub(super) const KINDS_VERSION: u8 = 3;
/// Version byte of a batch of event kinds (numbered from its key) stored as deflated JSON.
pub(super) const KINDS_DEFLATED: u8 = 4;
/// Version byte of an events record that is a pointer (a results body's digest and the
/// batch's hash follow) to a batch stored once for the investigations holding that body (see
/// `shared_batches`).
pub(super) const KINDS_SHARED: u8 = 5;

/// Encodes a value with its version byte (deflated when large).
pub(super) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, StorageError> {
    with_json(value, encode_json)
}

/// Calls `f` with the JSON of `value`. Values are serialised into one buffer per thread, kept
/// between calls, so a record of tens of kilobytes is not grown from a few bytes by repeated
/// reallocation each time.
pub(super) fn with_json<T: Serialize, R>(
    value: &T,
    f: impl FnOnce(&[u8]) -> Result<R, StorageError>,
) -> Result<R, StorageError> {
    thread_local! {
        static JSON: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    JSON.with_borrow_mut(|json| {
        json.clear();
        let out = serde_json::to_writer(&mut *json, value).map_err(StorageError::from).and_then(|()| f(json));
        // An unusually large value (a whole dataset's results) does not stay held by the thread.
        if json.capacity() > KEPT_BUFFER {
            *json = Vec::new();
        }
        out
    })
}

/// The stored form of a run's batch of event kinds already serialised, under the kinds'
/// version bytes, deflated from [`EVENTS_DEFLATE_FROM`] bytes: the findings of a step of a run
/// are one record of ten or twenty kilobytes, kept for the retention window (about half the
/// store's live data under load before they were deflated).
pub(super) fn encode_kinds(json: &[u8]) -> Result<Vec<u8>, StorageError> {
    encode_json_as(json, EVENTS_DEFLATE_FROM, [KINDS_VERSION, KINDS_DEFLATED])
}

/// Whether a stored value is a batch of event kinds written by [`encode_kinds`].
pub(super) fn holds_kinds(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(&(KINDS_VERSION | KINDS_DEFLATED)))
}

/// Encoded event batches at least this large are stored deflated.
pub(super) const EVENTS_DEFLATE_FROM: usize = 8 * 1024;

/// The stored form of JSON already serialised: its version byte, then the JSON as it is or,
/// when large, deflated.
pub(super) fn encode_json(json: &[u8]) -> Result<Vec<u8>, StorageError> {
    encode_json_as(json, DEFLATE_FROM, [VALUE_VERSION, VALUE_DEFLATED])
}

/// `json` after its version byte, `plain` or (from `from` bytes) `deflated`, and then deflated.
fn encode_json_as(json: &[u8], from: usize, [plain, deflated]: [u8; 2]) -> Result<Vec<u8>, StorageError> {
    if json.len() + 1 < from {
        let mut out = Vec::with_capacity(json.len() + 1);
        out.push(plain);
        out.extend_from_slice(json);
        return Ok(out);
    }
    // The version byte first, uncompressed; then the JSON at the fastest level (most of the
    // gain, repeated names, at a fraction of the time).
    let mut head = Vec::with_capacity(json.len() / 3 + 16);
    head.push(deflated);
    let mut deflated = flate2::write::DeflateEncoder::new(head, flate2::Compression::fast());
    deflated.write_all(json).map_err(io)?;
    deflated.finish().map_err(io)
}

/// Largest serialisation buffer a thread keeps between values.
const KEPT_BUFFER: usize = 1 << 20;

/// The JSON of a value written by [`encode`] (inflated when it was stored deflated).
pub(super) fn json_of(bytes: &[u8]) -> Result<Cow<'_, [u8]>, StorageError> {
    match bytes.split_first() {
        Some((&(VALUE_VERSION | KINDS_VERSION), rest)) => Ok(Cow::Borrowed(rest)),
        Some((&(VALUE_DEFLATED | KINDS_DEFLATED), rest)) => {
            let mut json = Vec::with_capacity(rest.len() * 4);
            flate2::read::DeflateDecoder::new(rest).read_to_end(&mut json).map_err(io)?;
            Ok(Cow::Owned(json))
        }
        Some((&v, _)) => Err(StorageError::Version(v)),
        None => Err(StorageError::Version(0)),
    }
}

/// Appends to `out` what `json` holds: one value, or an array of them (several written as one
/// record).
pub(super) fn decode_one_or_many<T: DeserializeOwned>(json: &[u8], out: &mut Vec<T>) -> Result<(), StorageError> {
    if json.first() == Some(&b'[') {
        out.extend(serde_json::from_slice::<Vec<T>>(json)?);
    } else {
        out.push(serde_json::from_slice(json)?);
    }
    Ok(())
}

/// Decodes a value written by [`encode`].
pub(super) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, StorageError> {
    Ok(serde_json::from_slice(&json_of(bytes)?)?)
}

/// A compression error (writing to memory cannot fail; a corrupt deflated value can).
fn io(e: std::io::Error) -> StorageError {
    StorageError::Compression(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_with_their_version_byte() {
        let bytes = encode(&vec![1, 2, 3]).unwrap();
        assert_eq!(bytes[0], VALUE_VERSION);
        assert_eq!(decode::<Vec<i32>>(&bytes).unwrap(), vec![1, 2, 3]);
        assert!(matches!(decode::<Vec<i32>>(&[9, b'1']), Err(StorageError::Version(9))));
    }

    #[test]
    fn a_large_value_is_stored_deflated_and_reads_back_the_same() {
        let value: Vec<String> = (0..2_000).map(|i| format!("contrato {i} do fornecedor {}", i % 7)).collect();
        let bytes = encode(&value).unwrap();
        assert_eq!(bytes[0], VALUE_DEFLATED);
        assert!(bytes.len() < serde_json::to_vec(&value).unwrap().len() / 3, "{} bytes", bytes.len());
        assert_eq!(decode::<Vec<String>>(&bytes).unwrap(), value);
    }

    #[test]
    fn a_large_value_written_as_plain_json_before_compression_still_reads() {
        let value: Vec<u32> = (0..20_000).collect();
        let mut old = vec![VALUE_VERSION];
        old.extend(serde_json::to_vec(&value).unwrap());
        assert!(old.len() >= DEFLATE_FROM);
        assert_eq!(decode::<Vec<u32>>(&old).unwrap(), value);
    }

    #[test]
    fn a_corrupt_deflated_value_is_an_error_not_a_panic() {
        assert!(decode::<Vec<u32>>(&[VALUE_DEFLATED, 0xFF, 0x00, 0x13]).is_err());
    }
}
