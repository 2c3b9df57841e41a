//! Reading Comprasnet pregão lances (the `DB_Collusion_Brazil_Comprasnet_processed.csv`
//! shape of the collusion literature's Brazilian data: one row per lance) into [`Bidding`]
//! records: one bidding per auctioned item, with every lance, each bidder's lowest lance as
//! its bid, the winner and the agency's reference price.
//!
//! Columns read (by header name, any order): `Tender` (item id, the bidding id), `prgCod`
//! (pregão id, the process shared by its items), `numprp` (pregão number and year), `ipgItem`
//! (item number), `ipgQuantidade`, `codmat` (CATMAT), `coduasg` (purchasing unit),
//! `Pre_Tender` (reference price), `Date` (Unix seconds of the lance), `Bid_value`,
//! `Competitor` (bidder CNPJ) and `Winner` (0/1). Other columns, the published per-item screens
//! and the sanctioned-firm label among them, are not part of a bidding: the label is read
//! apart by [`labelled_bidders`] for calibration only.

use std::collections::{BTreeSet, HashMap};

use chrono::DateTime;

use super::bidding::{Bid, Bidding, Lance};
use super::contract::{Party, Unit};
use super::fields::document;
use super::intern::ArcStr;
use super::upstream::RecordError;

/// The columns a lances file must have.
const REQUIRED: [&str; 12] = [
    "Tender",
    "prgCod",
    "numprp",
    "ipgItem",
    "ipgQuantidade",
    "codmat",
    "coduasg",
    "Pre_Tender",
    "Date",
    "Bid_value",
    "Competitor",
    "Winner",
];

/// Whether a text starts with the header of a Comprasnet lances CSV: `,`-separated, with
/// every column [`biddings_from_comprasnet_csv`] reads.
pub fn is_comprasnet_lances(text: &str) -> bool {
    let first = text.trim_start_matches('\u{feff}').lines().next().unwrap_or("");
    let columns: Vec<&str> = first.split(',').map(|h| h.trim().trim_matches('"')).collect();
    REQUIRED.iter().all(|r| columns.contains(r))
}

/// One item being assembled from its rows.
struct Item {
    bidding: Bidding,
    winners: BTreeSet<ArcStr>,
}

/// Column positions of the required fields, in [`REQUIRED`] order.
fn columns(headers: &csv::StringRecord) -> Result<Vec<usize>, RecordError> {
    REQUIRED
        .iter()
        .map(|name| {
            headers.iter().position(|h| h.trim() == *name).ok_or_else(|| RecordError {
                index: 0,
                id: None,
                field: (*name).to_string(),
                message: "column missing from the header".into(),
            })
        })
        .collect()
}

/// Every auctioned item of a Comprasnet lances CSV (see the module doc) as a [`Bidding`], in
/// order of first appearance: `id` the item (`Tender`), `process_number` the pregão (`prgCod`),
/// `number` the pregão number and year (`numprp`), `unit` the UASG, `modality` "Pregão
/// Eletrônico", `opened_on`/`result_on` the dates of the first and last lance, the lances in
/// time order, each bidder once in `participants` with its lowest lance, and the reference
/// price. The organ is not in the file and stays empty. Errors name the data row (from 0) and
/// the column.
pub fn biddings_from_comprasnet_csv(text: &str) -> Result<Vec<Bidding>, RecordError> {
    let mut reader = csv::ReaderBuilder::new().flexible(false).from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| RecordError { index: 0, id: None, field: "(header)".into(), message: e.to_string() })?
        .clone();
    let col = columns(&headers)?;
    let mut items: Vec<Item> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (index, row) in reader.records().enumerate() {
        let row = row.map_err(|e| RecordError { index, id: None, field: "(csv)".into(), message: e.to_string() })?;
        let field = |k: usize| row.get(col[k]).unwrap_or("").trim();
        let id = field(0).to_string();
        let err = |k: usize, message: String| RecordError {
            index,
            id: Some(id.clone()),
            field: REQUIRED[k].to_string(),
            message,
        };
        let number = |k: usize| -> Result<f64, RecordError> {
            let raw = field(k);
            raw.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| err(k, format!("{raw:?} is not a number")))
        };
        if id.is_empty() {
            return Err(err(0, "empty item id".into()));
        }
        let value = number(9)?;
        let seconds = field(8).parse::<i64>().map_err(|_| err(8, format!("{:?} is not Unix seconds", field(8))))?;
        let at = DateTime::from_timestamp(seconds, 0).map(|t| t.naive_utc());
        let bidder: ArcStr = document(field(10)).map_err(|m| err(10, m))?.into();
        if bidder.is_empty() {
            return Err(err(10, "empty bidder document".into()));
        }
        let winner = match field(11) {
            "1" => true,
            "0" | "" => false,
            other => return Err(err(11, format!("{other:?} is not 0 or 1"))),
        };
        let k = match by_id.get(&id) {
            Some(&k) => k,
            None => {
                let reference = number(7)?;
                by_id.insert(id.clone(), items.len());
                items
                    .push(Item { bidding: item_bidding(&id, &field, reference, number(4)?), winners: BTreeSet::new() });
                items.len() - 1
            }
        };
        let item = &mut items[k];
        if winner {
            item.winners.insert(bidder.clone());
        }
        item.bidding.lances.push(Lance { bidder, value, at });
    }
    Ok(items.into_iter().map(finish).collect())
}

/// The bidding of an item from its first row (lances and participants filled later).
fn item_bidding<'a>(id: &str, field: &impl Fn(usize) -> &'a str, reference: f64, quantity: f64) -> Bidding {
    Bidding {
        id: id.into(),
        number: field(2).into(),
        object: format!("Pregão {} item {}: material CATMAT {} ({} unidades)", field(2), field(3), field(5), quantity)
            .into(),
        process_number: field(1).into(),
        modality: "Pregão Eletrônico".into(),
        unit: Unit { code: field(6).into(), name: ArcStr::new() },
        reference_price: (reference > 0.0).then_some(reference),
        ..Bidding::default()
    }
}

/// Orders an item's lances in time, and makes each bidder one participant with its lowest
/// lance (in order of first lance), flagged winner when one of its rows won.
fn finish(mut item: Item) -> Bidding {
    let b = &mut item.bidding;
    b.lances.sort_by_key(|l| l.at);
    let mut lowest: Vec<(ArcStr, f64)> = Vec::new();
    for l in &b.lances {
        match lowest.iter_mut().find(|(d, _)| *d == l.bidder) {
            Some((_, v)) => *v = v.min(l.value),
            None => lowest.push((l.bidder.clone(), l.value)),
        }
    }
    b.participants = lowest
        .into_iter()
        .map(|(d, v)| Bid {
            winner: item.winners.contains(&d),
            bidder: Party { name: ArcStr::new(), document: d },
            value: Some(v),
        })
        .collect();
    b.opened_on = b.lances.iter().find_map(|l| l.at).map(|t| t.date());
    b.result_on = b.lances.iter().rev().find_map(|l| l.at).map(|t| t.date());
    item.bidding
}

/// The bidders marked by the file's weak label (`Collusive_competitor_original = 1`: a firm
/// later sanctioned), for calibrating screens; never an input of a detector.
pub fn labelled_bidders(text: &str) -> Result<BTreeSet<String>, RecordError> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| RecordError { index: 0, id: None, field: "(header)".into(), message: e.to_string() })?
        .clone();
    let find = |name: &str| {
        headers.iter().position(|h| h.trim() == name).ok_or_else(|| RecordError {
            index: 0,
            id: None,
            field: name.to_string(),
            message: "column missing from the header".into(),
        })
    };
    let (who, label) = (find("Competitor")?, find("Collusive_competitor_original")?);
    let mut out = BTreeSet::new();
    for (index, row) in reader.records().enumerate() {
        let row = row.map_err(|e| RecordError { index, id: None, field: "(csv)".into(), message: e.to_string() })?;
        if row.get(label).map(str::trim) == Some("1") {
            out.insert(row.get(who).unwrap_or("").trim().to_string());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header and rows of item 540445 (reordered), copied from the real file.
    const REAL: &str = "Bid,Difference_Bid_PTE,Winner,codmat,coduasg,Tender,ipgItem,ipgQuantidade,ipgValorMinClassif,Pre_Tender,Date,Bid_value,numprp,prgCod,Competitor,atualizado,Number_bids,especificidade,frequencia,material,Collusive_competitor_original,Collusive_competitor,CV,SPD,DIFFP,RD,KURT,SKEW,KSTEST
7519557,6156675.6,1,3697,250059,540445,1,60,11880000.0,18036675.6,1138370958,11880000.0,42006,22051,01920177000179,1,174,19845,0, ,0,0,0.1151,0.5167,0.0009,0.007,-0.017,0.851,0.3625
7519546,6145775.6,0,3697,250059,540445,1,60,11880000.0,18036675.6,1138370943,11890900.0,42006,22051,03697750000152,1,174,19845,0, ,0,0,0.1151,0.5167,0.0009,0.007,-0.017,0.851,0.3625
7519504,6136675.6,0,3697,250059,540445,1,60,11880000.0,18036675.6,1138370888,11900000.0,42006,22051,01920177000179,1,174,19845,0, ,0,0,0.1151,0.5167,0.0009,0.007,-0.017,0.851,0.3625
7519498,6036675.6,0,3697,250059,540445,1,60,11880000.0,18036675.6,1138370877,12000000.0,42006,22051,03697750000152,1,174,19845,0, ,0,0,0.1151,0.5167,0.0009,0.007,-0.017,0.851,0.3625
";

    #[test]
    fn real_lances_become_one_bidding_per_item_with_each_bidders_lowest_lance() {
        let b = biddings_from_comprasnet_csv(REAL).unwrap();
        assert_eq!(b.len(), 1);
        let item = &b[0];
        assert_eq!(
            (item.id.as_str(), item.process_number.as_str(), item.unit.code.as_str()),
            ("540445", "22051", "250059")
        );
        assert_eq!(item.reference_price, Some(18_036_675.6));
        assert_eq!(item.lances.len(), 4);
        assert!(item.lances.windows(2).all(|w| w[0].at <= w[1].at));
        assert_eq!(item.participants.len(), 2);
        let winner = item.winner().unwrap();
        assert_eq!((winner.bidder.document.as_str(), winner.value), ("01920177000179", Some(11_880_000.0)));
        assert_eq!(item.participants.iter().find(|p| !p.winner).unwrap().value, Some(11_890_900.0));
        assert_eq!(item.opened_on.map(|d| d.to_string()).as_deref(), Some("2006-01-27"));
        assert!(labelled_bidders(REAL).unwrap().is_empty());
        assert!(is_comprasnet_lances(REAL));
        assert!(!is_comprasnet_lances("Tender;Bid_value\n"));
    }

    #[test]
    fn a_lances_file_is_read_by_the_loader() {
        let dir = std::env::temp_dir().join(format!("vigia-lances-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("lances.csv");
        std::fs::write(&file, REAL).unwrap();
        let ds = super::super::load::load_path(&file).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(ds.biddings.len(), 1);
        assert_eq!(ds.biddings[0].lances.len(), 4);
    }

    #[test]
    fn a_bad_value_names_the_row_and_column() {
        let text = REAL.replacen("11890900.0,42006", "abc,42006", 1);
        let e = biddings_from_comprasnet_csv(&text).unwrap_err();
        assert_eq!((e.index, e.field.as_str(), e.id.as_deref()), (1, "Bid_value", Some("540445")));
        let e = biddings_from_comprasnet_csv("Tender,Bid_value\n1,2\n").unwrap_err();
        assert_eq!(e.field, "prgCod");
    }
}
