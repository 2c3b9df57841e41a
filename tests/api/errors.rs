//! The error envelopes: English and Portuguese, for every kind of bad input; never a 500.

use serde_json::{Value, json};

use crate::helpers::spawn_app;

fn assert_en(v: &Value, code: &str) {
    let e = &v["error"];
    assert_eq!(e["code"], code, "{v}");
    assert!(e["message"].is_string(), "{v}");
    assert!(e["details"].is_object(), "{v}");
    assert!(e["request_id"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
    assert!(e["timestamp"].as_str().is_some_and(|s| s.ends_with('Z')), "{v}");
}

fn assert_pt(v: &Value, code: &str) {
    let e = &v["erro"];
    assert_eq!(e["codigo"], code, "{v}");
    assert!(e["mensagem"].is_string(), "{v}");
    assert!(e["detalhes"].is_object(), "{v}");
    assert!(e["id_requisicao"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
    assert!(e["timestamp"].is_string(), "{v}");
}

#[tokio::test]
async fn an_unknown_route_gets_the_english_envelope_with_the_request_id_of_the_header() {
    let app = spawn_app().await;
    let r = app.get("/api/v1/nowhere").await;
    assert_eq!(r.status(), 404);
    let header = r.headers()["x-request-id"].to_str().unwrap().to_string();
    let v: Value = r.json().await.unwrap();
    assert_en(&v, "ROUTE_NOT_FOUND");
    assert_eq!(v["error"]["request_id"], header);
}

#[tokio::test]
async fn malformed_json_is_a_validation_error_naming_the_problem() {
    let app = spawn_app().await;
    let r = app
        .client
        .post(app.url("/api/v1/investigations/start"))
        .bearer_auth(app.token().await)
        .header("content-type", "application/json")
        .body("{\"query\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_en(&v, "VALIDATION_ERROR");
    assert!(v["error"]["details"]["reason"].as_str().unwrap().contains("malformed JSON"), "{v}");
}

#[tokio::test]
async fn a_wrong_field_type_names_the_field() {
    let app = spawn_app().await;
    let r = app
        .post_signed(
            "/api/v1/investigations/start",
            &json!({"query": "x", "data_source": "portal_transparencia", "filters": {"min_value": "lots"}}),
        )
        .await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_en(&v, "VALIDATION_ERROR");
    assert_eq!(v["error"]["details"]["field"], "filters.min_value");
}

#[tokio::test]
async fn a_missing_field_is_named_not_the_body() {
    let app = spawn_app().await;
    let r = app.post_signed("/api/v1/investigations/start", &json!({"data_source": "portal_transparencia"})).await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_en(&v, "VALIDATION_ERROR");
    assert_eq!(v["error"]["details"]["field"], "query", "{v}");
}

#[tokio::test]
async fn out_of_range_values_and_unknown_sources_are_rejected() {
    let app = spawn_app().await;
    let r = app
        .post_signed(
            "/api/v1/investigations/start",
            &json!({"query": "x", "data_source": "portal_transparencia", "sensitivity": 2}),
        )
        .await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["details"]["field"], "sensitivity");
    let r = app.post_signed("/api/v1/investigations/start", &json!({"query": "x", "data_source": "twitter"})).await;
    assert_eq!(r.status(), 400);
}

#[tokio::test]
async fn an_oversized_body_is_413_in_the_envelope() {
    let app = spawn_app().await;
    let huge = format!("{{\"query\": \"{}\", \"data_source\": \"cgu\"}}", "x".repeat(2 << 20));
    let r = app
        .client
        .post(app.url("/api/v1/investigations/start"))
        .bearer_auth(app.token().await)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    assert_en(&r.json().await.unwrap(), "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn a_wrong_method_is_405_in_the_envelope() {
    let app = spawn_app().await;
    let r = app.client.put(app.url("/api/v1/investigations/start")).send().await.unwrap();
    assert_eq!(r.status(), 405);
    assert_en(&r.json().await.unwrap(), "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn unknown_investigations_are_not_found_in_both_variants() {
    let app = spawn_app().await;
    let id = uuid::Uuid::new_v4();
    let r = app.get(&format!("/api/v1/investigations/{id}/status")).await;
    assert_eq!(r.status(), 404);
    assert_en(&r.json().await.unwrap(), "INVESTIGATION_NOT_FOUND");
    let r = app.get(&format!("/api/v1/investigacoes/{id}/resultados")).await;
    assert_eq!(r.status(), 404);
    assert_pt(&r.json().await.unwrap(), "INVESTIGACAO_NAO_ENCONTRADA");
    let r = app.get("/api/v1/investigations/not-a-uuid/status").await;
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn portuguese_routes_answer_with_the_portuguese_envelope() {
    let app = spawn_app().await;
    let r = app
        .post_signed(
            "/api/v1/investigacoes/iniciar",
            &json!({"consulta": "x", "fonte_dados": "portal_transparencia", "sensibilidade": 9}),
        )
        .await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_pt(&v, "ERRO_VALIDACAO");
    let r = app.get("/api/v1/investigacoes/nada/por/aqui").await;
    assert_pt(&r.json().await.unwrap(), "ROTA_NAO_ENCONTRADA");
}

#[tokio::test]
async fn bad_list_parameters_are_validation_errors() {
    let app = spawn_app().await;
    for q in ["limit=101", "limit=abc", "page=0", "status=weird", "sort=nonsense", "date_from=yesterday"] {
        let r = app.get(&format!("/api/v1/investigations?{q}")).await;
        assert_eq!(r.status(), 400, "{q}");
        assert_en(&r.json().await.unwrap(), "VALIDATION_ERROR");
    }
}
