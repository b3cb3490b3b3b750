//! A student's prediction: the value model ([`Value`]) and the parser that accepts both JSON
//! (`[2, 2, 0]`, `true`, `null`) and Python literals (`(2, 2, 0)`, `((0, 0), (2, 0))`, `True`,
//! `None`, `'text'`). A tuple and a list with the same items are the same answer; the brackets are
//! only kept to echo the answer back in the student's own notation.

use std::fmt::Write;

use crate::limits::ANSWER_DEPTH_MAX;
use crate::text::Text;

/// The brackets a sequence was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Brackets {
    Round,
    Square,
}

/// An answer or a part of one.
#[derive(Debug, Clone)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Str(String),
    Seq(Vec<Value>, Brackets),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::None, Value::None) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Seq(a, _), Value::Seq(b, _)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl Value {
    fn rank(&self) -> u8 {
        match self {
            Value::None => 0,
            Value::Bool(_) => 1,
            Value::Int(_) => 2,
            Value::Str(_) => 3,
            Value::Seq(..) => 4,
        }
    }

    /// Levels of nesting: 1 for a value that is not a sequence (or an empty one), one more than its
    /// deepest item for a sequence. The parser accepts at most [`ANSWER_DEPTH_MAX`].
    pub fn depth(&self) -> usize {
        match self {
            Value::Seq(items, _) => 1 + items.iter().map(Value::depth).max().unwrap_or(0),
            _ => 1,
        }
    }

    /// A total order (used to compare parts whose order does not matter).
    pub fn total_cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            (Value::Seq(a, _), Value::Seq(b, _)) => {
                for (x, y) in a.iter().zip(b) {
                    let o = x.total_cmp(y);
                    if o.is_ne() {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// The sequence's items sorted (other values unchanged).
    pub fn sorted(&self) -> Value {
        match self {
            Value::Seq(items, b) => {
                let mut items = items.clone();
                items.sort_by(|x, y| x.total_cmp(y));
                Value::Seq(items, *b)
            }
            other => other.clone(),
        }
    }

    /// The value in Python notation, with each sequence's own brackets.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    fn render_into(&self, out: &mut String) {
        match self {
            Value::None => out.push_str("None"),
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Value::Str(s) => {
                out.push('\'');
                for c in s.chars() {
                    match c {
                        '\'' => out.push_str("\\'"),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        c => out.push(c),
                    }
                }
                out.push('\'');
            }
            Value::Seq(items, brackets) => {
                let (open, close) = match brackets {
                    Brackets::Round => ('(', ')'),
                    Brackets::Square => ('[', ']'),
                };
                out.push(open);
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.render_into(out);
                }
                if items.len() == 1 && *brackets == Brackets::Round {
                    out.push(',');
                }
                out.push(close);
            }
        }
    }

    /// The same value written with the brackets of `like` wherever both are sequences.
    pub(crate) fn with_brackets_of(&self, like: &Value) -> Value {
        match (self, like) {
            (Value::Seq(items, _), Value::Seq(like_items, brackets)) => {
                let inner = like_items.first();
                let items = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match like_items.get(i).or(inner) {
                        Some(l) => item.with_brackets_of(l),
                        None => item.clone(),
                    })
                    .collect();
                Value::Seq(items, *brackets)
            }
            _ => self.clone(),
        }
    }

    /// The value as JSON (for reports).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::None => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(n) => serde_json::Value::from(*n),
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::Seq(items, _) => serde_json::Value::Array(items.iter().map(Value::to_json).collect()),
        }
    }

    /// What kind of value this is, for messages ("eine Zahl", "ein Tupel mit 2 Werten").
    pub fn kind(&self) -> Text {
        match self {
            Value::None => Text::new("None", "None"),
            Value::Bool(_) => Text::new("ein Wahrheitswert", "a boolean"),
            Value::Int(_) => Text::new("eine Zahl", "a number"),
            Value::Str(_) => Text::new("ein Text", "a string"),
            Value::Seq(items, _) => match items.len() {
                1 => Text::new("eine Folge mit 1 Wert", "a sequence of 1 value"),
                n => crate::text!("eine Folge mit {n} Werten", "a sequence of {n} values"),
            },
        }
    }

    /// Whether two values have the same kind (both numbers, or sequences of the same length).
    pub fn same_kind(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Seq(a, _), Value::Seq(b, _)) => a.len() == b.len(),
            _ => self.rank() == other.rank(),
        }
    }

    /// A different value of the same kind (used by `pruefstein check` to prove each part is graded).
    pub fn mutated(&self) -> Value {
        match self {
            Value::None => Value::Int(0),
            Value::Bool(b) => Value::Bool(!b),
            Value::Int(n) => Value::Int(n.wrapping_add(1)),
            Value::Str(s) => Value::Str(format!("{s}x")),
            Value::Seq(items, b) => match items.split_last() {
                Some((last, rest)) => {
                    let mut items = rest.to_vec();
                    items.push(last.mutated());
                    Value::Seq(items, *b)
                }
                None => Value::Seq(vec![Value::Int(0)], *b),
            },
        }
    }
}

fn too_deep() -> Text {
    crate::text!(
        "zu tief verschachtelt (höchstens {ANSWER_DEPTH_MAX} Ebenen)",
        "nested too deeply (at most {ANSWER_DEPTH_MAX} levels)"
    )
}

/// Why an answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based character position.
    pub column: usize,
    pub message: Text,
}

/// Parses an answer. A leading `name =` (as in `antwort = (2, 2, 0)`) is ignored; a bare
/// `2, 2, 0` is a tuple, as in Python.
pub fn parse(input: &str) -> Result<Value, ParseError> {
    let mut p = Parser { chars: input.chars().collect(), pos: 0 };
    p.skip_assignment();
    p.ws();
    if p.peek().is_none() {
        return Err(p.error(Text::new("die Antwort ist leer", "the answer is empty")));
    }
    let first = p.value(0)?;
    p.ws();
    let value = if p.peek() == Some(',') {
        let mut items = vec![first];
        while p.eat(',') {
            p.ws();
            if p.peek().is_none() {
                break;
            }
            items.push(p.value(0)?);
            p.ws();
        }
        // A bare tuple is one more level than its items: the same limit as when it is written with
        // its brackets, so every answer read here reads back from its own rendering.
        let tuple = Value::Seq(items, Brackets::Round);
        if tuple.depth() > ANSWER_DEPTH_MAX {
            return Err(ParseError { column: 1, message: too_deep() });
        }
        tuple
    } else {
        first
    };
    p.ws();
    match p.peek() {
        None => Ok(value),
        Some(c) => Err(p.error(crate::text!(
            "unerwartetes Zeichen '{c}' nach dem Ende der Antwort",
            "unexpected character '{c}' after the end of the answer"
        ))),
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn error(&self, message: Text) -> ParseError {
        ParseError { column: self.pos + 1, message }
    }

    /// Skips `identifier =` at the start (but not `==`).
    fn skip_assignment(&mut self) {
        let mut i = 0;
        while self.chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        let start = i;
        while self.chars.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
            i += 1;
        }
        if i == start {
            return;
        }
        while self.chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        if self.chars.get(i) == Some(&'=') && self.chars.get(i + 1) != Some(&'=') {
            self.pos = i + 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth >= ANSWER_DEPTH_MAX {
            return Err(self.error(too_deep()));
        }
        self.ws();
        match self.peek() {
            Some('(') => self.sequence(depth, ')', Brackets::Round),
            Some('[') => self.sequence(depth, ']', Brackets::Square),
            Some(q @ ('\'' | '"')) => self.string(q),
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => self.int(),
            Some(c) if c.is_alphabetic() => self.word(),
            Some(c) => Err(self.error(crate::text!(
                "unerwartetes Zeichen '{c}': erwartet wird eine Zahl, ein Text in Anführungszeichen, True/False, None, ( oder [",
                "unexpected character '{c}': expected a number, a quoted string, True/False, None, ( or ["
            ))),
            None => Err(self.error(Text::new(
                "die Antwort endet mitten in einem Wert",
                "the answer ends in the middle of a value",
            ))),
        }
    }

    fn sequence(&mut self, depth: usize, close: char, brackets: Brackets) -> Result<Value, ParseError> {
        self.pos += 1;
        let mut items = Vec::new();
        let mut trailing_comma = false;
        loop {
            self.ws();
            if self.eat(close) {
                break;
            }
            if !items.is_empty() && !trailing_comma {
                return Err(
                    self.error(crate::text!("',' oder '{close}' erwartet", "expected ',' or '{close}'"))
                );
            }
            items.push(self.value(depth + 1)?);
            self.ws();
            trailing_comma = self.eat(',');
            if !trailing_comma {
                self.ws();
                if self.peek() != Some(close) {
                    return match self.peek() {
                        None => Err(self
                            .error(crate::text!("'{close}' fehlt am Ende", "missing '{close}' at the end"))),
                        Some(_) => Err(self
                            .error(crate::text!("',' oder '{close}' erwartet", "expected ',' or '{close}'"))),
                    };
                }
            }
        }
        // Python: `(x)` is just x; `(x,)` is a tuple of one.
        if brackets == Brackets::Round && items.len() == 1 && !trailing_comma {
            return Ok(items.pop().unwrap_or(Value::None));
        }
        Ok(Value::Seq(items, brackets))
    }

    fn int(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        if matches!(self.peek(), Some('-' | '+')) {
            self.pos += 1;
        }
        let digits_start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
            self.pos += 1;
        }
        if self.pos == digits_start {
            return Err(
                self.error(Text::new("nach dem Vorzeichen fehlt die Zahl", "a number must follow the sign"))
            );
        }
        if matches!(self.peek(), Some('.' | 'e' | 'E')) {
            return Err(
                self.error(Text::new("nur ganze Zahlen sind erlaubt", "only whole numbers are allowed"))
            );
        }
        let text: String = self.chars[start..self.pos].iter().filter(|c| **c != '_').collect();
        text.parse::<i64>().map(Value::Int).map_err(|_| ParseError {
            column: start + 1,
            message: Text::new("die Zahl ist zu groß", "the number is too large"),
        })
    }

    fn word(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        let word: String = self.chars[start..self.pos].iter().collect();
        match word.as_str() {
            "True" | "true" => Ok(Value::Bool(true)),
            "False" | "false" => Ok(Value::Bool(false)),
            "None" | "null" => Ok(Value::None),
            _ => Err(ParseError {
                column: start + 1,
                message: crate::text!(
                    "unbekanntes Wort '{word}': Texte gehören in Anführungszeichen, erlaubt sind sonst True, False, None",
                    "unknown word '{word}': put text in quotes; otherwise True, False, None are allowed"
                ),
            }),
        }
    }

    fn string(&mut self, quote: char) -> Result<Value, ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut s = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(ParseError {
                        column: start + 1,
                        message: Text::new("der Text wird nicht geschlossen", "the string is not closed"),
                    });
                }
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(Value::Str(s));
                }
                Some('\\') => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some('n') => '\n',
                        Some('t') => '\t',
                        Some(c @ ('\\' | '\'' | '"' | '/')) => c,
                        _ => {
                            return Err(
                                self.error(Text::new("unbekannte Escape-Sequenz", "unknown escape sequence"))
                            );
                        }
                    };
                    s.push(escaped);
                    self.pos += 1;
                }
                Some(c) => {
                    s.push(c);
                    self.pos += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Value {
        Value::Seq(v.iter().map(|n| Value::Int(*n)).collect(), Brackets::Round)
    }

    #[test]
    fn json_and_python_are_the_same_answer() {
        let python = parse("(2, 2, 0)").unwrap();
        assert_eq!(python, ints(&[2, 2, 0]));
        assert_eq!(parse("[2,2,0]").unwrap(), python);
        assert_eq!(parse("2, 2, 0").unwrap(), python);
        assert_eq!(parse("antwort = (2, 2, 0)\n").unwrap(), python);
        assert_eq!(parse("(2, 2, 0,)").unwrap(), python);
    }

    #[test]
    fn nested_tuples() {
        let v = parse("((0, 0), (2, 0), (1, 0))").unwrap();
        assert_eq!(v, Value::Seq(vec![ints(&[0, 0]), ints(&[2, 0]), ints(&[1, 0])], Brackets::Round));
        assert_eq!(v.render(), "((0, 0), (2, 0), (1, 0))");
        assert_eq!(parse("[[0,0],[2,0],[1,0]]").unwrap(), v);
    }

    #[test]
    fn scalars() {
        assert_eq!(parse("True").unwrap(), Value::Bool(true));
        assert_eq!(parse("false").unwrap(), Value::Bool(false));
        assert_eq!(parse("None").unwrap(), Value::None);
        assert_eq!(parse("null").unwrap(), Value::None);
        assert_eq!(parse("'zahlung-1'").unwrap(), Value::Str("zahlung-1".into()));
        assert_eq!(parse(r#""a\"b""#).unwrap(), Value::Str("a\"b".into()));
        assert_eq!(parse("-3").unwrap(), Value::Int(-3));
        assert_eq!(parse("(1)").unwrap(), Value::Int(1), "Python: (1) is 1");
        assert_eq!(parse("(1,)").unwrap(), ints(&[1]));
        assert_eq!(parse("()").unwrap(), Value::Seq(vec![], Brackets::Round));
    }

    #[test]
    fn errors_name_the_position() {
        let e = parse("(2, 2").unwrap_err();
        assert!(e.message.en.contains("missing ')'"), "{e:?}");
        let e = parse("(2 2)").unwrap_err();
        assert_eq!(e.column, 4);
        assert!(e.message.de.contains("',' oder ')' erwartet"));
        assert!(parse("").unwrap_err().message.en.contains("empty"));
        assert!(parse("2.5").unwrap_err().message.en.contains("whole numbers"));
        assert!(parse("zwei").unwrap_err().message.en.contains("unknown word 'zwei'"));
        assert!(parse("(1, 2))").unwrap_err().message.en.contains("after the end"));
        assert!(parse("99999999999999999999").unwrap_err().message.en.contains("too large"));
        assert!(parse("'offen").unwrap_err().message.en.contains("not closed"));
    }

    #[test]
    fn depth_is_limited() {
        let deep = format!("{}{}", "(".repeat(100), ")".repeat(100));
        assert!(parse(&deep).unwrap_err().message.en.contains("nested too deeply"));
    }

    #[test]
    fn brackets_do_not_matter_for_equality_but_for_rendering() {
        let square = parse("[1, 4, 3]").unwrap();
        let round = parse("(1, 4, 3)").unwrap();
        assert_eq!(square, round);
        assert_eq!(round.with_brackets_of(&square).render(), "[1, 4, 3]");
        assert_eq!(parse("(7,)").unwrap().render(), "(7,)");
        assert_eq!(parse("[3, 1, 2]").unwrap().sorted().render(), "[1, 2, 3]");
        assert_eq!(Value::Int(2).mutated(), Value::Int(3));
        assert_ne!(ints(&[1, 2]).mutated(), ints(&[1, 2]));
    }
}
