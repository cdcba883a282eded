//! Progress bars on standard error for long database work, the same in every front end that
//! draws on a terminal (the command line, Python): one bar a part, with its time left, and the
//! line that says what each part did. Behind the `progress-bars` feature (indicatif).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};

use crate::databases::Progress;

/// Long work on standard error: a progress bar for each piece of work (with its time left),
/// and the line that says what each did.
pub struct ProgressBars {
    bar: std::sync::Mutex<Option<ProgressBar>>,
    /// Whether the bars are drawn (on a terminal only, whatever this says).
    bars: bool,
    /// Whether the lines are printed.
    lines: bool,
    /// Raised by the user to stop the work.
    interrupt: Option<Arc<AtomicBool>>,
}

impl ProgressBars {
    /// Bars and lines, or nothing at all when `quiet` (JSON on standard output, say).
    pub fn new(quiet: bool) -> Self {
        Self { bar: std::sync::Mutex::new(None), bars: !quiet, lines: !quiet, interrupt: None }
    }

    /// Bars only: the report printed at the end says what each piece of work did.
    pub fn bars_only() -> Self {
        Self { bar: std::sync::Mutex::new(None), bars: true, lines: false, interrupt: None }
    }

    /// Stops the work once `interrupt` is raised (a user's Ctrl-C): see [`Progress::interrupted`].
    pub fn with_interrupt(mut self, interrupt: Arc<AtomicBool>) -> Self {
        self.interrupt = Some(interrupt);
        self
    }
}

impl Progress for ProgressBars {
    fn started(&self, what: &str, units: u64) {
        let style = ProgressStyle::with_template(
            "{msg:>10} [{bar:30}] {percent:>3}%  {per_sec:>16}  {elapsed_precise} elapsed, {eta} left",
        )
        .expect("a valid template")
        .progress_chars("=> ");
        let bar = if self.bars { ProgressBar::new(units) } else { ProgressBar::hidden() };
        let bar = bar.with_style(style).with_message(what.to_string());
        if let Some(old) = self.bar.lock().expect("not poisoned").replace(bar) {
            old.finish_and_clear();
        }
    }

    fn advanced(&self, units: u64) {
        if let Some(bar) = &*self.bar.lock().expect("not poisoned") {
            bar.inc(units);
        }
    }

    fn finished(&self, line: &str) {
        if let Some(bar) = self.bar.lock().expect("not poisoned").take() {
            bar.finish_and_clear();
        }
        if self.lines {
            eprintln!("{line}");
        }
    }

    fn interrupted(&self) -> bool {
        self.interrupt.as_ref().is_some_and(|i| i.load(Relaxed))
    }
}
