// Empty: only the lock file matters (see Cargo.toml).
