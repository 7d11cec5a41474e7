//! A test binary's checks as `libtest-mimic` trials, so that a check this host cannot run
//! (it lacks the CPU instructions, or a switch turns them off) is reported *ignored, with
//! its reason* instead of passing. Used by the IFMA suites ([`crate::ifma`]) and the packed
//! Goldilocks backend checks.

use libtest_mimic::{Arguments, Completion, Trial};

pub use libtest_mimic;

/// The trials of one test binary: each check on the model (runs everywhere) and on the
/// CPU's instructions (ignored, with the reason, where they cannot run).
#[derive(Default)]
pub struct Trials(Vec<Trial>);

impl Trials {
    /// `check` on the software model of the lanes, as `{name}::on_model`.
    pub fn on_model(&mut self, name: &str, check: impl FnOnce() + Send + 'static) {
        self.plain(&format!("{name}::on_model"), check);
    }

    /// `check` on the CPU's instructions, as `{name}::on_avx512`; ignored with the
    /// reason where they cannot run.
    pub fn on_avx512(&mut self, name: &str, check: impl FnOnce() + Send + 'static) {
        self.when(
            &format!("{name}::on_avx512"),
            crate::ifma::hardware(),
            check,
        );
    }

    /// `check` on the FMA lanes ([`fastzk_field::ifma::avx2`]), as `{name}::on_fma`;
    /// ignored with the reason where they cannot run.
    pub fn on_fma(&mut self, name: &str, check: impl FnOnce() + Send + 'static) {
        self.when(&format!("{name}::on_fma"), crate::ifma::fma_lanes(), check);
    }

    /// `check` as `name` where `available` is `Ok`; otherwise reported ignored with its
    /// reason (any check that needs something this host may lack).
    pub fn when(
        &mut self,
        name: &str,
        available: Result<(), &'static str>,
        check: impl FnOnce() + Send + 'static,
    ) {
        self.0.push(Trial::ignorable_test(
            name.to_string(),
            move || match available {
                Ok(()) => {
                    check();
                    Ok(Completion::Completed)
                }
                Err(why) => Ok(Completion::ignored_with(why)),
            },
        ));
    }

    /// A check that needs neither (conversions, reference paths).
    pub fn plain(&mut self, name: &str, check: impl FnOnce() + Send + 'static) {
        self.0.push(Trial::test(name.to_string(), move || {
            check();
            Ok(())
        }));
    }

    /// Runs the trials with the command line's filters and exits with their status.
    pub fn run(self) -> ! {
        let args = Arguments::from_args();
        libtest_mimic::run(&args, self.0).exit()
    }
}
