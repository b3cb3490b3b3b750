//! Statement templates: `statement.de.md` and `statement.en.md` may contain placeholders such as
//! `{{visibility_timeout}}`, filled with a variant's parameters and the values its script
//! published. The syntax is deliberately tiny: `{{name}}` with optional spaces inside the braces;
//! there are no expressions, loops or escapes. An unknown name is an error at load time.

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Template {
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Text(String),
    Placeholder(String),
}

impl Template {
    pub(crate) fn parse(source: &str) -> Result<Template, String> {
        let mut segments = Vec::new();
        let mut rest = source;
        while let Some(start) = rest.find("{{") {
            if start > 0 {
                segments.push(Segment::Text(rest[..start].to_string()));
            }
            let line = source.len() - rest.len() + start;
            let line = source[..line].matches('\n').count() + 1;
            let after = &rest[start + 2..];
            let end =
                after.find("}}").ok_or_else(|| format!("line {line}: '{{{{' is not closed by '}}}}'"))?;
            let name = after[..end].trim();
            if !super::variant::is_identifier(name) {
                return Err(format!("line {line}: {{{{{name}}}}} is not a placeholder name (a-z, 0-9, _)"));
            }
            segments.push(Segment::Placeholder(name.to_string()));
            rest = &after[end + 2..];
        }
        if !rest.is_empty() {
            segments.push(Segment::Text(rest.to_string()));
        }
        Ok(Template { segments })
    }

    /// The placeholder names, in order of appearance.
    pub(crate) fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Placeholder(name) => Some(name.as_str()),
            Segment::Text(_) => None,
        })
    }

    pub(crate) fn render(&self, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
        let mut out = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Text(text) => out.push_str(text),
                Segment::Placeholder(name) => {
                    out.push_str(&lookup(name).ok_or_else(|| format!("no value for {{{{{name}}}}}"))?)
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_placeholders() {
        let t = Template::parse("Timeout {{ visibility_timeout }}, tick {{tick_1}}.").unwrap();
        assert_eq!(t.placeholders().collect::<Vec<_>>(), vec!["visibility_timeout", "tick_1"]);
        let out = t.render(|n| Some(if n == "tick_1" { "2".into() } else { "3".into() })).unwrap();
        assert_eq!(out, "Timeout 3, tick 2.");
        assert_eq!(t.render(|_| None).unwrap_err(), "no value for {{visibility_timeout}}");
    }

    #[test]
    fn malformed_templates() {
        assert!(Template::parse("a\n{{x").unwrap_err().starts_with("line 2"));
        assert!(Template::parse("{{a b}}").is_err());
        assert_eq!(Template::parse("no placeholders } {").unwrap().placeholders().count(), 0);
    }
}
