//! The MCP side: the handler rmcp drives (tools/list, tools/call), each call run on a
//! blocking thread beside the one-thread runtime, and the stdio transport served until the
//! client closes stdin.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};

use crate::call::State;
use crate::{ServeError, ToolError, tools};

/// The handler: the state shared with the call threads.
struct Handler {
    state: Arc<State>,
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new(
                "surface-viewer",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Read-only questions about deepseek-harness session logs under the server's roots: \
                 sessions, check, surface, messages, request, events, audit, policy, cost, compare, tune. \
                 Paths are relative to a root. A cut answer carries next_cursor: pass it as cursor.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::listed()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::listed().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let state = self.state.clone();
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let answer = tokio::task::spawn_blocking(move || state.call(&name, arguments))
            .await
            .unwrap_or_else(|e| Err(ToolError::Internal(e.to_string())));
        Ok(match answer {
            Ok(answer) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(answer.summary)]);
                result.structured_content = Some(answer.structured);
                result
            }
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
        }
        .into())
    }
}

/// Serves `state` on stdio until the client closes stdin.
pub async fn run(state: State) -> Result<(), ServeError> {
    let handler = Handler {
        state: Arc::new(state),
    };
    let service = handler
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| ServeError::Transport(e.to_string()))?;
    Ok(())
}
