//! Tests of the codecs and the compression meter.

use super::*;

#[test]
fn every_codec_round_trips_the_sample_smaller() {
    for a in ALGORITHMS {
        let t = run_test(a, a.layer_level()).unwrap();
        assert!(t.compressed_size < t.original_size / 2, "{a:?}: {t:?}");
    }
    let gz = compress(Algorithm::Gzip, 9, sample()).unwrap();
    let mut back = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut back).unwrap();
    assert_eq!(back, sample());
}

#[test]
fn the_meter_sums_per_algorithm_and_overall() {
    let m = CompressionMeter::default();
    m.response();
    m.response();
    m.compressed(Algorithm::Gzip, 1000, 250, 10);
    m.uncompressed(2000);
    let s = m.snapshot();
    assert_eq!((s.total, s.all().responses, s.of(Algorithm::Gzip).compressed_bytes), (2, 1, 250));
    assert_eq!(s.uncompressed_large_bytes, 2000);
}
