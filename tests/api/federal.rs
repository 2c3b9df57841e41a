//! `/api/v1/federal/*` on the real app: demo mode from the offline IBGE table without a key;
//! production against the local stand-in (IBGE, PNCP's real page, CNES, INEP's catalogue) with
//! parameters mapped, 204 as an empty page, the cache on repeat; every fault class ending in
//! `completed_fallback` within the timeout budget; bad input in the error envelope; and
//! lampião's population coming from IBGE in production.

use serde_json::{Value, json};

use crate::federal_standin::{FAULTS, assert_fallback, assert_refused, get_json, served_state_population, stand_in};
use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn without_a_key_the_offline_table_answers_in_demo_mode() {
    let app = spawn_app().await;
    let (status, body) = get_json(&app, "/api/v1/federal/ibge/demographics").await;
    assert_eq!(status, 200, "{body}");
    let meta = &body["meta"];
    assert_eq!((meta["source"].as_str(), meta["demo_mode"].as_bool()), (Some("ibge_offline_table"), Some(true)));
    assert_eq!(meta["data_status"], "completed");
    assert!(meta["population_source"].as_str().unwrap().contains("transcritas à mão"));
    let places = body["data"]["places"].as_array().unwrap();
    assert_eq!(places.len(), 27);
    let total: u64 = places.iter().map(|p| p["population"].as_u64().unwrap()).sum();
    assert_eq!(total, 203_080_756);
    let mg = places.iter().find(|p| p["uf"] == "MG").unwrap();
    assert_eq!((mg["code"].as_u64(), mg["region"].as_str()), (Some(31), Some("SE")));
    // A state's municipalities come from the table, without populations it does not have.
    let (_, body) = get_json(&app, "/api/v1/federal/ibge/demographics?uf=mg").await;
    let places = body["data"]["places"].as_array().unwrap();
    assert_eq!(places.len(), 853);
    assert!(places.iter().all(|p| p["population"].is_null()));
    // PNCP in demo mode: demo contracts in PNCP's shape, flagged.
    let (status, body) =
        get_json(&app, "/api/v1/federal/pncp/contracts?data_inicial=2024-03-01&data_final=2024-03-31").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["meta"]["source"].as_str(), body["meta"]["demo_mode"].as_bool()), (Some("demo_data"), Some(true)));
    let rows = body["data"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.len() <= 10);
    assert!(rows.iter().all(|r| r["objetoContrato"].as_str().unwrap().starts_with("[DEMO]")));
    let (_, body) = get_json(&app, "/api/v1/federal/datasus/health-metrics?municipio=3106200").await;
    assert_eq!(
        (body["data"]["available"].as_bool(), body["data"]["place"]["name"].as_str()),
        (Some(false), Some("Belo Horizonte"))
    );
    let (_, body) = get_json(&app, "/api/v1/federal/inep/education-stats").await;
    assert_eq!(body["meta"]["demo_mode"], true);
}

#[tokio::test]
async fn bad_filters_are_validation_errors_in_the_envelope_before_any_upstream_call() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    assert_refused(
        &s,
        &app,
        &[
            ("/api/v1/federal/pncp/contracts?data_inicial=2023-01-01&data_final=2024-06-30", "data_final"),
            ("/api/v1/federal/pncp/contracts?data_inicial=2024-02-01&data_final=2024-01-01", "data_final"),
            ("/api/v1/federal/pncp/contracts?data_inicial=ontem", "data_inicial"),
            ("/api/v1/federal/pncp/contracts?tamanho_pagina=5", "tamanho_pagina"),
            ("/api/v1/federal/ibge/demographics?uf=XX", "uf"),
            ("/api/v1/federal/ibge/demographics?municipio=123", "municipio"),
            ("/api/v1/federal/ibge/demographics?ano=1800", "ano"),
            ("/api/v1/federal/datasus/health-metrics", "uf"),
            ("/api/v1/federal/inep/education-stats?limite=500", "limite"),
        ],
    )
    .await;
}

#[tokio::test]
async fn ibge_population_comes_from_the_aggregates_api_and_repeats_from_the_cache() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    let (status, body) = get_json(&app, "/api/v1/federal/ibge/demographics").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["meta"]["source"].as_str(), body["meta"]["demo_mode"].as_bool()), (Some("ibge_api"), Some(false)));
    assert_eq!(body["meta"]["cache_hit"], false);
    let places = body["data"]["places"].as_array().unwrap();
    let mg = places.iter().find(|p| p["uf"] == "MG").unwrap();
    assert_eq!((mg["population"].as_u64(), mg["year"].as_i64()), (Some(served_state_population("MG")), Some(2024)));
    let asked = s.requests("/api/v3/agregados/6579/periodos/-1/variaveis/9324");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].query.get("localidades").map(String::as_str), Some("N3[all]"));
    let (_, again) = get_json(&app, "/api/v1/federal/ibge/demographics").await;
    assert_eq!(again["meta"]["cache_hit"], true);
    assert_eq!(s.requests("/api/v3/").len(), 1, "the repeat was served from the cache");
    // A state's municipalities: localidades for the list, aggregates N6 within N3[31].
    let (_, body) = get_json(&app, "/api/v1/federal/ibge/demographics?uf=MG&ano=2024").await;
    let places = body["data"]["places"].as_array().unwrap();
    assert_eq!((places.len(), body["meta"]["source"].as_str()), (853, Some("ibge_api")));
    let bh = places.iter().find(|p| p["code"] == 3106200).unwrap();
    assert_eq!((bh["name"].as_str(), bh["population"].as_u64()), (Some("Belo Horizonte"), Some(10_200)));
    let asked = s.requests("/api/v3/agregados/6579/periodos/2024/");
    assert_eq!(asked[0].query.get("localidades").map(String::as_str), Some("N6[N3[31]]"));
    assert_eq!(s.requests("/api/v1/localidades/estados/MG/municipios").len(), 1);
}

#[tokio::test]
async fn pncp_contracts_are_the_real_page_with_its_envelope_and_a_204_is_an_empty_page() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    let (status, body) =
        get_json(&app, "/api/v1/federal/pncp/contracts?data_inicial=2026-06-01&data_final=2026-07-31&pagina=1&tamanho_pagina=50&cnpj_orgao=43052497000102").await;
    assert_eq!(status, 200, "{body}");
    let meta = &body["meta"];
    assert_eq!((meta["source"].as_str(), meta["data_status"].as_str()), (Some("pncp_api"), Some("completed")));
    assert_eq!(
        (meta["total_records"].as_u64(), meta["total_pages"].as_u64(), meta["remaining_pages"].as_u64()),
        (Some(52), Some(6), Some(5))
    );
    assert_eq!(body["data"][1]["numeroControlePNCP"], "43052497000102-2-000069/2026");
    let q = &s.requests("/v1/contratos")[0].query;
    let sent = |k: &str| q.get(k).map(String::as_str);
    assert_eq!(
        (sent("dataInicial"), sent("dataFinal"), sent("pagina"), sent("tamanhoPagina")),
        (Some("20260601"), Some("20260731"), Some("1"), Some("50"))
    );
    assert_eq!(sent("cnpjOrgao"), Some("43052497000102"));
    let (status, body) =
        get_json(&app, "/api/v1/federal/pncp/contracts?data_inicial=2020-01-01&data_final=2020-01-31").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["data"].as_array().map(Vec::len), body["meta"]["total_records"].as_u64()), (Some(0), Some(0)));
    assert_eq!(body["meta"]["data_status"], "completed");
}

#[tokio::test]
async fn datasus_and_inep_answer_from_their_apis_with_the_parameters_mapped() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    let (_, body) = get_json(&app, "/api/v1/federal/datasus/health-metrics?municipio=3106200&pagina=2").await;
    assert_eq!(body["meta"]["source"], "datasus_cnes_api");
    assert_eq!(body["data"]["by_unit_type"], json!({"2": 1, "5": 1}));
    let q = &s.requests("/cnes/estabelecimentos")[0].query;
    assert_eq!((q["codigo_municipio"].as_str(), q["limit"].as_str(), q["offset"].as_str()), ("310620", "20", "20"));
    let (_, body) = get_json(&app, "/api/v1/federal/datasus/health-metrics?uf=MG").await;
    assert_eq!(body["data"]["place"]["code"], 31);
    assert_eq!(s.requests("/cnes/estabelecimentos")[1].query["codigo_uf"], "31");
    let (_, body) = get_json(&app, "/api/v1/federal/inep/education-stats?tema=ideb&limite=5").await;
    assert_eq!((body["meta"]["source"].as_str(), body["meta"]["total"].as_u64()), (Some("inep_catalogue"), Some(12)));
    assert_eq!(body["data"]["datasets"][0]["resources"][0]["format"], "ZIP");
    let q = &s.requests("/api/3/action/package_search")[0].query;
    assert_eq!((q["fq"].as_str(), q["q"].as_str(), q["rows"].as_str()), ("organization:inep", "ideb", "5"));
}

#[tokio::test]
async fn every_fault_of_a_federal_source_ends_in_completed_fallback_within_the_timeout_budget() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    for (fault, class) in FAULTS {
        s.set(fault);
        // Failures are not cached: each request reaches the stand-in again.
        for path in [
            "/api/v1/federal/ibge/demographics?ano=2023",
            "/api/v1/federal/pncp/contracts?data_inicial=2024-01-01&data_final=2024-01-31",
            "/api/v1/federal/datasus/health-metrics?uf=SP",
            "/api/v1/federal/inep/education-stats?tema=enem",
        ] {
            assert_fallback(&app, path, class).await;
        }
    }
}

#[tokio::test]
async fn lampiao_and_dandara_read_ibge_figures_in_production_and_the_offline_table_in_demo() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    let body = json!({"orgao": "36000", "ano": 2024});
    let r = app.post_signed("/api/v1/agents/lampiao/investigate", &body).await;
    let answer: Value = r.json().await.unwrap();
    assert_eq!(answer["source"], "portal_transparencia_api", "{answer}");
    let content = &answer["artifacts"][0]["content"];
    assert_eq!(content["population_fetched"], true, "{content}");
    assert!(content["population_source"].as_str().unwrap().starts_with("IBGE API, agregado 6579"));
    let mg = content["states"].as_array().unwrap().iter().find(|s| s["uf"] == "MG").unwrap();
    assert_eq!(mg["population"].as_u64(), Some(served_state_population("MG")));
    // Dandara, on the same production data, ranks the money against IBGE's literacy rate.
    let answer: Value = app.post_signed("/api/v1/agents/dandara/investigate", &body).await.json().await.unwrap();
    let services = &answer["artifacts"][0]["content"]["services"];
    assert_eq!(
        (services[0]["key"].as_str(), services[0]["states"].as_u64()),
        (Some("literacy_rate"), Some(27)),
        "{answer}"
    );
    assert!(services[0]["spearman"].as_f64().is_some_and(|r| (-1.0..=1.0).contains(&r)));
    assert!(answer["insights"].to_string().contains("taxa de alfabetização"));
    let demo = spawn_app().await;
    let answer: Value = demo.post_signed("/api/v1/agents/lampiao/investigate", &body).await.json().await.unwrap();
    let content = &answer["artifacts"][0]["content"];
    assert_eq!(content["population_fetched"], false);
    let mg = content["states"].as_array().unwrap().iter().find(|s| s["uf"] == "MG").unwrap();
    assert_eq!(mg["population"].as_u64(), Some(20_539_989));
}

#[tokio::test]
async fn the_regional_facts_carry_ibge_population_by_state_and_municipality_and_the_literacy_rate() {
    use vigia::upstream::federal::FederalSources;
    use vigia::upstream::federal::regional::regional_facts;
    let s = stand_in().await;
    let mut cfg = vigia::config::Config::default();
    s.configure(&mut cfg);
    let portal = std::sync::Arc::new(vigia::upstream::TransparencyClient::new(&cfg.upstream).unwrap());
    let sources = FederalSources::new(&cfg.upstream, &cfg.federal, Some(portal)).unwrap().unwrap();
    let facts = regional_facts(&sources.ibge).await.unwrap();
    assert_eq!((facts.state_population.len(), facts.municipal_population.len()), (27, 5570));
    assert_eq!(facts.state("MG"), Some(served_state_population("MG")));
    assert_eq!(facts.municipality(3106200), Some(10_200));
    assert_eq!(facts.population_year, Some(2024));
    let lit = &facts.indicators[0];
    assert_eq!((lit.key.as_str(), lit.rate, lit.by_state.len()), ("literacy_rate", true, 27));
    assert_eq!(lit.by_state["MG"], crate::federal_standin::served_literacy(31));
    let q = &s.requests("/api/v3/agregados/9543/")[0].query;
    assert_eq!((q["localidades"].as_str(), q["classificacao"].as_str()), ("N3[all]", "2[6794]|86[95251]|287[100362]"));
    // Once fetched, the figures come from the client's cache even while IBGE fails.
    s.set(crate::federal_standin::Fault::Unavailable);
    let again = regional_facts(&sources.ibge).await.unwrap();
    assert_eq!(again.indicators.len(), 1, "served from the cache");
}

/// The federal component of `/health/detailed`, and one of its sources by name.
async fn federal_health(app: &crate::helpers::TestApp, name: &str) -> (Value, Value) {
    let text = app.get("/health/detailed").await.text().await.unwrap();
    assert!(!text.contains(crate::federal_standin::KEY), "the key never reaches health");
    let h: Value = serde_json::from_str(&text).unwrap();
    let federal = h["components"]["federal"].clone();
    let source = federal["sources"].as_array().unwrap().iter().find(|s| s["name"] == name).cloned().unwrap();
    (federal, source)
}

#[tokio::test]
async fn health_lists_the_federal_sources_and_shows_a_failing_one_until_it_answers_again() {
    let s = stand_in().await;
    let app = spawn_app_with(|c| s.configure(c)).await;
    let (federal, ibge) = federal_health(&app, "ibge").await;
    let names: Vec<&str> = federal["sources"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ibge", "pncp", "datasus", "inep"]);
    assert_eq!((federal["status"].as_str(), ibge["mode"].as_str()), (Some("healthy"), Some("production")));
    assert_eq!(ibge["host"].as_str(), s.url.strip_prefix("http://"), "the host only: {ibge}");
    assert!(ibge["last_success"].is_null() && ibge["last_error_class"].is_null());
    s.set(crate::federal_standin::Fault::Unavailable);
    assert_fallback(&app, "/api/v1/federal/ibge/demographics?ano=2023", "server_error").await;
    let (federal, ibge) = federal_health(&app, "ibge").await;
    assert_eq!((ibge["status"].as_str(), ibge["last_error_class"].as_str()), (Some("unhealthy"), Some("server_error")));
    assert_eq!(federal["status"], "degraded");
    let (_, pncp) = federal_health(&app, "pncp").await;
    assert!(pncp["last_error_class"].is_null(), "only the source that failed: {pncp}");
    s.set(crate::federal_standin::Fault::None);
    for _ in 0..2 {
        let (status, body) = get_json(&app, "/api/v1/federal/ibge/demographics?ano=2023").await;
        assert_eq!((status, body["meta"]["data_status"].as_str()), (200, Some("completed")), "{body}");
    }
    let (federal, ibge) = federal_health(&app, "ibge").await;
    assert_eq!((federal["status"].as_str(), ibge["status"].as_str()), (Some("healthy"), Some("healthy")));
    assert!(ibge["last_success"].is_string() && ibge["last_error_class"] == "server_error", "{ibge}");
    let cache = &ibge["cache"];
    assert!(cache["entries"].as_u64().unwrap() >= 1 && cache["bytes"].as_u64().unwrap() > 0, "{cache}");
    assert!(cache["hits"].as_u64().unwrap() >= 1 && cache["misses"].as_u64().unwrap() >= 2, "{cache}");
}

#[tokio::test]
async fn a_repeated_demo_pncp_request_is_the_same_data_without_generating_it_again() {
    let app = spawn_app().await;
    let path = "/api/v1/federal/pncp/contracts?data_inicial=2024-03-01&data_final=2024-03-31";
    let (_, first) = get_json(&app, path).await;
    let (_, second) = get_json(&app, path).await;
    assert_eq!(first["meta"]["demo_mode"], true);
    assert!(!first["data"].as_array().unwrap().is_empty());
    assert_eq!(first["data"], second["data"], "the generator is deterministic and the data is the held copy");
    let (a, b) = (&first["meta"]["demo_cache"], &second["meta"]["demo_cache"]);
    assert_eq!((a["hit"].as_bool(), b["hit"].as_bool()), (Some(false), Some(true)), "{a} {b}");
    assert_eq!(a["generations"], b["generations"], "the second request generated nothing");
    // Another page of the same period is served from the same generation; another period is not.
    let (_, page2) = get_json(&app, &format!("{path}&pagina=2")).await;
    assert_eq!(
        (page2["meta"]["demo_cache"]["hit"].as_bool(), page2["meta"]["demo_cache"]["generations"].as_u64()),
        (Some(true), b["generations"].as_u64())
    );
    let (_, april) =
        get_json(&app, "/api/v1/federal/pncp/contracts?data_inicial=2024-04-01&data_final=2024-04-30").await;
    assert_eq!(april["meta"]["demo_cache"]["generations"].as_u64(), b["generations"].as_u64().map(|n| n + 1));
}
