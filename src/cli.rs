//! What the command line says about itself: shell completions and man pages, written from the
//! `clap` definition of the `factgate` command (given by the binary), so they list exactly the
//! commands and options it takes.

/// Exit status of `check` when an article is blocked, and of `recheck` when one is newly blocked.
pub const EXIT_BLOCK: u8 = 1;
/// Exit status for a failure to run at all (as opposed to a pass or block decision).
pub const EXIT_ERROR: u8 = 2;

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the completion script of `command` for `shell` to `out`.
///
/// # Errors
/// An error writing to `out`.
pub fn completions(
    shell: clap_complete::Shell,
    mut command: clap::Command,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let name = command.get_name().to_owned();
    // Written to memory first: the generator panics on a failed write (`| head` closing the pipe),
    // where the caller wants an error it can handle.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    out.write_all(&script)?;
    out.flush()
}

/// The man page of `command` to standard output when `dir` is `None`; else one page per command
/// into `dir` (`factgate.1`, `factgate-check.1`, `factgate-config-check.1`, …), whose paths are
/// printed.
///
/// # Errors
/// An error writing a page.
pub fn man(command: clap::Command, dir: Option<&Path>) -> std::io::Result<()> {
    match dir {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(&page)?;
            stdout.flush()
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            let mut stdout = std::io::stdout().lock();
            for path in man_pages(command, dir)? {
                writeln!(stdout, "{}", path.display())?;
            }
            Ok(())
        }
    }
}

/// Writes the page of `command` and of each of its subcommands, recursively, into `dir`, and
/// returns their paths.
///
/// # Errors
/// An error writing a page.
pub fn man_pages(command: clap::Command, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    write_pages(command.clone(), command.get_name(), dir, &mut written)?;
    Ok(written)
}

fn write_pages(
    command: clap::Command,
    name: &str,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    let command = command.name(name.to_owned());
    let path = dir.join(format!("{name}.1"));
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    std::fs::write(&path, page)?;
    written.push(path);
    for sub in command.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let sub_name = format!("{name}-{}", sub.get_name());
        write_pages(sub.clone(), &sub_name, dir, written)?;
    }
    Ok(())
}
