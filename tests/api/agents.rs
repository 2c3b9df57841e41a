//! Direct agent routes over demo data: status from the runtime, one agent over an organ and
//! year (a repeat answers from the cache), oscar_niemeyer's charts by query, unknown agents, the
//! engine over records in the body.

use serde_json::{Value, json};

use crate::helpers::spawn_app;

#[tokio::test]
async fn an_agent_called_directly_reports_its_analysis_and_a_repeat_is_a_cache_hit() {
    let app = spawn_app().await;
    let body = json!({"orgao": "36000", "ano": 2024});
    let r = app.post("/api/v1/agents/zumbi/investigate", &body).await;
    assert_eq!(r.status(), 200);
    let first: Value = r.json().await.unwrap();
    assert_eq!(first["status"], "completed");
    assert_eq!(first["cache_hit"], false);
    assert_eq!(first["demo_mode"], true);
    assert!(first["warning"].as_str().unwrap().contains("DEMO"));
    assert!(first["contracts_analyzed"].as_u64().unwrap() > 0);
    assert!(first["anomalies_found"].as_u64().unwrap() as usize >= first["anomalies"].as_array().unwrap().len());
    assert!(first["data_freshness"].as_str().unwrap().contains('T'));
    let second: Value = app.post("/api/v1/agents/zumbi_dos_palmares/investigate", &body).await.json().await.unwrap();
    assert_eq!(second["cache_hit"], true, "an alias names the same agent and the same call");
    assert_eq!(second["anomalies_found"], first["anomalies_found"]);
    let status: Value = app.get("/api/v1/agents/status").await.json().await.unwrap();
    let zumbi = status["agents"].as_array().unwrap().iter().find(|a| a["agent"] == "zumbi").unwrap().clone();
    assert_eq!(zumbi["calls"], 1, "the cached repeat did not run the agent: {zumbi}");
    assert_eq!(zumbi["loaded"], true);
    assert!(zumbi["average_latency_ms"].as_f64().unwrap() > 0.0);
    assert!(zumbi["last_active"].is_string());
    assert_eq!(status["total"], 16);
    app.shutdown().await;
}

#[tokio::test]
async fn an_unknown_agent_is_a_404_envelope_and_a_bad_body_names_its_field() {
    let app = spawn_app().await;
    let r = app.post("/api/v1/agents/sherlock/investigate", &json!({"ano": 2024})).await;
    assert_eq!(r.status(), 404);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "AGENT_NOT_FOUND");
    let r = app.post("/api/v1/agents/zumbi/investigate", &json!({"ano": 2024, "mes": 13})).await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["details"]["field"], "mes");
    app.shutdown().await;
}

#[tokio::test]
async fn analyze_contracts_charts_an_organs_year_in_cents_and_a_bad_year_names_its_field() {
    let app = spawn_app().await;
    let r = app.get("/api/v1/analyze/contracts?orgao=36000&ano=2024").await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!((v["agent"].as_str(), v["status"].as_str()), (Some("oscar_niemeyer"), Some("completed")));
    let artifacts = v["artifacts"].as_array().unwrap();
    let organs = artifacts.iter().find(|a| a["title"] == "Valor contratado por órgão").unwrap();
    assert_eq!(organs["content"]["bars"][0]["key"], "36000");
    assert!(artifacts.iter().any(|a| a["kind"] == "network"));
    // Money comes out in cents, however the sums fell in floating point.
    for a in artifacts.iter().filter(|a| a["kind"] == "aggregation") {
        for bar in a["content"]["bars"].as_array().into_iter().flatten() {
            let value = bar["value"].as_f64().unwrap();
            assert_eq!(value, (value * 100.0).round() / 100.0, "{}: {bar}", a["title"]);
        }
    }
    // One organ's data: no headline about how the money or the suppliers spread among organs.
    let insights = v["insights"].as_array().unwrap();
    assert!(insights.iter().all(|i| {
        let text = i["insight"].as_str().unwrap();
        !text.contains("concentra") && !text.contains("mais de um órgão")
    }));
    let r = app.get("/api/v1/analyze/contracts?orgao=36000&ano=dois-mil").await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        (v["error"]["code"].as_str(), v["error"]["details"]["field"].as_str()),
        (Some("VALIDATION_ERROR"), Some("ano"))
    );
    app.shutdown().await;
}

#[tokio::test]
async fn records_posted_to_detect_come_back_with_their_anomalies() {
    let app = spawn_app().await;
    // Thirty purchases in the upstream's record shape.
    let mut records = Vec::new();
    for k in 0..30 {
        records.push(json!({
            "id": k, "numero": format!("{k}/2024"), "objeto": "AQUISIÇÃO DE PAPEL A4 PARA IMPRESSORA",
            "valorInicialCompra": 10_000.0 + (k as f64) * 97.0, "valorFinalCompra": 10_000.0 + (k as f64) * 97.0,
            "dataAssinatura": format!("2024-{:02}-10", 1 + k % 11),
            "fornecedor": {"nome": format!("PAPELARIA {k} LTDA"), "cnpjFormatado": ""},
            "unidadeGestora": {"codigo": "250005", "nome": "UG", "orgaoMaximo": {"codigo": "36000", "sigla": "MS", "nome": "Ministério da Saúde"}},
            "modalidadeCompra": "Pregão"
        }));
    }
    let r = app.post("/api/v1/anomalies/detect", &json!({"records": records, "sensitivity": 0.7})).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["records_analyzed"], 30);
    assert!(v["summary"]["total_anomalies"].is_u64());
    let r = app.post("/api/v1/anomalies/detect", &json!({"records": [{"nothing": 1}]})).await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "VALIDATION_ERROR");
    app.shutdown().await;
}

#[tokio::test]
async fn every_agent_of_the_roster_loads_and_answers_a_direct_call() {
    let app = crate::helpers::spawn_secure_app().await;
    let admin = app.admin_token().await;
    let status: Value = app.get("/api/v1/agents/status").await.json().await.unwrap();
    let ids: Vec<String> =
        status["agents"].as_array().unwrap().iter().map(|a| a["agent"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids.len(), 16);
    assert_eq!(status["implemented"], 16, "every agent has an analysis: {status}");
    let body = json!({"orgao": "36000", "ano": 2024, "query": "contratos do Ministério da Saúde em 2024"});
    for id in &ids {
        let r = app.post_as(&format!("/api/v1/agents/{id}/investigate"), &admin, &body).await;
        assert_eq!(r.status(), 200, "{id}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["agent"], id.as_str());
        assert_eq!(v["status"], "completed", "{v}");
        // The detection agents may rightly find nothing in one organ's year; the others always
        // hand back a product (a report, charts, a route, a plan, a review).
        let detects = ["zumbi", "anita", "oxossi", "bonifacio", "machado", "ceuci", "obaluaie"].contains(&id.as_str());
        let products = v["insights"].as_array().unwrap().len() + v["artifacts"].as_array().map_or(0, Vec::len);
        assert!(detects || products > 0, "{id} did real work: {v}");
    }
    let status: Value = app.get("/api/v1/agents/status").await.json().await.unwrap();
    for a in status["agents"].as_array().unwrap() {
        assert_eq!(a["calls"], 1, "{a}");
        assert_eq!(a["failures"], 0, "{a}");
    }
    // The security review reads the audit log: not for anonymous callers.
    let r = app.post("/api/v1/agents/maria_quiteria/investigate", &json!({})).await;
    assert_eq!(r.status(), 401);
    app.shutdown().await;
}

#[tokio::test]
async fn an_orchestration_runs_every_step_of_the_plan_and_a_report_renders_an_investigation() {
    let app = spawn_app().await;
    let body =
        json!({"query": "investigue os contratos do Ministério da Saúde em 2024", "orgao": "36000", "ano": 2024});
    let r = app.post("/api/v1/agents/oxossi/orchestrate", &body).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["lead"], "oxossi");
    let planned: Vec<&str> =
        v["plan"]["steps"].as_array().unwrap().iter().map(|s| s["agent"].as_str().unwrap()).collect();
    assert!(planned.contains(&"oxossi"), "the plan is built around the named agent: {planned:?}");
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), planned.len(), "every step answers");
    assert!(steps.iter().all(|s| s["status"] == "completed"), "{steps:?}");
    assert!(!v["answer"].as_str().unwrap().is_empty());
    let r = app
        .post(
            "/api/v1/multi-agent/query",
            &json!({"query": "Investigue contratos da Saúde em 2024 acima de R$ 1 milhão"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["lead"], "abaporu");
    assert_eq!(v["route"]["entities"]["year"], 2024);
    let r = app.post("/api/v1/multi-agent/query", &json!({})).await;
    assert_eq!(r.status(), 400);
    let r = app.post("/api/v1/agents/nobody/orchestrate", &body).await;
    assert_eq!(r.status(), 404);

    let id =
        app.start(json!({"query": "contratos do Ministério da Saúde", "data_source": "portal_transparencia"})).await;
    app.wait_done(&id).await;
    let r = app.get_signed(&format!("/api/v1/reports/generate?investigation_id={id}")).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/markdown"));
    let md = r.text().await.unwrap();
    assert!(md.starts_with("# ") && md.contains(&id), "{}", &md[..200.min(md.len())]);
    let html = app
        .get_signed(&format!("/api/v1/reports/generate?investigation_id={id}&format=html"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("<html") && html.contains("</html>"), "{}", &html[..300.min(html.len())]);
    assert_eq!(
        app.get_signed(&format!("/api/v1/reports/generate?investigation_id={id}&format=pdf")).await.status(),
        400
    );
    assert_eq!(
        app.get(&format!("/api/v1/reports/generate?investigation_id={id}")).await.status(),
        401,
        "an owned run's report"
    );
    assert_eq!(app.get("/api/v1/reports/generate").await.status(), 400);
    app.shutdown().await;
}
