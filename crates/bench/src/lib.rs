//! Benchmarks live in `benches/`; see BENCHMARKS.md.
