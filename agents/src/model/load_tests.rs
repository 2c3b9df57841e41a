//! Loading files and folders of every recognised format.

use std::path::PathBuf;

use serde_json::json;

use super::*;
use crate::model::amendment::AmendmentKind;
use crate::model::contratos_gov::tests as gov;
use crate::model::portal_compras::tests as compras;

/// A fresh folder under the system's temporary folder, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!("vigia-load-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Folder(dir)
    }
    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn latin1(text: &str) -> Vec<u8> {
    encoding_rs::WINDOWS_1252.encode(text).0.into_owned()
}

#[test]
fn a_portal_download_folder_is_read_whole_and_notes_and_unknown_tables_are_skipped() {
    let f = Folder::new("portal");
    f.write("202401_Compras.csv", &latin1(&compras::compras_text()));
    f.write("202401_ItemCompra.csv", &latin1(compras::ITEMS_TEXT));
    f.write("sub/202401_TermoAditivo.csv", &latin1(compras::ADITIVOS_TEXT));
    f.write("README.md", b"# notes");
    f.write("other.csv", b"\"a\";\"b\"\n\"1\";\"2\"\n");
    let loaded = load_paths(std::slice::from_ref(&f.0)).unwrap();
    let ds = &loaded.dataset;
    assert_eq!(ds.contracts.len(), 4);
    assert_eq!(&*ds.contracts[0].object, "Informação protegida por sigilo nos termos da legislação vigente");
    assert_eq!(ds.contracts[1].amendments.len(), 2);
    assert_eq!(loaded.files.len(), 3);
    assert_eq!(loaded.skipped.len(), 1);
    assert!(loaded.skipped[0].0.ends_with("other.csv"));
    assert_eq!(loaded.unjoined, 1);
}

#[test]
fn contratos_gov_contracts_get_their_histories_and_empenhos_are_skipped() {
    let f = Folder::new("gov");
    f.write("contratos.json", json!([gov::dpu_contract()]).to_string().as_bytes());
    f.write("historicos.json", json!({"5639": gov::dpu_history(), "1": []}).to_string().as_bytes());
    let empenhos = json!({"5639": [{"id": 1, "numero": "2019NE800153", "credor": "X", "empenhado": "0,00"}]});
    f.write("empenhos.json", empenhos.to_string().as_bytes());
    let loaded = load_paths(std::slice::from_ref(&f.0)).unwrap();
    let c = &loaded.dataset.contracts[0];
    assert_eq!(c.amendments.len(), 3);
    assert_eq!(c.amendments[1].kinds, vec![AmendmentKind::Extension]);
    assert_eq!(loaded.skipped.len(), 1);
    assert_eq!(loaded.unjoined, 1);
}

#[test]
fn portal_api_json_and_pncp_pages_are_read_and_ids_kept_unique() {
    let f = Folder::new("api");
    let a = f.write("a.json", br#"[{"id": 7, "valorInicialCompra": 10.5}]"#);
    let b = f.write("b.ndjson", b"{\"id\": 7, \"valorInicialCompra\": 11}\n");
    let p = f.write("pncp.json", crate::model::pncp::sample_page().to_string().as_bytes());
    let loaded = load_paths(&[a, b, p]).unwrap();
    let ids: Vec<&str> = loaded.dataset.contracts.iter().map(|c| &*c.id).collect();
    assert_eq!(ids, vec!["7", "7-2", "43052497000102-2-000069/2026"]);
}

#[test]
fn errors_name_the_file_the_record_and_the_field() {
    let f = Folder::new("errors");
    let bad = f.write("bad.json", br#"[{"id": 1, "valorInicialCompra": "muito"}]"#);
    let e = load_path(&bad).unwrap_err();
    assert_eq!((e.record.as_deref(), e.field.as_deref()), (Some("record 0 (id 1)"), Some("valorInicialCompra")));
    assert!(e.to_string().contains("bad.json"));
    let text = compras::compras_text().replace("\"2588,9700\";\"2588,9700\"", "\"2588,9700\";\"muito\"");
    let csv = f.write("202401_Compras.csv", &latin1(&text));
    let e = load_path(&csv).unwrap_err();
    assert_eq!((e.record.as_deref(), e.field.as_deref()), (Some("line 2"), Some("Valor Final Compra")));
    let unknown = f.write("cidades.json", br#"[{"id": 1100015, "nome": "Alta Floresta D'Oeste"}]"#);
    assert!(load_path(&unknown).is_err());
    assert!(load_path(&f.0.join("missing.json")).unwrap_err().message.contains("cannot read"));
}

#[test]
fn documents_are_digits_when_they_are_cpfs_or_cnpjs_and_kept_as_given_otherwise() {
    assert_eq!(document_as_given(" 27.304.445/0001-11 "), "27304445000111");
    assert_eq!(document_as_given("050.841.642-68"), "05084164268");
    assert_eq!(document_as_given("***.123.456-**"), "***.123.456-**");
    assert_eq!(document_as_given("-11"), "-11");
    assert_eq!(document_as_given("806030"), "806030");
    assert_eq!(document_as_given("ESTRANGEIRO_US_ARMY_CORPS_OF_ENGINEERS"), "ESTRANGEIRO_US_ARMY_CORPS_OF_ENGINEERS");
}

/// The real calibration records, when the checkout has them (`../shared/real`).
fn real(folder: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/real").join(folder);
    p.is_dir().then_some(p)
}

#[test]
fn the_real_portal_download_of_2024_01_reads_every_contract_item_and_aditivo() {
    let Some(dir) = real("portal-compras-202401") else { return };
    let loaded = load_paths(&[dir]).unwrap();
    let ds = &loaded.dataset;
    assert_eq!(ds.contracts.len(), 2581);
    let items: usize = ds.contracts.iter().map(|c| c.items.len()).sum();
    let amendments: usize = ds.contracts.iter().map(|c| c.amendments.len()).sum();
    assert_eq!(items + amendments + loaded.unjoined, 8506 + 527);
    assert_eq!(ds.contracts.iter().filter(|c| &*c.supplier.name == "Sigiloso").count(), 72);
}

#[test]
fn the_real_dpu_contracts_read_with_their_histories() {
    let (Some(contracts), Some(histories)) = (real("contratos-gov-br"), real("contratos-gov-br-dpu-historicos")) else {
        return;
    };
    let loaded = load_paths(&[contracts, histories]).unwrap();
    assert_eq!(loaded.dataset.contracts.len(), 1208 - 36);
    let with_history = loaded.dataset.contracts.iter().filter(|c| !c.amendments.is_empty()).count();
    // 273 contracts have a termo aditivo, apostilamento or rescisão; 6 of them are revenue.
    assert_eq!(with_history, 267);
}

#[test]
fn the_other_real_sources_read_whole() {
    let expect = [
        ("portal-api-licitacoes", "biddings", 9),
        ("portal-download-despesas-20250101", "expenses", 36),
        ("pncp", "contracts", 2),
    ];
    for (folder, kind, n) in expect {
        let Some(dir) = real(folder) else { continue };
        let loaded = load_paths(&[dir]).unwrap();
        let ds = &loaded.dataset;
        let got = match kind {
            "biddings" => ds.biddings.len(),
            "expenses" => ds.expenses.len(),
            _ => ds.contracts.len(),
        };
        assert_eq!((folder, got, ds.spending_len()), (folder, n, n));
    }
}
