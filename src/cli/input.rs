//! Reading a command's input: a file path, or `-` for standard input.

use std::io::{BufRead, BufReader};

/// Opens `path` (`-` = stdin) as a buffered reader.
pub fn open(path: &str) -> Result<Box<dyn BufRead>, String> {
    if path == "-" {
        return Ok(Box::new(BufReader::new(std::io::stdin())));
    }
    std::fs::File::open(path)
        .map(|f| Box::new(BufReader::new(f)) as Box<dyn BufRead>)
        .map_err(|e| format!("cannot open {path}: {e}"))
}
