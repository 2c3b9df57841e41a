//! The investigation list in its two forms: pages with `meta` and `links` (first, prev, next,
//! last), and cursor pages (`items`, `next_cursor`, `prev_cursor`, `has_more`, `total_items`,
//! `metadata`).

use super::bilingual::{Localized, bilingual, localized, same_in_both};
use super::{status, ts};
use crate::domain::cursor::CursorPage;
use crate::domain::{InvestigationHead, InvestigationId};
use crate::http::error::Lang;
use crate::service::investigations::Page;

bilingual! {
    /// One investigation in a list.
    InvestigationItem / ItemInvestigacao {
        /// Investigation id.
        #[schema(value_type = uuid::Uuid)]
        investigation_id / id_investigacao: InvestigationId => InvestigationId,
        /// The query.
        query / consulta: String => String,
        /// Status in the route's language.
        status / status: &'static str => &'static str,
        /// Anomalies found.
        anomalies_found / anomalias_encontradas: usize => usize,
        /// 0-100, once finished.
        risk_score / pontuacao_risco: Option<u8> => Option<u8>,
        /// The data source.
        data_source / fonte_dados: String => String,
        /// Created (RFC 3339).
        created_at / criado_em: String => String,
        /// Ended (RFC 3339).
        completed_at / concluido_em: Option<String> => Option<String>,
    }
}

bilingual! {
    /// Where a cursor page sits.
    CursorMetadata / MetadadosCursor {
        /// Items on this page.
        page_size / tamanho_pagina: usize => usize,
        /// `next` or `prev`.
        direction / direcao: &'static str => &'static str,
        /// Creation time of the page's first item.
        oldest_item / item_mais_antigo: Option<String> => Option<String>,
        /// Creation time of the page's last item.
        newest_item / item_mais_recente: Option<String> => Option<String>,
    }
}

bilingual! {
    /// A cursor page of investigations.
    InvestigationCursorPage / PaginaCursorInvestigacoes {
        /// The investigations.
        items / itens: Vec<InvestigationItem> => Vec<ItemInvestigacao>,
        /// Cursor of the next page.
        next_cursor / proximo_cursor: Option<String> => Option<String>,
        /// Cursor of the previous page.
        prev_cursor / cursor_anterior: Option<String> => Option<String>,
        /// Whether more items lie in this direction.
        has_more / tem_mais: bool => bool,
        /// Items matching the filters.
        total_items / total_itens: usize => usize,
        /// Page position.
        metadata / metadados: CursorMetadata => MetadadosCursor,
    }
}

bilingual! {
    /// Page numbers of a list.
    PageMeta / MetaPagina {
        /// Items matching the filters.
        total / total: usize => usize,
        /// This page, from 1.
        page / pagina: usize => usize,
        /// Items per page.
        limit / limite: usize => usize,
        /// Pages.
        pages / paginas: usize => usize,
    }
}

/// Links to the first, previous, next and last pages (the same keys in both variants; `null`
/// where there is no such page).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct PageLinks {
    /// First page.
    pub first: String,
    /// Previous page.
    pub prev: Option<String>,
    /// Next page.
    pub next: Option<String>,
    /// Last page.
    pub last: String,
}

same_in_both!(PageLinks);

bilingual! {
    /// A page of investigations.
    InvestigationPage / PaginaInvestigacoes {
        /// The investigations.
        data / dados: Vec<InvestigationItem> => Vec<ItemInvestigacao>,
        /// Page numbers.
        meta / meta: PageMeta => MetaPagina,
        /// Links to other pages.
        links / links: PageLinks => PageLinks,
    }
}

/// One investigation as a list item.
fn item(lang: Lang, inv: &InvestigationHead) -> InvestigationItem {
    InvestigationItem {
        investigation_id: inv.id,
        query: inv.query.clone(),
        status: status(lang, inv.status),
        anomalies_found: inv.anomalies_found,
        risk_score: inv.risk_score,
        data_source: inv.data_source.clone(),
        created_at: ts(&inv.created_at),
        completed_at: inv.completed_at.as_ref().map(ts),
    }
}

/// The cursor page of investigations.
pub fn cursor_list(
    lang: Lang,
    page: &CursorPage<InvestigationHead>,
) -> Localized<InvestigationCursorPage, PaginaCursorInvestigacoes> {
    localized(
        lang,
        InvestigationCursorPage {
            items: page.items.iter().map(|i| item(lang, i)).collect(),
            next_cursor: page.next_cursor.clone(),
            prev_cursor: page.prev_cursor.clone(),
            has_more: page.has_more,
            total_items: page.total_items,
            metadata: CursorMetadata {
                page_size: page.items.len(),
                direction: page.direction.as_str(),
                oldest_item: page.items.first().map(|i| ts(&i.created_at)),
                newest_item: page.items.last().map(|i| ts(&i.created_at)),
            },
        },
    )
}

/// Links to the first, previous, next and last pages of a list at `uri`: the same path and
/// parameters with the page number replaced.
pub fn page_links(uri: &axum::http::Uri, number: usize, pages: usize) -> PageLinks {
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
        format!("{}?{}", uri.path(), q.join("&"))
    };
    let last = pages.max(1);
    PageLinks {
        first: link(1),
        prev: (number > 1).then(|| link((number - 1).min(last))),
        next: (number < pages).then(|| link(number + 1)),
        last: link(last),
    }
}

/// The investigation list with its page metadata and links.
pub fn list(
    lang: Lang,
    page: &Page,
    number: usize,
    limit: usize,
    uri: &axum::http::Uri,
) -> Localized<InvestigationPage, PaginaInvestigacoes> {
    let pages = page.total.div_ceil(limit.max(1));
    localized(
        lang,
        InvestigationPage {
            data: page.items.iter().map(|inv| item(lang, inv)).collect(),
            meta: PageMeta { total: page.total, page: number, limit, pages },
            links: page_links(uri, number, pages),
        },
    )
}
