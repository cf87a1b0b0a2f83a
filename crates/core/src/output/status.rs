//! The process exit status every command ends with.

/// The process exit status (README, "Global options and exit status": 0, 1, 2 and 130).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// The command did what was asked.
    Success,
    /// The command ran, and the answer is negative (findings, work to do, nothing found).
    Negative,
    /// Bad usage or unusable input.
    Error,
    /// Interrupted by the user.
    Interrupted,
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(s: ExitStatus) -> Self {
        std::process::ExitCode::from(match s {
            ExitStatus::Success => 0,
            ExitStatus::Negative => 1,
            ExitStatus::Error => 2,
            ExitStatus::Interrupted => 130,
        })
    }
}
