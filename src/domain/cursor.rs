//! Cursor pages (the spec's third pagination form, shared by the investigation list and the
//! chat history): items ordered by timestamp then id, newest last; a cursor is an opaque base64
//! string of the JSON `{t, i, d}` (the timestamp and id of the item the page stops at, and the
//! direction to go from it). Cursors do not expire: they name a position, not a snapshot, so
//! they stay valid while the data exists. No page jumping and no page count.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Which way a page goes from its cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Towards newer items.
    Next,
    /// Towards older items (the default: a first page shows the newest items).
    Prev,
}

impl Direction {
    /// Parses `next` or `prev`.
    pub fn parse(s: &str) -> Option<Direction> {
        match s {
            "next" => Some(Direction::Next),
            "prev" => Some(Direction::Prev),
            _ => None,
        }
    }

    /// The name in requests and metadata.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Next => "next",
            Direction::Prev => "prev",
        }
    }
}

/// A position in a cursor-paged list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    /// Timestamp of the item the page stops at.
    pub t: DateTime<Utc>,
    /// Its id.
    pub i: String,
    /// The direction to go from it.
    pub d: Direction,
}

impl Cursor {
    /// The opaque string clients pass back.
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).unwrap_or_default())
    }

    /// Reads a cursor; `None` for anything this service did not write.
    pub fn decode(s: &str) -> Option<Cursor> {
        let bytes = URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// One page of a cursor-paged list.
#[derive(Debug, Clone, PartialEq)]
pub struct CursorPage<T> {
    /// The items, oldest first.
    pub items: Vec<T>,
    /// Where the newer items continue, if any.
    pub next_cursor: Option<String>,
    /// Where the older items continue, if any.
    pub prev_cursor: Option<String>,
    /// Whether there are more items in the page's direction.
    pub has_more: bool,
    /// Items in the whole list.
    pub total_items: usize,
    /// The direction the page went.
    pub direction: Direction,
}

/// Pages `sorted` (ascending by `key`: timestamp then id) from `cursor` (or from the newest
/// end going `prev`, the oldest going `next`) taking at most `limit` items.
pub fn page<T: Clone>(
    sorted: &[T],
    key: impl Fn(&T) -> (DateTime<Utc>, String),
    cursor: Option<&Cursor>,
    direction: Direction,
    limit: usize,
) -> CursorPage<T> {
    let direction = cursor.map_or(direction, |c| c.d);
    let limit = limit.max(1);
    let (from, to) = match (cursor, direction) {
        (None, Direction::Prev) => (sorted.len().saturating_sub(limit), sorted.len()),
        (None, Direction::Next) => (0, limit.min(sorted.len())),
        (Some(c), Direction::Prev) => {
            let end = sorted.partition_point(|x| key(x) < (c.t, c.i.clone()));
            (end.saturating_sub(limit), end)
        }
        (Some(c), Direction::Next) => {
            let start = sorted.partition_point(|x| key(x) <= (c.t, c.i.clone()));
            (start, (start + limit).min(sorted.len()))
        }
    };
    let at = |k: usize, d: Direction| {
        let (t, i) = key(&sorted[k]);
        Cursor { t, i, d }.encode()
    };
    let (older, newer) = (from > 0, to < sorted.len());
    CursorPage {
        items: sorted[from..to].to_vec(),
        prev_cursor: (older && to > from).then(|| at(from, Direction::Prev)),
        next_cursor: (newer && to > from).then(|| at(to - 1, Direction::Next)),
        has_more: match direction {
            Direction::Prev => older,
            Direction::Next => newer,
        },
        total_items: sorted.len(),
        direction,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: i64) -> Vec<(DateTime<Utc>, String)> {
        (0..n).map(|k| (DateTime::from_timestamp(1_700_000_000 + k, 0).unwrap(), format!("id{k:02}"))).collect()
    }

    fn ids(p: &CursorPage<(DateTime<Utc>, String)>) -> Vec<&str> {
        p.items.iter().map(|(_, i)| i.as_str()).collect()
    }

    #[test]
    fn the_first_page_shows_the_newest_items_and_prev_walks_back_to_the_oldest() {
        let all = items(5);
        let first = page(&all, Clone::clone, None, Direction::Prev, 2);
        assert_eq!(ids(&first), ["id03", "id04"]);
        assert!(first.has_more && first.next_cursor.is_none());
        let c = Cursor::decode(first.prev_cursor.as_deref().unwrap()).unwrap();
        let second = page(&all, Clone::clone, Some(&c), Direction::Next, 2);
        assert_eq!(ids(&second), ["id01", "id02"], "the cursor's direction wins");
        let c = Cursor::decode(second.prev_cursor.as_deref().unwrap()).unwrap();
        let last = page(&all, Clone::clone, Some(&c), Direction::Prev, 2);
        assert_eq!(ids(&last), ["id00"]);
        assert!(!last.has_more && last.prev_cursor.is_none());
        let c = Cursor::decode(last.next_cursor.as_deref().unwrap()).unwrap();
        assert_eq!(ids(&page(&all, Clone::clone, Some(&c), Direction::Prev, 2)), ["id01", "id02"]);
        assert_eq!(first.total_items, 5);
    }

    #[test]
    fn a_cursor_stays_valid_when_newer_items_arrive_and_garbage_is_not_a_cursor() {
        let mut all = items(4);
        let first = page(&all, Clone::clone, None, Direction::Next, 2);
        let c = Cursor::decode(first.next_cursor.as_deref().unwrap()).unwrap();
        all.extend(items(6).into_iter().skip(4));
        assert_eq!(ids(&page(&all, Clone::clone, Some(&c), Direction::Next, 3)), ["id02", "id03", "id04"]);
        assert!(Cursor::decode("not a cursor").is_none());
    }
}
