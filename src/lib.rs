//! Vigia: HOW the analysis runs and is reached. Configuration, storage (sled), the upstream
//! clients, the actor runtime hosting the analysis agents, the service facades and the HTTP
//! shell. What is analysed lives in the `vigia-agents` crate.
//!
//! Layers point one way: `agents <- domain <- {storage, upstream, runtime, auth} <- service <-
//! http <- startup <- main`.

pub mod auth;
pub mod cli;
pub mod config;
pub mod domain;
pub mod error;
pub mod http;
pub mod priority;
pub mod runtime;
pub mod service;
pub mod startup;
pub mod storage;
pub mod telemetry;
pub mod upstream;

pub use error::{Error, ErrorCode};

/// Counts allocations per thread so agents' memory is measured, not guessed
/// (see [`runtime::memory`]).
#[global_allocator]
static ALLOCATOR: runtime::memory::CountingAllocator = runtime::memory::CountingAllocator;
