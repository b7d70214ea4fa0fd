//! `giro bench`: measurements of a running Girô, on scratch databases of the cluster it is
//! pointed at, with a progress display on stderr and a JSON result. Figures and method are
//! recorded in `BENCHMARKS.md`. Speed is measured here, never by timed tests.

pub mod checkout;
pub mod relay;
pub mod scratch;

use std::time::Duration;

/// Percentile `p` (0–100) of sorted `xs` (nearest rank).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let xs: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&xs, 50.0), Duration::from_millis(50));
        assert_eq!(percentile(&xs, 99.0), Duration::from_millis(99));
        assert_eq!(percentile(&xs, 100.0), Duration::from_millis(100));
        assert_eq!(percentile(&[], 50.0), Duration::ZERO);
    }
}
