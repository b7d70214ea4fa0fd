//! Retry delays (SPEC §9.1): `backoff(n) = min(2^(n−1) s, backoff-maximo)` — 1 s, 2 s, 4 s … capped
//! at 5 min — and the delay actually used is that times a random factor in [0.8, 1.0], so it never
//! exceeds the cap and a fleet recovering from an outage does not retry in lockstep.

use std::time::Duration;

/// The delay before attempt `n + 1`, after `n` failures (n ≥ 1), before jitter.
pub fn backoff(n: i32, maximo: Duration) -> Duration {
    let exp = n.saturating_sub(1).clamp(0, 20) as u32;
    Duration::from_secs(1u64 << exp).min(maximo)
}

/// `backoff(n)` times `factor`, which must be within [0.8, 1.0].
pub fn with_jitter(n: i32, maximo: Duration, factor: f64) -> Duration {
    backoff(n, maximo).mul_f64(factor.clamp(0.8, 1.0))
}

/// A random jitter factor in [0.8, 1.0].
pub fn random_factor() -> f64 {
    0.8 + 0.2 * fastrand::f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: Duration = Duration::from_secs(300);

    #[test]
    fn doubles_from_one_second_up_to_the_cap() {
        assert_eq!(backoff(1, CAP), Duration::from_secs(1));
        assert_eq!(backoff(2, CAP), Duration::from_secs(2));
        assert_eq!(backoff(4, CAP), Duration::from_secs(8));
        assert_eq!(backoff(9, CAP), Duration::from_secs(256));
        assert_eq!(backoff(10, CAP), CAP);
        assert_eq!(backoff(40, CAP), Duration::from_secs(300));
        assert_eq!(backoff(i32::MAX, CAP), CAP);
    }

    #[test]
    fn jitter_stays_within_80_to_100_percent_and_never_exceeds_the_cap() {
        for n in [1, 4, 40] {
            let base = backoff(n, CAP);
            for _ in 0..1000 {
                let d = with_jitter(n, CAP, random_factor());
                assert!(d <= base && d >= base.mul_f64(0.8), "n={n}: {d:?} vs {base:?}");
            }
        }
        assert_eq!(with_jitter(4, CAP, 0.8), Duration::from_millis(6400));
        assert_eq!(with_jitter(4, CAP, 1.0), Duration::from_secs(8));
    }
}
