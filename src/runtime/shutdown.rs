//! The process-wide shutdown signal: flips once, so that streams and long waits end when the
//! service stops.

use tokio::sync::watch;

/// A `watch`-based signal that flips once, for streams that must end at shutdown.
#[derive(Clone)]
pub struct ShutdownSignal(watch::Receiver<bool>);

/// The sending side of [`ShutdownSignal`].
pub struct ShutdownTrigger(watch::Sender<bool>);

/// A new trigger and its signal.
pub fn shutdown_channel() -> (ShutdownTrigger, ShutdownSignal) {
    let (tx, rx) = watch::channel(false);
    (ShutdownTrigger(tx), ShutdownSignal(rx))
}

impl ShutdownTrigger {
    /// Flips the signal.
    pub fn trigger(&self) {
        let _ = self.0.send(true);
    }
}

impl ShutdownSignal {
    /// Resolves once shutdown began.
    pub async fn wait(mut self) {
        let _ = self.0.wait_for(|v| *v).await;
    }
    /// Whether shutdown began.
    pub fn is_triggered(&self) -> bool {
        *self.0.borrow()
    }
}
