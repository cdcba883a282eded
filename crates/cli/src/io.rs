//! Reading inputs (a file or standard input) and writing outputs atomically.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// The whole text of `path`, or of standard input when `path` is `-`.
pub fn read_text(path: &Path) -> Result<String> {
    let mut text = String::new();
    if path.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text).context("cannot read standard input")?;
    } else {
        text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    }
    Ok(text)
}

/// Writes `path` through a temporary file in the same folder, renamed into place only once
/// `write` has succeeded: readers see the old file or the complete new one, never a part.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    {
        let mut out = std::io::BufWriter::new(file.as_file_mut());
        write(&mut out)
            .and_then(|()| out.flush())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    file.as_file().sync_all().with_context(|| format!("cannot write {}", path.display()))?;
    file.persist(path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Prints `value` as pretty JSON on standard output.
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// Physical memory in bytes (Linux), if known.
pub fn memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
