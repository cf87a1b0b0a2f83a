//! Deterministic randomness for the examples (the corpus generator, the mutation fuzzer).
#![allow(dead_code)] // each example uses its own part

/// SplitMix64: tiny, fast, and good enough for synthetic data.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut r = Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B);
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn pick<'a, T>(&mut self, s: &'a [T]) -> &'a T {
        &s[self.below(s.len() as u64) as usize]
    }

    pub fn one<T: Copy>(&mut self, s: &[T]) -> T {
        *self.pick(s)
    }

    /// Log-uniform in `lo..hi`: many small values, a long tail.
    pub fn log_uniform(&mut self, lo: u64, hi: u64) -> u64 {
        (lo as f64 * (hi as f64 / lo as f64).powf(self.unit())) as u64
    }

    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next_u64())
    }
}
