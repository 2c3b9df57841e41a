//! Many clients at once: concurrent starts are all answered and all complete, because
//! acknowledgements share the store's one flusher instead of racing sled's `flush_async`.

use futures::future::join_all;
use serde_json::json;

use crate::helpers::spawn_app_with;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_investigations_started_at_once_are_all_answered_and_all_complete_round_after_round() {
    let app = spawn_app_with(|c| {
        c.investigations.max_concurrent = 1_000;
        c.demo.records = 200;
    })
    .await;
    for round in 0..3 {
        let starts = (0..200).map(|i| {
            let body = json!({"query": format!("contratos do Ministério da Saúde {round}-{i}"), "data_source": "portal_transparencia"});
            let app = &app;
            async move {
                let r = tokio::time::timeout(
                    std::time::Duration::from_secs(60),
                    app.post_signed("/api/v1/investigations/start", &body),
                )
                .await
                .expect("a start is answered");
                assert_eq!(r.status(), 201, "round {round}, start {i}");
                let v: serde_json::Value = r.json().await.unwrap();
                v["investigation_id"].as_str().unwrap().to_string()
            }
        });
        let ids = join_all(starts).await;
        for id in &ids {
            let done = app.wait_done(id).await;
            assert_eq!(done["status"], "completed", "round {round}: {done}");
        }
    }
    app.shutdown().await;
}
