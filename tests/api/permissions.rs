//! The permission matrix per role over real routes: starting, reading, listing and cancelling
//! investigations (owner or admin), the audit log, the admin surface, and service API keys.

use serde_json::{Value, json};

use crate::auth::{en_error, pt_error};
use crate::helpers::{TestApp, spawn_secure_app, spawn_secure_app_with};

fn query() -> Value {
    json!({"query": "contratos da saúde", "data_source": "portal_transparencia"})
}

/// Starts an investigation as `token` (or anonymously) and returns the response.
async fn start(app: &TestApp, token: Option<&str>) -> reqwest::Response {
    match token {
        Some(t) => app.post_as("/api/v1/investigations/start", t, &query()).await,
        None => app.post("/api/v1/investigations/start", &query()).await,
    }
}

/// A public investigation: anonymous HTTP calls cannot start one (401), an anonymous chat
/// turn can, and it belongs to no one.
async fn public(app: &TestApp) -> String {
    let events =
        crate::chat::turn(app, json!({"message": "Investigue contratos suspeitos do Ministério da Saúde em 2024"}))
            .await;
    let done = &events.last().expect("the turn ends").1;
    done["investigation_id"].as_str().expect("the chat started an investigation").to_string()
}

async fn id_of(r: reqwest::Response) -> String {
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["investigation_id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn each_role_may_start_investigations_as_its_permissions_say() {
    let app = spawn_secure_app().await;
    let admin = app.admin_token().await;
    for (role, expected) in [("analista", 201), ("servico", 201), ("visualizador", 403)] {
        let u = app.user(role).await;
        let r = start(&app, Some(&u.token)).await;
        assert_eq!(r.status(), expected, "{role}");
        if expected == 403 {
            en_error(r, 403, "PERMISSOES_INSUFICIENTES").await;
        }
    }
    assert_eq!(start(&app, Some(&admin)).await.status(), 201);
    en_error(start(&app, None).await, 401, "UNAUTHORIZED").await;
}

#[tokio::test]
async fn an_owned_investigation_is_readable_by_its_owner_and_admins_only() {
    let app = spawn_secure_app().await;
    let (owner, other, viewer) =
        (app.user("analista").await, app.user("analista").await, app.user("visualizador").await);
    let admin = app.admin_token().await;
    let id = id_of(start(&app, Some(&owner.token)).await).await;
    let path = format!("/api/v1/investigations/{id}/status");
    assert_eq!(app.get_as(&path, &owner.token).await.status(), 200);
    assert_eq!(app.get_as(&path, &admin).await.status(), 200);
    en_error(app.get_as(&path, &other.token).await, 403, "PERMISSOES_INSUFICIENTES").await;
    en_error(app.get_as(&path, &viewer.token).await, 403, "PERMISSOES_INSUFICIENTES").await;
    en_error(app.get(&path).await, 401, "UNAUTHORIZED").await;
    let pt = format!("/api/v1/investigacoes/{id}/resultados");
    pt_error(app.get_as(&pt, &other.token).await, 403, "PERMISSOES_INSUFICIENTES").await;
    let public = public(&app).await;
    let public_path = format!("/api/v1/investigations/{public}/status");
    assert_eq!(app.get_as(&public_path, &viewer.token).await.status(), 200);
    assert_eq!(app.get(&public_path).await.status(), 200);
}

#[tokio::test]
async fn the_list_shows_users_their_own_runs_admins_everything_and_anonymous_callers_public_ones() {
    let app = spawn_secure_app().await;
    let (a, b) = (app.user("analista").await, app.user("analista").await);
    let admin = app.admin_token().await;
    let mine = id_of(start(&app, Some(&a.token)).await).await;
    let theirs = id_of(start(&app, Some(&b.token)).await).await;
    let public = public(&app).await;
    let ids = |v: Value| -> Vec<String> {
        v["data"].as_array().unwrap().iter().map(|i| i["investigation_id"].as_str().unwrap().to_string()).collect()
    };
    let seen = ids(app.get_as("/api/v1/investigations?limit=100", &a.token).await.json().await.unwrap());
    assert_eq!(seen, vec![mine.clone()], "only one's own; theirs is {theirs}, the public one {public}");
    let seen = ids(app.get("/api/v1/investigations?limit=100").await.json().await.unwrap());
    assert_eq!(seen, vec![public.clone()]);
    let seen = ids(app.get_as("/api/v1/investigations?limit=100", &admin).await.json().await.unwrap());
    assert_eq!(seen.len(), 3);
    // A public investigation belongs to no one: only an admin may cancel it.
    let r = app.delete_as(&format!("/api/v1/investigations/{public}"), &a.token).await;
    en_error(r, 403, "PERMISSOES_INSUFICIENTES").await;
}

#[tokio::test]
async fn cancelling_needs_the_delete_permission_and_ownership_or_an_admin() {
    let app = spawn_secure_app_with(|c| c.demo.records = 300_000).await;
    let (owner, other, service) = (app.user("analista").await, app.user("analista").await, app.user("servico").await);
    let admin = app.admin_token().await;
    let id = id_of(start(&app, Some(&owner.token)).await).await;
    let path = format!("/api/v1/investigations/{id}");
    en_error(app.client.delete(app.url(&path)).send().await.unwrap(), 401, "UNAUTHORIZED").await;
    en_error(app.delete_as(&path, &service.token).await, 403, "PERMISSOES_INSUFICIENTES").await;
    en_error(app.delete_as(&path, &other.token).await, 403, "PERMISSOES_INSUFICIENTES").await;
    assert_eq!(app.delete_as(&path, &owner.token).await.status(), 200);
    let second = id_of(start(&app, Some(&owner.token)).await).await;
    assert_eq!(app.delete_as(&format!("/api/v1/investigations/{second}"), &admin).await.status(), 200);
}

#[tokio::test]
async fn only_admins_reach_the_admin_surface_and_only_auditors_the_audit_log() {
    let app = spawn_secure_app().await;
    let admin = app.admin_token().await;
    for role in ["analista", "visualizador", "servico"] {
        let u = app.user(role).await;
        let r = app.get_as("/api/v1/admin/agent-lazy-loading/status", &u.token).await;
        en_error(r, 403, "PERMISSOES_INSUFICIENTES").await;
        en_error(app.get_as("/api/v1/audit", &u.token).await, 403, "PERMISSOES_INSUFICIENTES").await;
    }
    assert_eq!(app.get_as("/api/v1/admin/agent-lazy-loading/status", &admin).await.status(), 200);
    assert_eq!(app.get_as("/api/v1/audit", &admin).await.status(), 200);
}

#[tokio::test]
async fn a_service_api_key_authenticates_as_its_account_until_revoked() {
    let app = spawn_secure_app().await;
    let admin = app.admin_token().await;
    let service = app.user("servico").await;
    let analyst = app.user("analista").await;
    let r = app.post_as("/api/v1/admin/api-keys", &admin, &json!({"name": "etl", "user_id": analyst.id})).await;
    en_error(r, 400, "VALIDATION_ERROR").await;
    let r = app.post_as("/api/v1/admin/api-keys", &admin, &json!({"name": "etl", "user_id": service.id})).await;
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    let key = created["api_key"].as_str().unwrap();
    let with_key = |path: &str| app.client.get(app.url(path)).header("x-api-key", key);
    let me: Value = with_key("/api/v1/auth/me").send().await.unwrap().json().await.unwrap();
    assert_eq!(me["email"], service.email);
    let r = app
        .client
        .post(app.url("/api/v1/investigations/start"))
        .bearer_auth(app.token().await)
        .header("x-api-key", key)
        .json(&query());
    assert_eq!(r.send().await.unwrap().status(), 201);
    let listed: Value = app.get_as("/api/v1/admin/api-keys", &admin).await.json().await.unwrap();
    assert!(listed.to_string().contains("etl") && !listed.to_string().contains(key), "the key is shown once");
    let id = created["id"].as_str().unwrap();
    assert_eq!(app.delete_as(&format!("/api/v1/admin/api-keys/{id}"), &admin).await.status(), 200);
    pt_error(with_key("/api/v1/auth/me").send().await.unwrap(), 401, "TOKEN_INVALIDO").await;
}
