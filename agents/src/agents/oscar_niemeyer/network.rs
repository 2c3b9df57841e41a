//! The supplier-organ network in the shape force-graph libraries read:
//! `{nodes: [{id, label, group, value}], links: [{source, target, value}]}`. Linear in the rows
//! (one hash map of organ-supplier pairs); bounded by keeping the suppliers with the most money
//! and the organs they are tied to.

use std::collections::HashMap;

use serde::Serialize;

use super::aggregate::Row;

/// A node: an organ or a supplier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    /// `organ:<code>` or `supplier:<document>`.
    pub id: String,
    /// What to print.
    pub label: String,
    /// `organ` or `supplier`.
    pub group: &'static str,
    /// R$ over the links shown.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub value: f64,
}

/// A link: the money an organ paid a supplier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    /// The organ's node id.
    pub source: String,
    /// The supplier's node id.
    pub target: String,
    /// R$.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub value: f64,
    /// Records behind it.
    pub count: usize,
}

/// The graph and how much of the data it shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Network {
    /// Organs first (largest first), then suppliers (largest first).
    pub nodes: Vec<Node>,
    /// Largest first.
    pub links: Vec<Link>,
    /// Organ-supplier pairs in the data.
    pub pairs_in_data: usize,
    /// Suppliers in the data.
    pub suppliers_in_data: usize,
    /// R$ of every row.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub total_value: f64,
    /// R$ of the links shown.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub shown_value: f64,
    /// Suppliers tied to more than one organ (in the whole data).
    pub suppliers_with_several_organs: usize,
}

/// The network of the `max_suppliers` suppliers with the most money, with at most `max_links`
/// links (the largest).
pub fn network(rows: &[Row<'_>], max_suppliers: usize, max_links: usize) -> Network {
    let mut pairs: HashMap<(&str, &str), (f64, usize)> = HashMap::new();
    let mut suppliers: HashMap<&str, (&str, f64, usize)> = HashMap::new();
    let mut organs: HashMap<&str, &str> = HashMap::new();
    let mut total_value = 0.0;
    for r in rows {
        let (o, s) = (r.organ_key(), r.supplier_key());
        total_value += r.value;
        let p = pairs.entry((o, s)).or_default();
        p.0 += r.value;
        p.1 += 1;
        let e = suppliers.entry(s).or_insert((r.supplier_name, 0.0, 0));
        e.1 += r.value;
        organs.entry(o).or_insert(r.organ_label);
    }
    for ((_, s), _) in pairs.iter() {
        if let Some(e) = suppliers.get_mut(s) {
            e.2 += 1;
        }
    }
    let several = suppliers.values().filter(|e| e.2 > 1).count();
    let mut ranked: Vec<(&str, f64)> = suppliers.iter().map(|(k, e)| (*k, e.1)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    ranked.truncate(max_suppliers);
    let kept: HashMap<&str, ()> = ranked.iter().map(|(k, _)| (*k, ())).collect();
    let mut links: Vec<(&str, &str, f64, usize)> =
        pairs.iter().filter(|((_, s), _)| kept.contains_key(s)).map(|((o, s), (v, n))| (*o, *s, *v, *n)).collect();
    links.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(b.0)).then(a.1.cmp(b.1)));
    links.truncate(max_links);
    let mut organ_value: HashMap<&str, f64> = HashMap::new();
    let mut supplier_value: HashMap<&str, f64> = HashMap::new();
    for (o, s, v, _) in &links {
        *organ_value.entry(o).or_default() += v;
        *supplier_value.entry(s).or_default() += v;
    }
    let mut nodes: Vec<Node> = sorted(organ_value)
        .into_iter()
        .map(|(o, v)| Node {
            id: format!("organ:{o}"),
            label: organs.get(o).copied().filter(|l| !l.is_empty()).unwrap_or(o).to_string(),
            group: "organ",
            value: v,
        })
        .collect();
    nodes.extend(sorted(supplier_value).into_iter().map(|(s, v)| Node {
        id: format!("supplier:{s}"),
        label: suppliers.get(s).map_or(s, |e| e.0).to_string(),
        group: "supplier",
        value: v,
    }));
    let shown_value = links.iter().map(|l| l.2).sum();
    Network {
        nodes,
        links: links
            .into_iter()
            .map(|(o, s, value, count)| Link {
                source: format!("organ:{o}"),
                target: format!("supplier:{s}"),
                value,
                count,
            })
            .collect(),
        pairs_in_data: pairs.len(),
        suppliers_in_data: suppliers.len(),
        total_value,
        shown_value,
        suppliers_with_several_organs: several,
    }
}

fn sorted(m: HashMap<&str, f64>) -> Vec<(&str, f64)> {
    let mut v: Vec<(&str, f64)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(organ: &'a str, supplier: &'a str, value: f64) -> Row<'a> {
        super::super::aggregate::tests::row(organ, supplier, None, "", value)
    }

    #[test]
    fn the_network_keeps_the_largest_suppliers_and_its_node_values_match_the_links() {
        let rows = [
            row("O1", "s1", 100.0),
            row("O2", "s1", 40.0),
            row("O1", "s2", 30.0),
            row("O2", "s3", 5.0),
            row("O1", "s1", 10.0),
        ];
        let n = network(&rows, 2, 10);
        assert_eq!((n.pairs_in_data, n.suppliers_in_data, n.suppliers_with_several_organs), (4, 3, 1));
        assert_eq!(n.total_value, 185.0);
        assert_eq!(n.shown_value, 180.0);
        let ids: Vec<&str> = n.nodes.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, vec!["organ:O1", "organ:O2", "supplier:s1", "supplier:s2"]);
        assert_eq!(
            n.links[0],
            Link { source: "organ:O1".into(), target: "supplier:s1".into(), value: 110.0, count: 2 }
        );
        for group in ["organ", "supplier"] {
            let nodes: f64 = n.nodes.iter().filter(|x| x.group == group).map(|x| x.value).sum();
            assert_eq!(nodes, n.shown_value);
        }
        assert_eq!(network(&rows, 10, 1).links.len(), 1);
    }
}
