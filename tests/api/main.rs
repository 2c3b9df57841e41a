//! The one integration-test binary: the real app on 127.0.0.1:0 with a temporary sled
//! directory, driven by real HTTP and SSE clients; the real binary for the CLI and crash tests;
//! a local HTTP server standing in for the upstream with its real record shapes.

mod admin;
mod admin_cache;
mod admin_extra;
mod agents;
mod analysis_cache;
mod audit;
mod auth;
mod chat;
mod chat_history;
mod chat_ws;
mod cli;
mod concurrency;
mod crash;
mod durable;
mod errors;
mod federal;
mod federal_standin;
mod first_start;
mod graphql;
mod health;
mod helpers;
mod investigations;
mod mfa;
mod openapi;
mod permissions;
mod ratelimit;
mod sessions;
mod shutdown;
mod signals;
mod transparency;
mod upstream;
mod upstream_faults;
mod upstream_real;
mod upstream_stand_in;
