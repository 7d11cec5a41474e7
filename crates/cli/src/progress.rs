//! What a command shows while it runs: a spinner naming the step (hidden when stderr is
//! not a terminal), checked steps with their times, and a prover's phases.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

/// A spinner on stderr naming the current step; hidden when stderr is not a terminal.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new() -> Self {
        let bar = if std::io::stderr().is_terminal() {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                    .expect("static template"),
            );
            b.enable_steady_tick(Duration::from_millis(100));
            b
        } else {
            ProgressBar::hidden()
        };
        Self { bar }
    }
    pub fn step(&self, msg: &'static str) {
        self.bar.set_message(msg);
    }
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Runs `f`, then prints `label` with its wall time (an error stops before printing).
pub fn step<T>(label: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let t = Instant::now();
    let out = f()?;
    println!(
        "  ok  {label:<58} {:>9.2} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    Ok(out)
}

/// Prints phases in order, each followed by the parts that ran concurrently inside it
/// (`(phase, part, own wall time)`).
pub fn print_timings(
    phases: &[(&'static str, Duration)],
    overlapping: &[(&'static str, &'static str, Duration)],
    total: Duration,
) {
    eprint_whole(&format_timings(phases, overlapping, total));
}

/// [`print_timings`]' text: a line a phase, then the total and the peak memory.
pub fn format_timings(
    phases: &[(&'static str, Duration)],
    overlapping: &[(&'static str, &'static str, Duration)],
    total: Duration,
) -> String {
    // One column wide enough for the longest name.
    let w = phases
        .iter()
        .map(|(l, _)| l.chars().count())
        .chain(overlapping.iter().map(|(_, p, _)| p.chars().count() + 2))
        .max()
        .unwrap_or(0)
        .max(28);
    let mut out = String::new();
    for (label, d) in phases {
        out += &format!("  {label:<w$} {:>10.2} ms\n", d.as_secs_f64() * 1e3);
        for (_, part, d) in overlapping.iter().filter(|(phase, _, _)| phase == label) {
            out += &format!(
                "    {part:<w2$} {:>10.2} ms (overlapping)\n",
                d.as_secs_f64() * 1e3,
                w2 = w - 2
            );
        }
    }
    out += &format!("  {:<w$} {:>10.2} ms\n", "total", total.as_secs_f64() * 1e3);
    if let Some(peak) = crate::memory::peak_rss() {
        out += &format!(
            "  {:<w$} {:>10.1} MiB\n",
            "peak memory (RSS)",
            peak as f64 / (1 << 20) as f64
        );
    }
    out
}

/// Writes `text` to stderr in one call, so that processes sharing the stream (the ranks
/// of an MPI job) do not interleave inside it.
pub fn eprint_whole(text: &str) {
    use std::io::Write;
    // Nothing to do if stderr is gone.
    std::io::stderr().lock().write_all(text.as_bytes()).ok();
}

/// Concurrent parts that all ran inside one phase, in [`print_timings`]' form.
pub fn under(
    phase: &'static str,
    parts: &[(&'static str, Duration)],
) -> Vec<(&'static str, &'static str, Duration)> {
    parts.iter().map(|(part, d)| (phase, *part, *d)).collect()
}
