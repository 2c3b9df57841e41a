//! Queries: `me`, `investigation`, `investigations`, `contracts` and `agentStats`, each one
//! call of the facade its REST route calls (`/auth/me`, `/investigations/{id}`,
//! `/investigations`, the direct calls' data fetch, `/agents/status`), with the optional caller.

use async_graphql::{Context, ID, Object};

use super::inputs::{PaginationInput, SearchFilter, list_query};
use super::schema::{GqlResult, investigation_id, services, viewer};
use super::types::{AgentStats, Contract, Investigation, User};
use crate::service::agent_request::AgentRequest;
use crate::service::contracts::ContractOrder;

/// The query root.
pub struct Query;

#[Object]
impl Query {
    /// The signed-in caller (null when anonymous).
    async fn me(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<User>> {
        let Some(who) = viewer(ctx)? else { return Ok(None) };
        Ok(Some(services(ctx).auth.me(who).gql()?.into()))
    }

    /// One investigation the caller may see (public ones, their own; all for an admin).
    async fn investigation(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<Option<Investigation>> {
        let id = investigation_id(&id)?;
        Ok(Some(services(ctx).investigations.head(id, viewer(ctx)?).gql()?.into()))
    }

    /// The investigations the caller lists (their own; all for an admin; the public ones when
    /// anonymous), filtered, ordered (newest first by default) and paged.
    #[graphql(complexity = "PaginationInput::size(&pagination) * child_complexity")]
    async fn investigations(
        &self,
        ctx: &Context<'_>,
        filters: Option<Vec<SearchFilter>>,
        pagination: Option<PaginationInput>,
    ) -> async_graphql::Result<Vec<Investigation>> {
        let paging = PaginationInput::paging(pagination.as_ref()).gql()?;
        let q = list_query(filters.as_deref().unwrap_or_default(), &paging).gql()?;
        let page = services(ctx).investigations.list(&q, viewer(ctx)?).gql()?;
        Ok(page.items.into_iter().skip(paging.offset).map(Investigation::from).collect())
    }

    /// Contracts of an organ and value range (and year) whose object, supplier or number
    /// contains every word of `search`, largest first by default.
    #[graphql(complexity = "PaginationInput::size(&pagination) * child_complexity")]
    #[allow(clippy::too_many_arguments)]
    async fn contracts(
        &self,
        ctx: &Context<'_>,
        search: Option<String>,
        orgao: Option<String>,
        min_value: Option<f64>,
        max_value: Option<f64>,
        year: Option<i32>,
        pagination: Option<PaginationInput>,
    ) -> async_graphql::Result<Vec<Contract>> {
        let paging = PaginationInput::paging(pagination.as_ref()).gql()?;
        let req = AgentRequest { orgao, ano: year, min_value, max_value, ..AgentRequest::default() };
        let order = ContractOrder {
            by: paging.order_by,
            ascending: paging.ascending,
            offset: paging.offset,
            limit: paging.limit,
        };
        let page = services(ctx).agents.contracts(&req, search.as_deref(), &order).await.gql()?;
        Ok(page.contracts().map(Contract::from).collect())
    }

    /// Every agent's state and statistics.
    async fn agent_stats(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<AgentStats>> {
        Ok(services(ctx).agents.status().await.gql()?.into_iter().map(AgentStats::from).collect())
    }
}
