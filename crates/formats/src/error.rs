//! The one error type of this crate: what went wrong, in which file, section and item.

use std::fmt;

use fastzk_curve::serialize::SerializeError;

/// Why a file could not be read or written.
///
/// The message names the file (the path given to `open`, or the name given to
/// `from_bytes`), the section (`"section 5 (A)"`, `"pi_a"`), and the index of the
/// offending item where there is one.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {}{kind}", Location(.section, .index))]
pub struct FormatError {
    /// The file at fault.
    pub file: String,
    /// The section or JSON field at fault, if known.
    pub section: Option<String>,
    /// The index of the item at fault within the section, if known.
    pub index: Option<u64>,
    /// What is wrong. Not a `#[source]`: the message already includes it, and error
    /// reporters that print the chain would say it twice.
    pub kind: ErrorKind,
}

struct Location<'a>(&'a Option<String>, &'a Option<u64>);

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = self.0 {
            write!(f, "{s}: ")?;
        }
        if let Some(i) = self.1 {
            write!(f, "item {i}: ")?;
        }
        Ok(())
    }
}

/// The kinds of [`FormatError`].
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    #[error("cannot read or write the file: {0}")]
    Io(#[from] std::io::Error),
    #[error("file ends early: {needed} bytes needed, {available} left")]
    Truncated { needed: u64, available: u64 },
    #[error("wrong magic {found:?}, expected {expected:?} (not a .{expected} file)")]
    Magic { found: String, expected: String },
    #[error("unsupported version {found} (supported: {supported})")]
    Version { found: u32, supported: String },
    #[error("section {0} appears more than once")]
    DuplicateSection(u32),
    #[error("required section {0} is missing")]
    MissingSection(u32),
    #[error("{0} trailing bytes after the last section")]
    TrailingBytes(u64),
    #[error("file uses {found} but {expected} was expected")]
    WrongCurve { found: String, expected: String },
    #[error("invalid point: {0}")]
    Point(#[from] SerializeError),
    #[error("value is not below the field modulus {modulus}")]
    NotCanonical { modulus: String },
    #[error("{0}")]
    Invalid(String),
    #[error("not supported: {0}")]
    Unsupported(String),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl FormatError {
    pub fn new(file: &str, kind: ErrorKind) -> Self {
        Self {
            file: file.to_owned(),
            section: None,
            index: None,
            kind,
        }
    }

    /// Sets the section (keeps one already set: the innermost context wins).
    pub fn in_section(mut self, section: impl Into<String>) -> Self {
        if self.section.is_none() {
            self.section = Some(section.into());
        }
        self
    }

    /// Sets the item index (keeps one already set).
    pub fn at(mut self, index: u64) -> Self {
        if self.index.is_none() {
            self.index = Some(index);
        }
        self
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = FormatError> = std::result::Result<T, E>;

/// Error-building context: a file name and, optionally, a section.
#[derive(Clone, Copy, Debug)]
pub struct Ctx<'a> {
    pub file: &'a str,
    pub section: Option<&'a str>,
}

impl<'a> Ctx<'a> {
    pub fn new(file: &'a str) -> Self {
        Self {
            file,
            section: None,
        }
    }

    pub fn section(self, section: &'a str) -> Self {
        Self {
            section: Some(section),
            ..self
        }
    }

    pub fn err(&self, kind: ErrorKind) -> FormatError {
        let e = FormatError::new(self.file, kind);
        match self.section {
            Some(s) => e.in_section(s),
            None => e,
        }
    }

    pub fn invalid(&self, msg: impl Into<String>) -> FormatError {
        self.err(ErrorKind::Invalid(msg.into()))
    }

    pub fn invalid_at(&self, index: u64, msg: impl Into<String>) -> FormatError {
        self.invalid(msg).at(index)
    }
}
