//! Replay tokens: `check@sha256-prefix[:spec]` names one run of one check of one module (the
//! choices of an interleaving, the seed and shape of a schedule), e.g.
//! `concurrent-duplicate@259d59a6182d:0110`. A former check name is still accepted.

use crate::consumer::checks::check::Check;
use crate::exercise::GradeError;

/// Hex digits of the module's SHA-256 a replay token carries.
pub(crate) const REPLAY_HASH_CHARS: usize = 12;

/// Names one run of one check of one module.
pub struct ReplayToken {
    pub check: Check,
    pub module: String,
    pub spec: Option<String>,
}

impl ReplayToken {
    pub fn render(&self) -> String {
        match &self.spec {
            Some(spec) => format!("{}@{}:{spec}", self.check, self.module),
            None => format!("{}@{}", self.check, self.module),
        }
    }

    pub(crate) fn parse(token: &str) -> Result<ReplayToken, GradeError> {
        let bad = || {
            GradeError::Replay(format!(
                "\"{token}\" is not a replay token (they look like crash-points@259d59a6182d)"
            ))
        };
        let (check, rest) = token.trim().split_once('@').ok_or_else(bad)?;
        let (module, spec) = match rest.split_once(':') {
            Some((module, spec)) => (module, Some(spec.to_string())),
            None => (rest, None),
        };
        let check: Check = check
            .parse()
            .map_err(|e: crate::consumer::checks::UnknownCheck| GradeError::Replay(e.to_string()))?;
        if module.len() < 8 || !module.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        Ok(ReplayToken { check, module: module.to_ascii_lowercase(), spec })
    }
}

#[cfg(test)]
mod tests {
    use super::{Check, ReplayToken};

    #[test]
    fn a_token_reads_back_and_a_former_name_still_parses() {
        let token = ReplayToken::parse("concurrent-duplicate@259D59a6182d:0110").expect("parses");
        assert_eq!(token.check, Check::ConcurrentDuplicate);
        assert_eq!(token.render(), "concurrent-duplicate@259d59a6182d:0110");
        let former = ReplayToken::parse("crash-after-write@259d59a6182d").expect("former name");
        assert_eq!(former.check, Check::CrashPoints);
        assert_eq!(former.render(), "crash-points@259d59a6182d");
    }

    #[test]
    fn an_unknown_check_or_a_bad_module_is_named() {
        let error = ReplayToken::parse("no-such@259d59a6182d").err().expect("unknown check").to_string();
        assert!(error.contains("unknown check \"no-such\" (known: fresh-message,"), "{error}");
        let error = ReplayToken::parse("lost-ack@xyz").err().expect("bad module").to_string();
        assert!(error.contains("is not a replay token"), "{error}");
    }
}
