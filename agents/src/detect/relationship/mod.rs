//! Ties between the parties: related suppliers competing against each other and servants
//! partnering suppliers, phantom suppliers, and bid rigging with the auction screens it uses.

pub mod bid_auctions;
pub mod bid_markets;
pub mod bid_rigging;
pub mod bid_screens;
pub mod phantom;
pub mod relationships;
