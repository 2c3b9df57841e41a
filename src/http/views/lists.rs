//! The investigation list in its two forms: pages with `meta` and `links` (first, prev, next,
//! last), and cursor pages (`items`, `next_cursor`, `prev_cursor`, `has_more`, `total_items`,
//! `metadata`).

use serde_json::{Value, json};

use super::{obj, opt_ts, status, ts};
use crate::domain::InvestigationHead;
use crate::domain::cursor::CursorPage;
use crate::http::error::Lang;
use crate::service::investigations::Page;

/// One investigation as a list item.
fn item(lang: Lang, inv: &InvestigationHead) -> Value {
    obj(
        lang,
        vec![
            ("investigation_id", "id_investigacao", json!(inv.id)),
            ("query", "consulta", json!(inv.query)),
            ("status", "status", json!(status(lang, inv.status))),
            ("anomalies_found", "anomalias_encontradas", json!(inv.anomalies_found)),
            ("risk_score", "pontuacao_risco", json!(inv.risk_score)),
            ("data_source", "fonte_dados", json!(inv.data_source)),
            ("created_at", "criado_em", json!(ts(&inv.created_at))),
            ("completed_at", "concluido_em", opt_ts(&inv.completed_at)),
        ],
    )
}

/// The cursor page of investigations.
pub fn cursor_list(lang: Lang, page: &CursorPage<InvestigationHead>) -> Value {
    obj(
        lang,
        vec![
            ("items", "itens", Value::Array(page.items.iter().map(|i| item(lang, i)).collect())),
            ("next_cursor", "proximo_cursor", json!(page.next_cursor)),
            ("prev_cursor", "cursor_anterior", json!(page.prev_cursor)),
            ("has_more", "tem_mais", json!(page.has_more)),
            ("total_items", "total_itens", json!(page.total_items)),
            (
                "metadata",
                "metadados",
                obj(
                    lang,
                    vec![
                        ("page_size", "tamanho_pagina", json!(page.items.len())),
                        ("direction", "direcao", json!(page.direction.as_str())),
                        ("oldest_item", "item_mais_antigo", json!(page.items.first().map(|i| ts(&i.created_at)))),
                        ("newest_item", "item_mais_recente", json!(page.items.last().map(|i| ts(&i.created_at)))),
                    ],
                ),
            ),
        ],
    )
}

/// Links to the first, previous, next and last pages of a list at `uri`: the same path and
/// parameters with the page number replaced (`null` where there is no such page).
pub fn page_links(uri: &axum::http::Uri, number: usize, pages: usize) -> Value {
    let kept: Vec<&str> = uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|kv| !kv.is_empty() && !matches!(kv.split('=').next(), Some("page" | "pagina")))
        .collect();
    let link = |n: usize| {
        let mut q = kept.clone();
        let page = format!("page={n}");
        q.push(&page);
        json!(format!("{}?{}", uri.path(), q.join("&")))
    };
    let last = pages.max(1);
    json!({
        "first": link(1),
        "prev": if number > 1 { link((number - 1).min(last)) } else { Value::Null },
        "next": if number < pages { link(number + 1) } else { Value::Null },
        "last": link(last),
    })
}

/// The investigation list with its page metadata and links.
pub fn list(lang: Lang, page: &Page, number: usize, limit: usize, uri: &axum::http::Uri) -> Value {
    let items: Vec<Value> = page.items.iter().map(|inv| item(lang, inv)).collect();
    let pages = page.total.div_ceil(limit.max(1));
    obj(
        lang,
        vec![
            ("data", "dados", Value::Array(items)),
            (
                "meta",
                "meta",
                obj(
                    lang,
                    vec![
                        ("total", "total", json!(page.total)),
                        ("page", "pagina", json!(number)),
                        ("limit", "limite", json!(limit)),
                        ("pages", "paginas", json!(pages)),
                    ],
                ),
            ),
            ("links", "links", page_links(uri, number, pages)),
        ],
    )
}
