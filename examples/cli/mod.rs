//! The examples' command line: `--name value` options and `--name` switches, with a message and
//! exit status 2 for a value that does not parse.
#![allow(dead_code, reason = "each example uses the part it needs")]

use std::str::FromStr;

use webgpu_msm::CurveId;

/// The process's arguments.
pub(crate) struct Args(Vec<String>);

impl Args {
    pub(crate) fn from_env() -> Self {
        Args(std::env::args().collect())
    }

    /// The value after `--name`, if the option is given.
    pub(crate) fn value(&self, name: &str) -> Option<&str> {
        let at = self.0.iter().position(|a| a == name)?;
        self.0.get(at + 1).map(String::as_str)
    }

    /// Whether the switch `--name` is given.
    pub(crate) fn flag(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }

    /// The value after `--name` parsed as `T`, if given; `what` says what it takes.
    pub(crate) fn parsed<T: FromStr>(&self, name: &str, what: &str) -> Option<T> {
        self.value(name).map(|v| v.parse().unwrap_or_else(|_| exit(&format!("{name} takes {what}, not {v:?}"))))
    }

    /// `--curve`, or `default`, as one of this build's curves.
    pub(crate) fn curve(&self, default: &str) -> CurveId {
        self.value("--curve").unwrap_or(default).parse().unwrap_or_else(|e| exit(&format!("{e}")))
    }

    /// `--log-size`, or `default`.
    pub(crate) fn log_size(&self, default: u32) -> u32 {
        self.parsed("--log-size", "an integer").unwrap_or(default)
    }
}

/// Prints `message` and exits with status 2 (bad arguments).
pub(crate) fn exit(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2)
}
