//! Whether two contracts' item lines say they buy the same goods: the test the duplicate
//! search applies to candidate pairs that list their items (Portal `ItemCompra`).

use crate::model::amendment::ContractItem;
use crate::model::contract::Contract;

/// Whether two contracts may buy the same goods as far as their items say: true when either
/// lists none; otherwise they must share a line: the same quantity at the same value (within
/// 1%), or the same item (the same catalogue description, or the same item code) at the same
/// unit price (within 5%) and a like quantity (within a factor of 1.25). Two lots of one tender buy different items; two draws on one ata
/// are one purchase process, which [`crate::detect::pattern::duplicates::one_purchase`] leaves out before this.
pub fn items_may_match(a: &Contract, b: &Contract) -> bool {
    if a.items.is_empty() || b.items.is_empty() {
        return true;
    }
    let unit = |x: &ContractItem| if x.quantity > 0.0 { x.value / x.quantity } else { x.value };
    a.items.iter().any(|x| {
        b.items.iter().any(|y| {
            let same_item = (!x.description.is_empty() && x.description == y.description)
                || (!x.code.is_empty() && x.code == y.code);
            let (ux, uy) = (unit(x), unit(y));
            let same_price = (ux - uy).abs() <= 0.05 * ux.abs().max(uy.abs());
            let (qx, qy) = (x.quantity.abs(), y.quantity.abs());
            let like_quantity = qx.max(qy) <= 1.25 * qx.min(qy) || (qx == 0.0 && qy == 0.0);
            // The same quantity at the same value is the same line, however the catalogue
            // describes it ("RECEPTOR DECODIFICADOR" and "RECEPTOR / DECODIFICADOR").
            let same_line =
                x.quantity == y.quantity && (x.value - y.value).abs() <= 0.01 * x.value.abs().max(y.value.abs());
            same_line || (same_item && same_price && like_quantity)
        })
    })
}

/// Whether two contracts list the same item of the same purchase (`Código Item Compra`): the
/// one thing that says two suppliers were contracted for the same goods, not for two lots or
/// two items of one tender. Contracts without items say nothing either way.
pub fn share_a_purchase_item(a: &Contract, b: &Contract) -> bool {
    a.items.iter().any(|x| !x.code.is_empty() && b.items.iter().any(|y| y.code == x.code))
}
