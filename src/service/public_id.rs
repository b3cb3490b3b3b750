//! A submission's public id, as the API, the report links and the LTI score events write it
//! (`sub_12`), and the one parser that reads it back.

/// The public id of the submission with the internal id `id`.
pub(crate) fn of(id: i64) -> String {
    format!("sub_{id}")
}

/// The internal id of a public one: exactly what [`of`] writes (`sub_12`; the pattern the
/// OpenAPI document declares), nothing else (no bare number, sign or leading zero).
pub(crate) fn parse(public: &str) -> Option<i64> {
    let digits = public.strip_prefix("sub_")?;
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<i64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_exactly_what_it_writes() {
        assert_eq!(parse(&of(12)), Some(12));
        for refused in
            ["12", "sub_", "sub_012", "sub_-1", "sub_+1", "SUB_1", "sub_1 ", "sub_99999999999999999999"]
        {
            assert_eq!(parse(refused), None, "{refused}");
        }
    }
}
