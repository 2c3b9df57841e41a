//! Spending over time: end-of-year rushes ([`end_of_year`]), monthly and daily spikes, regime
//! changes, clockwork periodicity, dates out of order and months above their forecast.

pub mod dates;
pub mod end_of_year;
pub mod forecast;
pub mod periodicity;
pub mod regime;
pub mod spikes;
pub mod spikes_daily;
