//! Answers of the routes whose bodies the GET walk in `openapi.rs` does not reach (POSTs,
//! pages of a conversation) checked against the schemas the document gives them: the chat
//! routes and the engine's answers (anomalies, insights, summary, orchestration).

use serde_json::{Value, json};

use super::conform::conforms;
use super::success_schema;
use crate::helpers::spawn_app;

#[tokio::test]
async fn chat_answers_sessions_and_history_pages_have_the_documented_shapes() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json").await.json().await.unwrap();
    let message = success_schema(&doc, "post", "/api/v1/chat/message");
    assert_eq!(message["$ref"], "#/components/schemas/ChatAnswer");
    // Routed automatically and starting an investigation, so `routing` and `investigation_id`
    // are sent; then a second turn in the same conversation with a named agent, without them.
    let body = json!({"message": "Investigue contratos suspeitos do Ministério da Saúde em 2024",
        "agent_name": "auto"});
    let first: Value = app.post_signed("/api/v1/chat/message", &body).await.json().await.unwrap();
    assert!(first["routing"].is_object() && first["investigation_id"].is_string(), "{first}");
    conforms(&doc, message, &first, "message").unwrap();
    let session = first["session_id"].as_str().unwrap();
    let body = json!({"message": "what can you do?", "agent_name": "zumbi", "session_id": session});
    let second: Value = app.post_signed("/api/v1/chat/message", &body).await.json().await.unwrap();
    assert!(second.get("routing").is_none(), "{second}");
    conforms(&doc, message, &second, "message").unwrap();
    let body = json!({"message": "olá", "stream": false, "session_id": session});
    let unstreamed: Value = app.post_signed("/api/v1/chat/stream", &body).await.json().await.unwrap();
    conforms(&doc, message, &unstreamed, "stream: false").unwrap();

    let sessions: Value = app.get_signed("/api/v1/chat/history").await.json().await.unwrap();
    assert_eq!(sessions["total"], 1, "{sessions}");
    conforms(&doc, success_schema(&doc, "get", "/api/v1/chat/history"), &sessions, "sessions").unwrap();
    for path in ["/api/v1/chat/history/{session_id}", "/api/v1/chat/history/{session_id}/paginated"] {
        let schema = success_schema(&doc, "get", path);
        assert_eq!(schema["$ref"], "#/components/schemas/ChatHistoryPage");
        let concrete = path.replace("{session_id}", session);
        let page: Value = app.get_signed(&format!("{concrete}?limit=4")).await.json().await.unwrap();
        assert_eq!(page["total_items"], 6, "{page}");
        conforms(&doc, schema, &page, path).unwrap();
        let older = page["prev_cursor"].as_str().expect("older messages continue");
        let page: Value = app.get_signed(&format!("{concrete}?limit=4&cursor={older}")).await.json().await.unwrap();
        conforms(&doc, schema, &page, path).unwrap();
    }
}

#[tokio::test]
async fn engine_answers_carry_the_documented_anomalies_summary_and_plan() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json").await.json().await.unwrap();
    let investigate = success_schema(&doc, "post", "/api/v1/agents/{agent_name}/investigate");
    let body = json!({"orgao": "36000", "ano": 2024});
    let answer: Value = app.post("/api/v1/agents/zumbi/investigate", &body).await.json().await.unwrap();
    assert!(!answer["anomalies"].as_array().unwrap().is_empty(), "{answer}");
    conforms(&doc, investigate, &answer, "investigate").unwrap();
    let anomaly = &doc["components"]["schemas"]["Anomaly"];
    assert!(anomaly["properties"]["evidence"].is_object(), "{anomaly}");

    let body =
        json!({"query": "investigue os contratos do Ministério da Saúde em 2024", "orgao": "36000", "ano": 2024});
    let plan: Value = app.post("/api/v1/agents/oxossi/orchestrate", &body).await.json().await.unwrap();
    conforms(&doc, success_schema(&doc, "post", "/api/v1/agents/{agent_name}/orchestrate"), &plan, "orchestrate")
        .unwrap();
    let body = json!({"query": "Investigue contratos da Saúde em 2024 acima de R$ 1 milhão"});
    let query: Value = app.post("/api/v1/multi-agent/query", &body).await.json().await.unwrap();
    conforms(&doc, success_schema(&doc, "post", "/api/v1/multi-agent/query"), &query, "multi-agent").unwrap();

    let records: Vec<Value> = (0..30_i32)
        .map(|k| {
            let value = 10_000.0 + f64::from(k) * 97.0 + if k == 7 { 400_000.0 } else { 0.0 };
            json!({
                "id": k, "numero": format!("{k}/2024"), "objeto": "AQUISIÇÃO DE PAPEL A4 PARA IMPRESSORA",
                "valorInicialCompra": value, "valorFinalCompra": value,
                "dataAssinatura": format!("2024-{:02}-10", 1 + k % 11),
                "fornecedor": {"nome": format!("PAPELARIA {k} LTDA"), "cnpjFormatado": ""},
                "unidadeGestora": {"codigo": "250005", "nome": "UG",
                    "orgaoMaximo": {"codigo": "36000", "sigla": "MS", "nome": "Ministério da Saúde"}},
                "modalidadeCompra": "Pregão"
            })
        })
        .collect();
    let detected: Value =
        app.post("/api/v1/anomalies/detect", &json!({"records": records})).await.json().await.unwrap();
    assert!(detected["summary"]["total_anomalies"].as_u64().unwrap() > 0, "{detected}");
    conforms(&doc, success_schema(&doc, "post", "/api/v1/anomalies/detect"), &detected, "detect").unwrap();
}
