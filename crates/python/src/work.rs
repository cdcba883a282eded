//! Running the library's long calls from Python: off the GIL, on a thread of their own, stopped
//! by Ctrl-C, panics turned into exceptions; and JSON reports turned into Python values.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often a waiting call looks for Ctrl-C: a `KeyboardInterrupt` is seen within this, and
/// the work is told to stop at once.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own while the calling thread waits without the GIL (so other
/// Python threads run) and looks for signals. On Ctrl-C, raises the flag `work` was given, waits
/// for the work to return (the library's searches stop within tens of milliseconds, builds
/// within a chunk of their current part), then raises the `KeyboardInterrupt`. A panic of the work becomes a
/// `RuntimeError` naming it.
pub fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce(Arc<AtomicBool>) -> T + Send) -> PyResult<T> {
    interruptible_with(py, Arc::new(AtomicBool::new(false)), work)
}

/// [`interruptible`] raising `stop` on Ctrl-C, a flag the caller may also raise for its own
/// reasons (a Python game's exception stops the search that calls it).
pub fn interruptible_with<T: Send>(
    py: Python<'_>,
    stop: Arc<AtomicBool>,
    work: impl FnOnce(Arc<AtomicBool>) -> T + Send,
) -> PyResult<T> {
    let (result, signal) = py.detach(|| {
        std::thread::scope(|scope| {
            let (done, finished) = mpsc::channel::<()>();
            let flag = Arc::clone(&stop);
            let worker = scope.spawn(move || {
                let result = work(flag);
                let _ = done.send(());
                result
            });
            let mut signal = None;
            // Disconnected: the work ended, by returning or by a panic.
            while let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(SIGNAL_POLL) {
                if signal.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        stop.store(true, Relaxed);
                        signal = Some(e);
                    }
                }
            }
            (worker.join(), signal)
        })
    });
    if let Some(signal) = signal {
        return Err(signal);
    }
    result.map_err(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        PyRuntimeError::new_err(format!("gamegraph failed inside (a bug, please report it): {message}"))
    })
}

/// `value` as Python objects (dicts, lists, numbers, strings, None), through Python's own JSON
/// reader so that the keys and numbers are exactly what `--json` prints.
pub fn to_python(py: Python<'_>, value: &serde_json::Value) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// Panics inside the library on purpose, on the thread where long calls run: the tests check
/// that a panic reaches Python as an exception, not as an abort of the interpreter.
#[pyfunction]
pub fn _panic_for_test(py: Python<'_>) -> PyResult<()> {
    interruptible(py, |_| -> () { panic!("deliberate panic for a test") })
}
