//! The `pruefstein` binary: see `pruefstein --help`.

fn main() {
    let cli = pruefstein::cli::parse();
    match pruefstein::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(error) => {
            eprintln!("pruefstein: {}", pruefstein::text::for_terminal(&format!("{error:#}")));
            std::process::exit(pruefstein::cli::EXIT_USAGE);
        }
    }
}
