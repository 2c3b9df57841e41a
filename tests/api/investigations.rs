//! Investigations over HTTP: start, stream (with resume), status, results, list, cancel, in
//! both naming variants, over demo data.

use serde_json::{Value, json};

use crate::helpers::{spawn_app, spawn_secure_app_with};

fn saude() -> Value {
    json!({"query": "contratos do Ministério da Saúde", "data_source": "portal_transparencia", "include_explanations": true})
}

#[tokio::test]
async fn start_answers_at_once_with_an_id_and_a_stream_url() {
    let app = spawn_app().await;
    let r = app.post_signed("/api/v1/investigations/start", &saude()).await;
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    let id = v["investigation_id"].as_str().unwrap();
    assert!(uuid::Uuid::parse_str(id).is_ok());
    assert_eq!(v["status"], "processing");
    assert!(v["estimated_completion"].is_null(), "no run measured yet: no estimate is invented");
    assert_eq!(v["stream_url"], format!("/api/v1/investigations/stream/{id}"));
    app.wait_done(id).await;
    // Once a run was measured, the estimate is the start plus the measured duration.
    let v: Value = app.post_signed("/api/v1/investigations/start", &saude()).await.json().await.unwrap();
    assert!(v["estimated_completion"].as_str().unwrap().ends_with('Z'), "{v}");
}

#[tokio::test]
async fn the_stream_sends_sequenced_progress_anomaly_insight_and_complete_events() {
    let app = spawn_app().await;
    let id = app.start(saude()).await;
    let events = app.events(&format!("/api/v1/investigations/stream/{id}"), None, 10_000).await;
    let ids: Vec<u64> = events.iter().map(|e| e.id.parse().unwrap()).collect();
    assert_eq!(ids, (1..=events.len() as u64).collect::<Vec<_>>());
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(names.first(), Some(&"progress"));
    assert_eq!(names.last(), Some(&"complete"));
    assert!(names.contains(&"anomaly") && names.contains(&"insight"), "{names:?}");
    let progress: Value = serde_json::from_str(&events[0].data).unwrap();
    assert_eq!(progress["current_phase"], "initialization");
    assert_eq!(progress["type"], "progress", "the event name is in the data too");
    let last: Value = serde_json::from_str(&events.last().unwrap().data).unwrap();
    assert_eq!(last["type"], "complete");
    assert!(progress["percentage"].is_number() && progress["agents_active"].is_number());
    let anomaly: Value = serde_json::from_str(&events.iter().find(|e| e.event == "anomaly").unwrap().data).unwrap();
    for key in ["id", "type", "severity", "confidence", "description", "affected_record"] {
        assert!(anomaly.get(key).is_some(), "{key} in {anomaly}");
    }
    let complete: Value = serde_json::from_str(&events.last().unwrap().data).unwrap();
    let results: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    assert_eq!(complete["total_anomalies"], results["summary"]["total_anomalies"]);
    let used: Vec<&str> = complete["agents_used"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(&used[..2], &["zumbi", "anita"], "agents report in plan order: {used:?}");
    assert_eq!(names.iter().filter(|n| **n == "anomaly").count() as u64, complete["total_anomalies"].as_u64().unwrap());
}

#[tokio::test]
async fn a_stream_resumes_after_last_event_id_without_loss() {
    let app = spawn_app().await;
    let id = app.start(saude()).await;
    let path = format!("/api/v1/investigations/stream/{id}");
    let all = app.events(&path, None, 10_000).await;
    let rest = app.events(&path, Some(3), 10_000).await;
    assert_eq!(rest.len(), all.len() - 3);
    assert_eq!(rest[0].id, "4");
    assert_eq!(rest.last().unwrap().data, all.last().unwrap().data);
}

#[tokio::test]
async fn results_carry_every_field_of_the_spec_with_evidence() {
    let app = spawn_app().await;
    let id = app.start(saude()).await;
    let status = app.wait_done(&id).await;
    assert_eq!(status["status"], "completed");
    assert_eq!(status["progress"]["percentage"], 100.0);
    assert_eq!(status["progress"]["phases_completed"].as_array().unwrap().len(), 7);
    let invoked = status["statistics"]["agents_invoked"].as_u64().unwrap();
    assert!(invoked >= 2, "every implemented agent covering a wanted type runs: {invoked}");
    let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    assert_eq!(v["metadata"]["query"], "contratos do Ministério da Saúde");
    assert_eq!(v["metadata"]["demo_mode"], true);
    assert_eq!(v["metadata"]["source"], "demo_data");
    assert!(v["warning"].as_str().unwrap().contains("[DEMO]"));
    assert!(v["metadata"]["total_records_analyzed"].as_u64().unwrap() >= 100);
    let by_type = v["summary"]["by_type"].as_object().unwrap();
    assert_eq!(by_type.len(), 5);
    let risk = v["summary"]["risk_score"].as_u64().unwrap();
    assert!(risk <= 100);
    let anomalies = v["anomalies"].as_array().unwrap();
    assert!(!anomalies.is_empty());
    for a in anomalies {
        assert!(a["technical_details"]["detector"].is_string(), "{a}");
        assert!(a["affected_entities"]["primary"]["id"].is_string(), "{a}");
        assert!(a["evidence"]["data_points"].is_array(), "{a}");
        assert!(["critical", "high", "medium", "low"].contains(&a["severity"].as_str().unwrap()));
        assert!(a["confidence"].as_f64().unwrap() >= 0.8, "default confidence threshold applies: {a}");
    }
    assert!(v["insights"].as_array().unwrap().iter().all(|i| i["supporting_evidence"].is_array()));
    assert!(v["explanations"]["methodology"].is_string());
}

#[tokio::test]
async fn the_portuguese_variant_speaks_portuguese_end_to_end() {
    let app = spawn_app().await;
    let r = app
        .post_signed(
            "/api/v1/investigacoes/iniciar",
            &json!({"consulta": "contratos da saúde", "fonte_dados": "portal_transparencia"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    let id = v["id_investigacao"].as_str().unwrap().to_string();
    assert_eq!(v["status"], "processando");
    assert_eq!(v["url_stream"], format!("/api/v1/investigacoes/stream/{id}"));
    let events = app.events(&format!("/api/v1/investigacoes/stream/{id}"), None, 10_000).await;
    assert_eq!(events[0].event, "progresso");
    assert_eq!(events.last().unwrap().event, "completo");
    let s: Value = app.get_signed(&format!("/api/v1/investigacoes/{id}/status")).await.json().await.unwrap();
    assert_eq!(s["status"], "concluida");
    assert!(s["progresso"]["porcentagem"].is_number() && s["estatisticas"]["registros_processados"].is_number());
    let r: Value = app.get_signed(&format!("/api/v1/investigacoes/{id}/resultados")).await.json().await.unwrap();
    assert!(r["resumo"]["por_severidade"]["critica"].is_number());
    assert!(r["resumo"]["por_tipo"]["anomalia_preco"].is_number());
    let a = &r["anomalias"][0];
    assert!(a["tipo"].as_str().unwrap().starts_with("anomalia_") || a["tipo"] == "violacao_conformidade");
    assert!(a["entidades_afetadas"]["primaria"].is_object());
    let list: Value = app.get_signed("/api/v1/investigacoes?limite=5&pagina=1").await.json().await.unwrap();
    assert_eq!(list["dados"][0]["id_investigacao"], id.as_str());
    assert_eq!(list["meta"]["limite"], 5);
}

/// An app with three completed investigations, oldest first.
async fn three_finished_runs() -> (crate::helpers::TestApp, Vec<String>) {
    let app = spawn_app().await;
    let mut ids = Vec::new();
    for q in ["contratos da saúde", "contratos da educação", "contratos da defesa"] {
        let id = app.start(json!({"query": q, "data_source": "portal_transparencia"})).await;
        app.wait_done(&id).await;
        ids.push(id);
    }
    (app, ids)
}

#[tokio::test]
async fn the_list_filters_sorts_and_pages() {
    let (app, ids) = three_finished_runs().await;
    let v: Value = app.get_signed("/api/v1/investigations?limit=2&page=1&sort=created_at").await.json().await.unwrap();
    assert_eq!(v["meta"], json!({"total": 3, "page": 1, "limit": 2, "pages": 2}));
    assert_eq!(v["data"][0]["investigation_id"], ids[0].as_str());
    let path = "/api/v1/investigations?limit=2&sort=created_at";
    let expected = json!({"first": format!("{path}&page=1"), "prev": null, "next": format!("{path}&page=2"), "last": format!("{path}&page=2")});
    assert_eq!(v["links"], expected);
    let v: Value = app.get_signed(v["links"]["next"].as_str().unwrap()).await.json().await.unwrap();
    assert_eq!(v["data"][0]["investigation_id"], ids[2].as_str());
    assert_eq!((v["links"]["prev"].as_str(), v["links"]["next"].as_str()), (Some(&*format!("{path}&page=1")), None));
    let v: Value =
        app.get_signed("/api/v1/investigations?status=completed&min_anomalies=1&limit=100").await.json().await.unwrap();
    assert_eq!(v["meta"]["total"], 3);
    let v: Value = app.get_signed("/api/v1/investigations?status=failed").await.json().await.unwrap();
    assert_eq!(v["meta"]["total"], 0);
}

#[tokio::test]
async fn too_few_records_fail_the_run_with_insufficient_data() {
    let app = spawn_app().await;
    let id = app
        .start(json!({"query": "contratos", "data_source": "portal_transparencia", "filters": {"min_value": 1e15}}))
        .await;
    let s = app.wait_done(&id).await;
    assert_eq!(s["status"], "failed");
    assert_eq!(s["error"]["code"], "INSUFFICIENT_DATA");
    let r = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await;
    assert_eq!(r.status(), 422);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "INSUFFICIENT_DATA");
    assert_eq!(v["error"]["details"]["records_found"], 0);
    assert!(v["error"]["details"]["minimum_required"].is_number());
}

#[tokio::test]
async fn results_of_a_running_investigation_are_in_progress_and_its_owner_can_cancel_it() {
    let app = spawn_secure_app_with(|c| c.demo.records = 300_000).await;
    let analyst = app.user("analista").await;
    let r = app.post_as("/api/v1/investigations/start", &analyst.token, &saude()).await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["investigation_id"].as_str().unwrap().to_string();
    let r = app.get_as(&format!("/api/v1/investigations/{id}/results"), &analyst.token).await;
    assert_eq!(r.status(), 409);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], "INVESTIGATION_IN_PROGRESS");
    let r = app.client.delete(app.url(&format!("/api/v1/investigations/{id}"))).send().await.unwrap();
    assert_eq!(r.status(), 401, "cancelling needs credentials");
    let r = app.delete_as(&format!("/api/v1/investigations/{id}"), &analyst.token).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "cancelled");
    assert_eq!(v["investigation_id"], id.as_str());
    assert!(v["partial_results_available"].is_boolean());
    assert!(v["message"].is_string());
    let again = app.delete_as(&format!("/api/v1/investigations/{id}"), &analyst.token).await;
    assert_eq!(again.status(), 409);
}

#[tokio::test]
async fn the_cursor_list_walks_from_the_newest_back_to_the_oldest() {
    let (app, ids) = three_finished_runs().await;
    let first: Value = app.get_signed("/api/v1/investigations/paginated?limit=2").await.json().await.unwrap();
    let listed = |v: &Value| -> Vec<String> {
        v["items"].as_array().unwrap().iter().map(|i| i["investigation_id"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(listed(&first), ids[1..].to_vec(), "newest last");
    assert_eq!((first["has_more"].as_bool(), first["total_items"].as_u64()), (Some(true), Some(3)));
    assert!(first["next_cursor"].is_null());
    assert_eq!(first["metadata"]["direction"], "prev");
    let cursor = first["prev_cursor"].as_str().unwrap();
    let older: Value = app
        .get_signed(&format!("/api/v1/investigations/paginated?limit=2&cursor={cursor}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed(&older), ids[..1].to_vec());
    assert_eq!(older["has_more"], false);
    // The Portuguese name of the limit is read by the cursor form too (its default is 50).
    let one: Value = app.get_signed("/api/v1/investigations/paginated?limite=1").await.json().await.unwrap();
    assert_eq!(listed(&one), ids[2..].to_vec());
    let bad = app.get_signed("/api/v1/investigations/paginated?cursor=nonsense").await;
    assert_eq!(bad.status(), 400);
    assert_eq!(bad.json::<Value>().await.unwrap()["error"]["details"]["field"], "cursor");
}

#[tokio::test]
async fn finished_investigations_past_their_retention_are_pruned_by_the_background_task() {
    let app = crate::helpers::spawn_app_with(|c| {
        c.retention.investigations_days = 1.0 / 86_400.0; // one second
        c.retention.prune_interval_secs = 1.0;
    })
    .await;
    let id = app.start(saude()).await;
    app.wait_done(&id).await;
    let mut status = 200;
    for _ in 0..100 {
        status = app.get_signed(&format!("/api/v1/investigations/{id}/status")).await.status().as_u16();
        if status == 404 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(status, 404, "pruned within a few passes");
    let stream = app.get_signed(&format!("/api/v1/investigations/stream/{id}")).await;
    assert_eq!(stream.status(), 404, "its events went with it");
}

#[tokio::test]
async fn status_and_list_read_the_small_head_record_and_never_decode_results() {
    let (app, ids) = three_finished_runs().await;
    let before = app.store.full_reads();
    for id in &ids {
        let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/status")).await.json().await.unwrap();
        assert_eq!(v["status"], "completed");
        assert!(v["statistics"]["anomalies_found"].as_u64().unwrap() > 0, "{v}");
        let v: Value = app.get_signed(&format!("/api/v1/investigacoes/{id}/status")).await.json().await.unwrap();
        assert_eq!(v["status"], "concluida");
    }
    let v: Value =
        app.get_signed("/api/v1/investigations?sort=-risk_score&min_anomalies=1").await.json().await.unwrap();
    assert_eq!(v["meta"]["total"], 3);
    assert!(v["data"][0]["risk_score"].is_number() && v["data"][0]["query"].is_string(), "{v}");
    let v: Value = app.get_signed("/api/v1/investigations/paginated?limit=2").await.json().await.unwrap();
    assert_eq!(v["total_items"], 3);
    assert_eq!(app.store.full_reads(), before, "no full record (with its results) was decoded");
    app.get_signed(&format!("/api/v1/investigations/{}/results", ids[0])).await;
    assert_eq!(app.store.full_reads(), before + 1, "results do read the full record");
}
