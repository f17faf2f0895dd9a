//! The `symalias` command. See `symalias --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    symalias::cli::main()
}
