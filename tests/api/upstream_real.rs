//! The Must-hold of issue [7]: the stand-in serves the real records of ../shared/real (the
//! January 2024 contracts with their termos aditivos, the May 2024 licitações as the API
//! answered them, the CEIS and CNEP lists); an investigation in production mode reads every
//! kind, says how much it analysed, and finds exactly what the engine behind `vigia detect`
//! finds in the same records.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use chrono::NaiveDate;
use serde_json::{Value, json};
use vigia_agents::model::amendment_upstream::{amendment_from_upstream, amendment_to_upstream};
use vigia_agents::model::bidding::bidding_from_upstream;
use vigia_agents::model::load::load_paths;
use vigia_agents::model::sanction::{sanction_from_upstream, sanction_to_upstream};
use vigia_agents::model::upstream::{contract_from_upstream, contract_to_upstream};
use vigia_agents::{CancelFlag, Dataset, DetectionParams};

use crate::helpers::{TestApp, spawn_app_with};
use crate::upstream_faults::finish;
use crate::upstream_stand_in::{KEY, Records, in_period, of_organ, stand_in};

/// Organs with contracts in the January 2024 download: Educação (1,349 contracts) and two
/// with licitações in May 2024 as well.
const ORGANS: [&str; 3] = ["26000", "32000", "46000"];

fn real(folder: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/real").join(folder);
    p.is_dir().then_some(p)
}

/// The real records in the upstream's shapes, or `None` when the checkout has none.
fn real_records() -> Option<Records> {
    let (compras, licitacoes, sancoes) = (
        real("portal-compras-202401")?,
        real("portal-api-licitacoes")?,
        real("sancoes/ceis-2018-dirty-brazilian-companies")?,
    );
    let cnep = real("sancoes/cnep-2021-ta-de-pe")?;
    let ds = load_paths(&[compras, sancoes, cnep]).unwrap().dataset;
    let mut records = Records::default();
    for c in &ds.contracts {
        let aditivos: Vec<Value> = c
            .amendments
            .iter()
            .filter(|a| a.instrument.as_str() == "Termo Aditivo")
            .map(amendment_to_upstream)
            .collect();
        if !aditivos.is_empty() {
            records.amendments.insert(c.id.to_string(), aditivos);
        }
        records.contracts.push(contract_to_upstream(c));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(licitacoes).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        records.biddings.extend(rows);
    }
    for s in &ds.sanctions {
        let row = sanction_to_upstream(s);
        if s.register == "CNEP" { records.cnep.push(row) } else { records.ceis.push(row) }
    }
    Some(records)
}

/// What the investigation should analyse: exactly what the stand-in serves for the organs in
/// 2024, read by the same normalisers `vigia detect` uses.
fn served(r: &Records) -> Dataset {
    let (from, to) = (NaiveDate::from_ymd_opt(2024, 1, 1), NaiveDate::from_ymd_opt(2024, 12, 31));
    let mut ds = Dataset::default();
    for organ in ORGANS {
        for row in r.contracts.iter().filter(|c| of_organ(c, organ) && in_period(c, "dataAssinatura", from, to)) {
            let mut c = contract_from_upstream(0, row).unwrap();
            for a in r.amendments.get(c.id.as_str()).into_iter().flatten() {
                c.amendments.push(amendment_from_upstream(0, a).unwrap());
            }
            ds.contracts.push(c);
        }
        for row in r.biddings.iter().filter(|b| of_organ(b, organ) && in_period(b, "dataAbertura", from, to)) {
            let mut row = row.clone();
            row["participantes"] = json!([]);
            ds.biddings.push(bidding_from_upstream(0, &row).unwrap());
        }
    }
    for row in r.ceis.iter().chain(&r.cnep) {
        ds.sanctions.push(sanction_from_upstream(0, row).unwrap());
    }
    ds
}

async fn app_over(url: String, record_budget: usize) -> TestApp {
    spawn_app_with(|c| {
        c.upstream.api_url = url;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.requests_per_minute = 600_000;
        c.upstream.record_budget = record_budget;
        // Enough for every page and aditivo of the contracts (45 %) and the licitações (25 %);
        // despesas, a request per day and managing unit, are cut by it (and say so).
        c.upstream.request_budget = 4_000;
    })
    .await
}

/// Waits for the sanctions refresh that starts with the app.
async fn sanctions_read(app: &TestApp) -> u64 {
    for _ in 0..2400 {
        let h: Value = app.get("/health/detailed").await.json().await.unwrap();
        if let Some(n) = h["components"]["upstream"]["sanctions"]["records"].as_u64().filter(|n| *n > 0) {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the sanctions lists were never read");
}

fn request() -> Value {
    json!({
        "query": "contratos e licitações de 2024",
        "data_source": "portal_transparencia",
        "filters": {"organizations": ORGANS},
    })
}

#[tokio::test]
async fn an_investigation_over_the_real_records_reads_every_kind_and_finds_what_detect_finds() {
    let Some(records) = real_records() else { return };
    let expected_ds = served(&records);
    assert!(expected_ds.contracts.iter().any(|c| !c.amendments.is_empty()), "some served contract has aditivos");
    assert!(!expected_ds.biddings.is_empty() && !expected_ds.sanctions.is_empty());
    let (url, stand) = stand_in(records).await;
    let app = app_over(url, 50_000).await;
    let sanctions = sanctions_read(&app).await;
    assert_eq!(sanctions as usize, expected_ds.sanctions.len());
    let id = app.start(request()).await;
    let (s, _) = finish(&app, &id, Duration::from_secs(120)).await;
    assert_eq!(
        (s["status"].as_str(), s["metadata"]["data_status"].as_str()),
        (Some("completed"), Some("completed")),
        "{s}"
    );
    let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    let m = &v["metadata"];
    assert_eq!(
        (m["source"].as_str(), m["demo_mode"].as_bool()),
        (Some("portal_transparencia_api"), Some(false)),
        "{m}"
    );
    // Honest truncation: the request budget cut the despesas (a request per day and unit) to
    // a sample of days and says which; contracts, aditivos and licitações were read to their
    // end.
    let notes: Vec<&str> = m["data_notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(m["truncated"], true, "{m}");
    assert!(
        notes.iter().any(|n| n.starts_with("despesas (empenhos) read for") && n.contains("of the 366 days")),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|n| n.contains("aditivos") || n.contains("participants")), "{notes:?}");
    assert_eq!(m["total_records_analyzed"].as_u64().unwrap() as usize, expected_ds.len(), "{m}");
    assert_eq!(m["records_available"].as_u64().unwrap() as usize, expected_ds.len(), "{m}");
    for path in [
        "/contratos",
        "/contratos/termo-aditivo",
        "/licitacoes",
        "/licitacoes/participantes",
        "/convenios",
        "/despesas/documentos",
        "/ceis",
        "/cnep",
    ] {
        assert!(stand.requests_to(path) > 0, "{path} was not read");
    }
    let (expected, _) =
        vigia_agents::engine::analyse(&expected_ds, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    let want: BTreeSet<String> = expected.iter().map(|a| a.id.clone()).collect();
    let got: BTreeSet<String> =
        v["anomalies"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_string()).collect();
    assert!(!want.is_empty(), "the real records have findings");
    assert_eq!(got, want, "the investigation finds what the engine finds in the same records");
}

#[tokio::test]
async fn a_record_budget_smaller_than_the_data_is_reported_as_truncated() {
    let Some(records) = real_records() else { return };
    let available = served(&records).contracts.len();
    let (url, _stand) = stand_in(records).await;
    // Contracts get half the budget: 40 of the organs' contracts.
    let app = app_over(url, 80).await;
    sanctions_read(&app).await;
    let id = app.start(request()).await;
    let (s, _) = finish(&app, &id, Duration::from_secs(120)).await;
    assert_eq!(s["metadata"]["truncated"], true, "{s}");
    let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    let m = &v["metadata"];
    assert_eq!(m["truncated"], true);
    assert!(m["records_available"].as_u64().unwrap() > m["total_records_analyzed"].as_u64().unwrap(), "{m}");
    assert!(available > 40, "the organs have more contracts than the budget");
    assert!(v["warning"].as_str().unwrap().contains("budget"), "{v}");
}
