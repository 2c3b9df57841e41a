//! The CLI of CONTRACT.md, run as the real binary.

use std::collections::HashSet;
use std::process::{Command, Stdio};

use serde_json::Value;
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::upstream::contract_to_upstream;

fn vigia() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vigia"));
    c.env("VIGIA_CONFIG", "/dev/null").env_remove("TRANSPARENCY_API_KEY");
    c
}

#[test]
fn detect_reports_what_the_engine_finds_in_upstream_shaped_records_and_names_their_ids() {
    let data = generate(&DemoSpec { seed: 11, contracts: 3000, ..DemoSpec::default() });
    let records: Vec<Value> = data.dataset.contracts.iter().map(contract_to_upstream).collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("contratos.json");
    std::fs::write(&file, serde_json::to_string(&records).unwrap()).unwrap();
    let out = vigia().arg("detect").arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let anomalies = v["anomalies"].as_array().unwrap();
    assert_eq!(v["summary"]["total_anomalies"].as_u64().unwrap() as usize, anomalies.len());
    let named: HashSet<String> = anomalies
        .iter()
        .flat_map(|a| {
            let e = &a["affected_entities"];
            std::iter::once(e["primary"]["id"].as_str().unwrap().to_string())
                .chain(e["related"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()))
        })
        .collect();
    // Changed with issue [4]: the demo plants by the law, not to the detectors' thresholds, and
    // the upstream shape carries no items or amendments, so recall is measured by
    // examples/evaluate. Here `vigia detect` must report exactly what the engine finds on the
    // same records, and name planted records.
    let text = serde_json::to_string(&records).unwrap();
    let dataset = vigia_agents::records_from_text(&text).unwrap();
    let params = vigia_agents::DetectionParams::default();
    let (expected, _) = vigia_agents::engine::analyse(&dataset, &params, &vigia_agents::CancelFlag::new()).unwrap();
    let ids: Vec<&str> = anomalies.iter().map(|a| a["id"].as_str().unwrap()).collect();
    let expected_ids: Vec<&str> = expected.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, expected_ids);
    let planted_ids: Vec<&String> = data.planted.iter().flat_map(|p| p.record_ids.iter()).collect();
    assert!(planted_ids.iter().any(|id| named.contains(id.as_str())), "no planted record named");
}

#[test]
fn detect_reads_ndjson_from_stdin() {
    let data = generate(&DemoSpec { seed: 3, contracts: 300, ..DemoSpec::default() });
    let ndjson: String = data.dataset.contracts.iter().map(|c| format!("{}\n", contract_to_upstream(c))).collect();
    let mut child = vigia()
        .args(["detect", "-", "--types", "price_anomaly"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), ndjson.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["anomalies"].as_array().unwrap().iter().all(|a| a["type"] == "price_anomaly"));
}

#[test]
fn detect_rejects_bad_input_with_the_record_and_field_and_exit_status_two() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    std::fs::write(&file, r#"[{"id": 1, "valorInicialCompra": "muito"}]"#).unwrap();
    let out = vigia().arg("detect").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("valorInicialCompra") && err.contains("record 0"), "{err}");
    let out = vigia().args(["detect", "--types", "nonsense"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A `*_Compras.csv` of the Portal's monthly download, ISO-8859-1 as published, with `value`
/// as the final value of its one contract.
fn compras_csv(value: &str) -> Vec<u8> {
    let text = format!(
        "\"Número do Contrato\";\"Objeto\";\"Fundamento Legal\";\"Modalidade Compra\";\"Situação Contrato\";\"Código Órgão Superior\";\"Nome Órgão Superior\";\"Código Órgão\";\"Nome Órgão\";\"Código UG\";\"Nome UG\";\"Data Assinatura Contrato\";\"Data Publicação DOU\";\"Data Início Vigência\";\"Data Fim Vigência\";\"Código Contratado\";\"Nome Contratado\";\"Valor Inicial Compra\";\"Valor Final Compra\";\"Número Licitação\";\"Código UG Licitação\";\"Nome UG Licitação\";\"Código Modalidade Compra Licitação\";\"Modalidade Compra Licitação\"\n\
         \"000012024\";\"Objeto: LOCAÇÃO DE IMÓVEL\";\"\";\"Dispensa de Licitação\";\"Não se aplica\";\"26000\";\"Ministério da Educação\";\"26290\";\"INEP\";\"153978\";\"INEP\";\"05/01/2024\";\"10/01/2024\";\"05/01/2024\";\"04/01/2025\";\"00000000000191\";\"A LTDA\";\"120000,00\";\"{value}\";\"\";\"\";\"\";\"\";\"\"\n"
    );
    text.chars().map(|c| u8::try_from(u32::from(c)).unwrap()).collect()
}

#[test]
fn detect_reads_folders_and_files_of_mixed_formats_and_names_the_file_line_and_column_of_bad_cells() {
    let data = generate(&DemoSpec { seed: 5, contracts: 300, ..DemoSpec::default() });
    let records: Vec<Value> = data.dataset.contracts.iter().map(contract_to_upstream).collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("portal")).unwrap();
    std::fs::write(dir.path().join("portal/202401_Compras.csv"), compras_csv("150000,00")).unwrap();
    std::fs::write(dir.path().join("portal/README.md"), "notes").unwrap();
    let json = dir.path().join("contratos.json");
    std::fs::write(&json, serde_json::to_string(&records).unwrap()).unwrap();
    let out = vigia().arg("detect").arg(dir.path().join("portal")).arg(&json).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["anomalies"].is_array());

    std::fs::write(dir.path().join("portal/202401_Compras.csv"), compras_csv("muito")).unwrap();
    let out = vigia().arg("detect").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("202401_Compras.csv") && err.contains("line 2") && err.contains("Valor Final Compra"),
        "{err}"
    );
}

#[test]
fn investigate_prints_findings_of_known_detectors_and_is_identical_for_the_same_seed() {
    let run = || {
        let out = vigia()
            .args(["investigate", "contratos do Ministério da Saúde", "--json", "--records", "2000", "--seed", "42"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let (a, b) = (run(), run());
    let ids = |v: &Value| {
        v["anomalies"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(ids(&a), ids(&b));
    let detectors: HashSet<String> = a["anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["technical_details"]["detector"].as_str().unwrap().to_string())
        .collect();
    // Changed with issue [4]: which detectors fire on demo data is measured by
    // examples/evaluate; here the run is deterministic, reports findings and names its detectors.
    assert!(!detectors.is_empty());
    assert!(detectors.iter().all(|d| vigia_agents::detect::NAMES.contains(&d.as_str())));
    assert_eq!(a["metadata"]["demo_mode"], true);
}
