//! `/api/v1/transparency/*` on the real app: demo pages without a key; with a key, the
//! service's filters mapped to the Portal's parameters (and the key header) on a local
//! stand-in; the minimum value applied client-side; an upstream 400 as a validation error;
//! every upstream fault a `completed_fallback` page from the demo data; missing minimum filters
//! refused in the envelope before anything is sent.

use vigia_agents::model::upstream::parse_money;

use crate::federal_standin::{FAULTS, Fault, KEY, assert_fallback, assert_refused, get_json, stand_in};
use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn demo_pages_come_from_the_demo_data_in_the_upstream_shape_and_say_so() {
    let app = spawn_app().await;
    let (status, body) = get_json(&app, "/api/v1/transparency/contracts?codigo_orgao=36000&ano=2024&mes=3").await;
    assert_eq!(status, 200, "{body}");
    let meta = &body["meta"];
    assert_eq!((meta["source"].as_str(), meta["demo_mode"].as_bool()), (Some("demo_data"), Some(true)));
    assert!(meta["notice"].as_str().unwrap().starts_with("[DEMO]"));
    assert_eq!(meta["filters"]["dataInicial"], "01/03/2024");
    let rows = body["data"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.len() <= 15);
    assert!(rows.iter().all(|r| r["dataAssinatura"].as_str().unwrap().starts_with("2024-03")));
    assert!(rows.iter().all(|r| r["unidadeGestora"]["orgaoMaximo"]["codigo"] == "36000"));
    assert!(rows.iter().all(|r| r["objeto"].as_str().unwrap().starts_with("[DEMO] ")));
    // Demo grantees name their city only (most demo units sit in Brasília): the state is the
    // city's, as lampião places them.
    let (_, body) = get_json(&app, "/api/v1/transparency/agreements?uf=DF").await;
    let rows = body["data"].as_array().unwrap();
    assert!(!rows.is_empty(), "{body}");
    assert!(rows.iter().all(|a| a["municipioConvenente"]["nomeIBGE"] == "BRASILIA"));
    let (status, body) = get_json(&app, "/api/v1/transparency/expenses?data=2024-05-02&fase=1&gestao=00001").await;
    assert_eq!((status, body["meta"]["demo_mode"].as_bool()), (200, Some(true)));
}

#[tokio::test]
async fn missing_minimum_filters_are_refused_in_the_envelope_and_nothing_is_sent() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    assert_refused(
        &s,
        &app,
        &[
            ("/api/v1/transparency/contracts?ano=2024", "codigo_orgao"),
            ("/api/v1/transparency/contracts?codigo_orgao=360", "codigo_orgao"),
            ("/api/v1/transparency/contracts?codigo_orgao=36000&mes=4", "mes"),
            ("/api/v1/transparency/contracts?codigo_orgao=36000&pagina=0", "pagina"),
            ("/api/v1/transparency/contracts?codigo_orgao=36000&valor_inicial=-5", "valor_inicial"),
            ("/api/v1/transparency/expenses?fase=1&gestao=00001", "data"),
            ("/api/v1/transparency/expenses?data=2025-01-01&gestao=00001", "fase"),
            ("/api/v1/transparency/expenses?data=2025-01-01&fase=9&gestao=00001", "fase"),
            ("/api/v1/transparency/expenses?data=2025-01-01&fase=1", "unidade_gestora"),
            ("/api/v1/transparency/agreements?ano=2024", "uf"),
            ("/api/v1/transparency/agreements?uf=Minas", "uf"),
        ],
    )
    .await;
}

#[tokio::test]
async fn filters_become_the_portals_parameters_and_the_key_travels_only_in_its_header() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    let (status, body) =
        get_json(&app, "/api/v1/transparency/contracts?codigo_orgao=36000&ano=2024&mes=2&pagina=2").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["meta"]["source"].as_str(), body["meta"]["data_status"].as_str()),
        (Some("portal_transparencia_api"), Some("completed"))
    );
    assert_eq!(body["data"].as_array().unwrap().len(), 15);
    let seen = &s.requests("/contratos")[0];
    assert_eq!(seen.key.as_deref(), Some(KEY));
    let q = |k: &str| seen.query.get(k).cloned();
    assert_eq!(
        (q("codigoOrgao"), q("dataInicial"), q("dataFinal"), q("pagina")),
        (Some("36000".into()), Some("01/02/2024".into()), Some("29/02/2024".into()), Some("2".into()))
    );
    // The minimum value is applied to the page's records.
    let (_, body) =
        get_json(&app, "/api/v1/transparency/contracts?codigo_orgao=36000&ano=2024&valor_inicial=100000").await;
    let rows = body["data"].as_array().unwrap();
    assert!(rows.iter().all(|r| parse_money(&r["valorInicialCompra"]).unwrap() >= 100_000.0));
    assert_eq!(body["meta"]["upstream_count"], 15);
    let (_, _) =
        get_json(&app, "/api/v1/transparency/expenses?data=2025-01-01&fase=pagamento&unidade_gestora=257001").await;
    let q = &s.requests("/despesas/documentos")[0].query;
    assert_eq!(
        (q["dataEmissao"].as_str(), q["fase"].as_str(), q["unidadeGestora"].as_str()),
        ("01/01/2025", "3", "257001")
    );
    let (_, body) =
        get_json(&app, "/api/v1/transparency/agreements?uf=mg&ano=2024&situacao=EM%20EXECU%C3%87%C3%83O").await;
    assert_eq!(body["meta"]["source"], "portal_transparencia_api");
    let q = &s.requests("/convenios")[0].query;
    assert_eq!(
        (q["uf"].as_str(), q["dataInicial"].as_str(), q["situacao"].as_str()),
        ("MG", "01/01/2024", "EM EXECUÇÃO")
    );
    assert!(!body.to_string().contains(KEY));
}

#[tokio::test]
async fn an_upstream_400_is_a_validation_error_and_every_fault_falls_back_to_demo_data() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    s.set(Fault::BadRequest);
    let (status, body) = get_json(&app, "/api/v1/transparency/agreements?numero=123").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "VALIDATION_ERROR");
    assert_eq!(body["error"]["details"]["upstream_status"], 400);
    assert!(body["error"]["message"].as_str().unwrap().contains("Filtros mínimos"));
    for (fault, class) in FAULTS {
        s.set(fault);
        let body = assert_fallback(&app, "/api/v1/transparency/contracts?codigo_orgao=36000&ano=2024", class).await;
        assert!(!body["data"].as_array().unwrap().is_empty(), "{fault:?}: the demo page has records");
    }
}

#[tokio::test]
async fn demo_pages_of_one_organ_and_year_come_from_one_generation() {
    let app = spawn_app().await;
    let path = "/api/v1/transparency/contracts?codigo_orgao=36000&ano=2024&mes=3";
    let (_, first) = get_json(&app, path).await;
    let (_, again) = get_json(&app, path).await;
    assert_eq!(first["data"], again["data"]);
    let (a, b) = (&first["meta"]["demo_cache"], &again["meta"]["demo_cache"]);
    assert_eq!((a["hit"].as_bool(), b["hit"].as_bool()), (Some(false), Some(true)), "{a} {b}");
    assert_eq!(a["generations"], b["generations"]);
    // Another month of the same organ and year filters the same generated data.
    let (_, april) = get_json(&app, "/api/v1/transparency/contracts?codigo_orgao=36000&ano=2024&mes=4").await;
    assert_eq!(
        (april["meta"]["demo_cache"]["hit"].as_bool(), &april["meta"]["demo_cache"]["generations"]),
        (Some(true), &b["generations"])
    );
    assert!(b["bytes"].as_u64().unwrap() > 0 && b["entries"] == 1, "{b}");
}
