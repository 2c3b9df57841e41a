//! The learned models the detectors use, behind small wrappers over linfa: k-means fitted on a
//! deterministic sample of rows, then applied to every row by a plain nearest-centroid loop
//! (linear in the rows, no allocation per row).

use linfa::DatasetBase;
use linfa::traits::Fit;
use linfa_clustering::KMeans;
use ndarray::Array2;

/// Fitted k-means centroids over rows of `dim` features.
#[derive(Debug, Clone, PartialEq)]
pub struct Centroids {
    /// Number of features per row.
    pub dim: usize,
    /// `k * dim` centroid coordinates, row after row.
    pub coords: Vec<f64>,
}

impl Centroids {
    /// Fits k-means with `k` clusters (k-means++ initialisation, fixed seed, 2 runs of at most
    /// 40 iterations) on at most
    /// `max_rows` rows of `data` (`dim` features per row, row after row), taken at a fixed
    /// stride so the result does not depend on anything but the data. `None` when there are
    /// fewer than `2k` rows or the fit fails.
    pub fn fit(data: &[f64], dim: usize, k: usize, max_rows: usize) -> Option<Centroids> {
        if dim == 0 || k == 0 {
            return None;
        }
        let n = data.len() / dim;
        if n < 2 * k {
            return None;
        }
        let step = n.div_ceil(max_rows.max(1)).max(1);
        let mut sample = Vec::with_capacity((n / step + 1) * dim);
        for r in (0..n).step_by(step) {
            sample.extend_from_slice(&data[r * dim..(r + 1) * dim]);
        }
        let rows = sample.len() / dim;
        let records = Array2::from_shape_vec((rows, dim), sample).ok()?;
        let model =
            KMeans::params(k).n_runs(2).max_n_iterations(40).tolerance(1e-4).fit(&DatasetBase::from(records)).ok()?;
        let coords: Vec<f64> = model.centroids().iter().copied().collect();
        (coords.len() == k * dim && coords.iter().all(|x| x.is_finite())).then_some(Centroids { dim, coords })
    }

    /// Like [`Centroids::fit`], then drops the clusters holding fewer than `min_share` of the
    /// fitted rows (at least 5 rows): k-means++ seeds clusters at far-away points, so a handful
    /// of outliers can end up with a centroid of their own, which would hide them.
    pub fn fit_substantial(data: &[f64], dim: usize, k: usize, max_rows: usize, min_share: f64) -> Option<Centroids> {
        let full = Centroids::fit(data, dim, k, max_rows)?;
        let n = data.len() / dim;
        let step = n.div_ceil(max_rows.max(1)).max(1);
        let mut counts = vec![0usize; full.k()];
        let mut rows = 0usize;
        for r in (0..n).step_by(step) {
            counts[full.nearest(&data[r * dim..(r + 1) * dim]).0] += 1;
            rows += 1;
        }
        let min = ((rows as f64 * min_share).ceil() as usize).max(5);
        let coords: Vec<f64> =
            (0..full.k()).filter(|&c| counts[c] >= min).flat_map(|c| full.centroid(c).to_vec()).collect();
        (!coords.is_empty()).then_some(Centroids { dim, coords })
    }

    /// Number of clusters.
    pub fn k(&self) -> usize {
        self.coords.len() / self.dim.max(1)
    }

    /// One centroid.
    pub fn centroid(&self, c: usize) -> &[f64] {
        &self.coords[c * self.dim..(c + 1) * self.dim]
    }

    /// The nearest centroid of a row and the squared distance to it.
    pub fn nearest(&self, row: &[f64]) -> (usize, f64) {
        let mut best = (0, f64::INFINITY);
        for c in 0..self.k() {
            let d: f64 = self.centroid(c).iter().zip(row).map(|(a, b)| (a - b) * (a - b)).sum();
            if d < best.1 {
                best = (c, d);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_separated_blobs_give_two_centroids_and_rows_find_their_own() {
        let mut data = Vec::new();
        for i in 0..50 {
            let e = (i % 5) as f64 * 0.01;
            data.extend_from_slice(&[0.0 + e, 0.0 - e]);
            data.extend_from_slice(&[10.0 + e, 10.0 - e]);
        }
        let c = Centroids::fit(&data, 2, 2, 1000).unwrap();
        assert_eq!(c.k(), 2);
        let (a, da) = c.nearest(&[0.1, 0.0]);
        let (b, db) = c.nearest(&[9.9, 10.0]);
        assert_ne!(a, b);
        assert!(da < 0.1 && db < 0.1);
        assert_eq!(Centroids::fit(&data, 2, 2, 1000), Some(c), "deterministic");
        assert!(Centroids::fit(&[1.0, 2.0], 2, 2, 10).is_none());
        // Two far points get their own cluster from k-means++, which pruning removes.
        let mut with_outliers = data.clone();
        with_outliers.extend_from_slice(&[100.0, -100.0, 101.0, -100.0]);
        let pruned = Centroids::fit_substantial(&with_outliers, 2, 3, 1000, 0.05).unwrap();
        assert_eq!(pruned.k(), 2);
        assert!(pruned.nearest(&[100.0, -100.0]).1 > 1000.0);
    }
}
