//! Wiring and the ordered shutdown. `App::build` opens the store, starts the runtime, resumes
//! interrupted investigations and binds the listener; `run_until_stopped` serves until the
//! signal, then: stop accepting and end open streams, give running investigations the grace
//! period (the rest resume at next start), stop the agents, flush the store. A retention task
//! prunes what `[retention]` no longer keeps until shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tokio::net::TcpListener;

use crate::auth::JwtKeys;
use crate::config::Config;
use crate::domain::ports::DataProvider;
use crate::http::{self, AppParts, AppState};
use crate::runtime::{
    AgentFactory, RuntimeDeps, RuntimeHandle, ShutdownSignal, ShutdownTrigger, default_factory, shutdown_channel,
};
use crate::service::cache_warming::CacheWarmingService;
use crate::service::chat::ChatService;
use crate::service::database::DatabaseService;
use crate::service::federal::FederalService;
use crate::service::pools::PoolsService;
use crate::service::reports::ReportService;
use crate::service::retention::Retention;
use crate::service::transparency::TransparencyService;
use crate::service::{
    AdminService, AgentService, AuditService, AuthService, Durability, HealthService, InvestigationService, RateLimits,
    Services, WhitelistService,
};
use crate::storage::Store;
use crate::upstream::Provider;
use crate::upstream::federal::FederalSources;
use crate::upstream::federal::regional::WithRegionalFacts;

/// The parts every entry point needs (server and CLI): store, data, runtime, services.
pub struct Core {
    /// The store.
    pub store: Store,
    /// The data provider.
    pub provider: Arc<Provider>,
    /// The provider the analyses read: `provider`, its production batches with IBGE's
    /// population attached (`upstream::federal::regional`).
    pub data: Arc<dyn DataProvider>,
    /// The federal sources (production mode).
    pub federal: Option<FederalSources>,
    /// The actor runtime.
    pub runtime: RuntimeHandle,
    /// Investigations.
    pub investigations: Arc<InvestigationService>,
    /// Flips the shutdown signal.
    pub trigger: ShutdownTrigger,
    /// Ends streams at shutdown.
    pub signal: ShutdownSignal,
}

impl Core {
    /// Starts the runtime over `store` and builds the services.
    pub async fn build(config: &Config, factory: AgentFactory, store: Store) -> anyhow::Result<Core> {
        let provider = Arc::new(
            Provider::new(&config.upstream, config.demo.clone())
                .context("building the upstream client")?
                .with_sanctions_store(Arc::new(store.clone()))
                .with_organ_codes_store(Arc::new(store.clone()))
                .with_registry(&config.registry, &config.upstream, Arc::new(store.clone()))
                .context("building the company register client")?,
        );
        provider.start_sanctions_refresh();
        let federal = FederalSources::new(&config.upstream, &config.federal, provider.transparency_client())
            .context("building the federal clients")?;
        let data: Arc<dyn DataProvider> = Arc::new(WithRegionalFacts::new(provider.clone(), federal.as_ref()));
        let runtime = RuntimeHandle::start(RuntimeDeps {
            store: Arc::new(store.clone()),
            data: data.clone(),
            factory,
            agents: config.agents.clone(),
            min_records: config.investigations.min_records,
        })
        .await
        .context("starting the actor runtime")?;
        let (trigger, signal) = shutdown_channel();
        let investigations = Arc::new(InvestigationService::new(
            store.clone(),
            runtime.clone(),
            provider.clone(),
            config.investigations.max_concurrent,
            signal.clone(),
        ));
        Ok(Core { store, provider, data, federal, runtime, investigations, trigger, signal })
    }
}

/// A built, bound application.
pub struct App {
    listener: TcpListener,
    state: AppState,
    runtime: RuntimeHandle,
    store: Store,
    trigger: ShutdownTrigger,
    config: Config,
}

impl App {
    /// Builds with the real agents.
    pub async fn build(config: Config) -> anyhow::Result<App> {
        App::build_with(config, default_factory()).await
    }

    /// Builds with the given agent factory (tests inject failing agents).
    pub async fn build_with(config: Config, factory: AgentFactory) -> anyhow::Result<App> {
        let store = Store::open(&config.storage.data_dir, config.storage.cache_capacity_mb)
            .with_context(|| format!("opening the store in {}", config.storage.data_dir.display()))?;
        let core = Core::build(&config, factory, store).await?;
        let resumed = core.investigations.resume_interrupted().await.map_err(|e| anyhow::anyhow!("{}", e.message))?;
        if resumed > 0 {
            tracing::info!(resumed, "resumed interrupted investigations");
        }
        let health = Arc::new(
            HealthService::new(core.store.clone(), core.runtime.clone(), core.provider.clone())
                .with_federal(core.federal.clone()),
        );
        let audit = Arc::new(AuditService::new(core.store.clone()));
        let auth = build_auth(&config, &core.store, audit.clone()).await?;
        let admin = Arc::new(AdminService::new(core.runtime.clone(), core.store.clone()));
        admin.restore().await.map_err(|e| anyhow::anyhow!("agent pool settings: {}", e.message))?;
        let (whitelist, _seeded) = WhitelistService::open(core.store.clone(), config.security.ip_whitelist_enabled)
            .map_err(|e| anyhow::anyhow!("admin IP whitelist: {}", e.message))?;
        let agents = Arc::new(AgentService::new(
            core.runtime.clone(),
            core.store.clone(),
            core.data.clone(),
            std::time::Duration::from_secs(config.upstream.cache_ttl_secs),
        ));
        let reports = Arc::new(ReportService::new(core.investigations.clone()));
        let state = AppState::new(AppParts {
            services: Services {
                investigations: core.investigations.clone(),
                health,
                auth,
                admin: admin.clone(),
                agents: agents.clone(),
                reports: reports.clone(),
                chat: Arc::new(
                    ChatService::new(
                        core.store.clone(),
                        core.investigations.clone(),
                        agents,
                        reports,
                        !core.provider.production_mode(),
                    )
                    .with_llm(
                        crate::upstream::llm::LlmClient::from_config(&config.llm)
                            .map_err(|e| anyhow::anyhow!("language model: {e}"))?,
                    ),
                ),
                whitelist: Arc::new(whitelist),
                audit,
                rate_limits: Arc::new(RateLimits::new(config.rate_limit.enabled)),
                durability: Arc::new(Durability::new(core.store.clone())),
                compression: Arc::default(),
                database: Arc::new(DatabaseService::new(core.store.clone())),
                pools: Arc::new(PoolsService::new(core.store.clone(), core.provider.clone(), config.upstream.clone())),
                cache_warming: Arc::new(CacheWarmingService::new(
                    core.store.clone(),
                    core.data.clone(),
                    core.provider.clone(),
                    core.runtime.clone(),
                )),
                transparency: Arc::new(TransparencyService::new(core.federal.clone(), config.demo.clone())),
                federal: Arc::new(FederalService::new(core.federal.clone(), config.demo.clone())),
            },
            metrics: http::metrics_handle(),
            shutdown: core.signal.clone(),
            keep_alive_secs: config.server.keep_alive_secs,
            graphql: config.graphql.clone(),
        });
        let listener =
            TcpListener::bind(config.server.addr).await.with_context(|| format!("binding {}", config.server.addr))?;
        Ok(App { listener, state, runtime: core.runtime, store: core.store, trigger: core.trigger, config })
    }

    /// The store (tests read its counters, e.g. [`Store::full_reads`]).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The bound address (port 0 resolved).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().unwrap_or(self.config.server.addr)
    }

    /// Serves until `signal` resolves, then shuts down in order.
    pub async fn run_until_stopped(self, signal: impl Future<Output = ()> + Send + 'static) -> anyhow::Result<()> {
        let App { listener, state, runtime, store, trigger, config } = self;
        let retention = Retention::new(store.clone(), config.retention.clone());
        tokio::spawn(retention.run(state.shutdown.clone()));
        let health = state.services.health.clone();
        let app = http::app(state, config.server.body_limit_bytes);
        let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
        let h = health.clone();
        let shutdown = async move {
            signal.await;
            tracing::info!("shutting down: no new connections, ending streams");
            h.mark_not_ready();
            trigger.trigger();
            let _ = stopping_tx.send(());
        };
        let make = axum::ServiceExt::<axum::extract::Request>::into_make_service_with_connect_info::<SocketAddr>(app);
        // Streams send small events one after another: without TCP_NODELAY, Nagle holds each
        // behind the client's delayed ACK of the previous one (about 40 ms on loopback).
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let server = tokio::spawn(async move { axum::serve(listener, make).with_graceful_shutdown(shutdown).await });
        health.mark_ready();
        crate::runtime::memory::release_free_memory();
        tracing::info!(addr = %config.server.addr, mode = if config.production_mode() { "production" } else { "demo" }, "serving");

        let mut server = server;
        tokio::select! {
            r = &mut server => { r.context("server task")?.context("server")?; }
            _ = stopping_rx => {
                // Open connections get a moment to finish; streams already ended.
                if tokio::time::timeout(Duration::from_secs(3), &mut server).await.is_err() {
                    tracing::warn!("connections still open after 3 s; closing them");
                    server.abort();
                }
            }
        }
        runtime.shutdown(Duration::from_secs_f64(config.server.shutdown_grace_secs)).await;
        store.flush().await.context("flushing the store")?;
        tracing::info!("stopped");
        Ok(())
    }
}

/// The e-mail of the admin a first start creates when no `VIGIA_ADMIN_*` is set.
pub const FIRST_ADMIN_EMAIL: &str = "admin@vigia.local";

/// Loads (or on first start generates) the signing keys, forgets expired revocations and
/// creates the bootstrap admin from `VIGIA_ADMIN_EMAIL` / `VIGIA_ADMIN_PASSWORD` when no user
/// has that e-mail; with neither set and no user at all, creates [`FIRST_ADMIN_EMAIL`] with a
/// generated password printed once on standard output (never logged, stored only hashed), so
/// a new user signs in and starts an investigation without configuring anything.
async fn build_auth(config: &Config, store: &Store, audit: Arc<AuditService>) -> anyhow::Result<Arc<AuthService>> {
    let keys = JwtKeys::load_or_generate(&config.storage.data_dir, &config.auth.issuer)
        .context("loading the JWT signing keys")?;
    let auth = Arc::new(AuthService::new(store.clone(), Arc::new(keys), audit, &config.auth));
    auth.purge_expired_revocations().map_err(|e| anyhow::anyhow!("{}", e.message))?;
    match (&config.auth.admin_email, &config.auth.admin_password) {
        (Some(email), Some(password)) => {
            let created = auth
                .bootstrap_admin(email, secrecy::ExposeSecret::expose_secret(password))
                .await
                .map_err(|e| anyhow::anyhow!("bootstrap admin: {}", e.message))?;
            if created {
                tracing::info!(email = %email, "created the bootstrap admin");
            }
        }
        (Some(_), None) => tracing::warn!("VIGIA_ADMIN_EMAIL is set without VIGIA_ADMIN_PASSWORD: no bootstrap admin"),
        (None, Some(_)) => tracing::warn!("VIGIA_ADMIN_PASSWORD is set without VIGIA_ADMIN_EMAIL: no bootstrap admin"),
        (None, None) => {
            let first =
                auth.first_admin(FIRST_ADMIN_EMAIL).await.map_err(|e| anyhow::anyhow!("first admin: {}", e.message))?;
            if let Some(password) = first {
                store.flush().await.context("storing the first admin")?;
                // The terminal, not the log: logs are shipped and kept, this is shown once.
                println!(
                    "First start: created the admin {FIRST_ADMIN_EMAIL} with password {password}\n\
                     It is shown only now; sign in with POST /api/v1/auth/login and change it with \
                     POST /api/v1/auth/change-password."
                );
            }
        }
    }
    Ok(auth)
}

/// A future that resolves on Ctrl-C or SIGTERM. The handlers are installed when this is
/// called (inside the runtime), not when the future is first polled, so a signal that arrives
/// while the server is starting is already a graceful stop rather than the default kill. A
/// second signal during the graceful stop exits at once, with status 128 + the signal number.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            match (interrupt, terminate) {
                (Ok(mut i), Ok(mut t)) => {
                    tokio::select! { _ = i.recv() => {}, _ = t.recv() => {} }
                    tokio::spawn(async move {
                        let code = tokio::select! { _ = i.recv() => 130, _ = t.recv() => 143 };
                        tracing::warn!("second stop signal: exiting at once");
                        std::process::exit(code);
                    });
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
