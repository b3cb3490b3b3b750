//! A deserializer's message in a teacher's words: TOML's names for values (a number, a text, a
//! list, a table), never a Rust type, and "did you mean" for a misspelt key.

/// `message` (from serde through the TOML parser) as a teacher reads it.
pub(super) fn teacher_words(message: &str) -> String {
    let message = message.trim();
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        return format!("found {}, but {} is expected here", found_words(found), expected_words(expected));
    }
    if let Some(rest) = message.strip_prefix("invalid value: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        return format!("found {}, but {} is expected here", found_words(found), expected_words(expected));
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let (key, known) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let key = key.trim_matches('`');
        let known: Vec<&str> = known
            .trim_start_matches("one of ")
            .split(", ")
            .map(|k| k.trim_matches('`'))
            .filter(|k| !k.is_empty())
            .collect();
        let guess = nearest(key, &known).map(|k| format!("; did you mean `{k}`?")).unwrap_or_default();
        let keys = if known.is_empty() {
            "this table takes no keys".to_string()
        } else {
            format!("the keys here are {}", known.join(", "))
        };
        return format!("unknown key `{key}`{guess} ({keys})");
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        return format!("the key {rest} is missing");
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        let (value, known) = rest.split_once(", expected ").unwrap_or((rest, ""));
        return format!("unknown value {value} (possible: {})", known.trim_start_matches("one of "));
    }
    message.to_string()
}

/// What serde says it found, in TOML's words.
fn found_words(found: &str) -> String {
    let quoted = |prefix: &str| found.strip_prefix(prefix).map(str::trim);
    if let Some(text) = quoted("string ") {
        format!("the text {text}")
    } else if let Some(number) = quoted("integer ").or(quoted("floating point ")) {
        format!("the number {}", number.trim_matches('`'))
    } else if let Some(value) = quoted("boolean ") {
        value.trim_matches('`').to_string()
    } else if found.starts_with("sequence") {
        "a list".into()
    } else if found.starts_with("map") {
        "a table".into()
    } else {
        found.to_string()
    }
}

/// What serde expected, in TOML's words.
fn expected_words(expected: &str) -> String {
    let expected = expected.trim();
    const NUMBERS: [&str; 10] = ["u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize"];
    if NUMBERS.contains(&expected) || expected.contains("integer") {
        "a whole number (like 10, without quotes)".into()
    } else if expected == "f64" || expected == "f32" {
        "a number".into()
    } else if expected == "a string" || expected == "a borrowed string" {
        "a text in quotes".into()
    } else if expected == "struct Text" {
        "a text with `de` and `en` (two texts in quotes, German and English)".into()
    } else if expected == "a sequence" {
        "a list ([ … ])".into()
    } else if expected == "a boolean" {
        "true or false".into()
    } else if expected.starts_with("struct ") || expected == "a map" {
        "a table ({ … } or a [section])".into()
    } else {
        expected.to_string()
    }
}

/// The known key closest to `key`, if it is close enough to be a misspelling.
fn nearest<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (distance(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance between two short keys.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != *cb)).min(row[j] + 1).min(here + 1);
            previous = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_words_become_toml_words() {
        assert_eq!(
            teacher_words("invalid type: string \"zehn\", expected u32"),
            "found the text \"zehn\", but a whole number (like 10, without quotes) is expected here"
        );
        let text = teacher_words("invalid type: string \"x\", expected struct Text");
        assert!(text.contains("a text with `de` and `en`") && !text.contains("struct"), "{text}");
        let list = teacher_words("invalid type: integer `5`, expected a sequence");
        assert_eq!(list, "found the number 5, but a list ([ … ]) is expected here");
        let unknown = teacher_words("unknown field `pointz`, expected one of `slug`, `points`, `title`");
        assert_eq!(
            unknown,
            "unknown key `pointz`; did you mean `points`? (the keys here are slug, points, title)"
        );
        assert!(!teacher_words("unknown field `xyzzy`, expected `entry`").contains("did you mean"));
    }
}
