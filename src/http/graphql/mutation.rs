//! Mutations: `createInvestigation`, `cancelInvestigation` and `sendChatMessage`, each for a
//! signed-in caller only (UNAUTHORIZED otherwise) and one call of the facade the REST route
//! calls, with its permission and ownership checks.

use async_graphql::{Context, ID, Object};

use super::inputs::{ChatInput, InvestigationInput};
use super::schema::{GqlResult, investigation_id, services, signed_in};
use super::types::{ChatMessage, Investigation};
use crate::domain::InvestigationHead;
use crate::service::chat::{Caller, ChatRequest};

/// The mutation root.
pub struct Mutation;

#[Object]
impl Mutation {
    /// Starts an investigation owned by the caller (needs `escrever:investigacoes`).
    async fn create_investigation(
        &self,
        ctx: &Context<'_>,
        input: InvestigationInput,
    ) -> async_graphql::Result<Investigation> {
        let who = signed_in(ctx)?;
        let req = input.request().gql()?;
        let started = services(ctx).investigations.start(req, Some(who)).await.gql()?;
        Ok(InvestigationHead::from(&started.investigation).into())
    }

    /// Cancels a running investigation (needs `deletar:investigacoes` and ownership, or an
    /// admin); a finished one is a CONFLICT.
    async fn cancel_investigation(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<Investigation> {
        let who = signed_in(ctx)?;
        let id = investigation_id(&id)?;
        let investigations = &services(ctx).investigations;
        investigations.cancel(id, who).await.gql()?;
        Ok(investigations.head(id, Some(who)).gql()?.into())
    }

    /// One chat turn, answered when it is complete and stored.
    async fn send_chat_message(&self, ctx: &Context<'_>, input: ChatInput) -> async_graphql::Result<ChatMessage> {
        let who = signed_in(ctx)?;
        let req = ChatRequest {
            message: input.message,
            agent_name: input.agent_name,
            session_id: input.session_id,
            stream: Some(false),
            ..ChatRequest::default()
        };
        let caller = Caller { principal: Ok(Some(who.clone())), refused: None };
        Ok(services(ctx).chat.reply(req, caller).await.gql()?.into())
    }
}
