//! Python literals read into JSON text, left to right, with a stack of open containers (no
//! recursion): strings with Python's escapes, integers and floats with an optional sign,
//! `True`/`False`/`None`, lists and tuples as arrays, dicts with string keys as objects; anything
//! else declines, naming the keyword argument that holds it.

use super::json::push_json_string;
use super::lex::{has, quoted, rest, skip_space};

/// How deep literals may nest.
pub(crate) const MAX_DEPTH: usize = 128;

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The length of the ASCII identifier at the start of `text`.
fn identifier_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(first) if first.is_ascii_alphabetic() || *first == b'_' => {
            bytes.iter().take_while(|b| is_identifier_byte(**b)).count()
        }
        _ => 0,
    }
}

/// An open container of literals.
enum Container {
    List,
    Tuple { items: usize, commas: usize },
    Dict,
}

/// What follows an item of an open container.
enum After {
    /// Another item.
    Item,
    /// The container's close.
    Closed,
}

/// Python literals read into JSON text.
pub(crate) struct Literal<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    out: String,
    /// The keyword argument being read, for the messages.
    argument: &'t str,
}

impl<'t> Literal<'t> {
    /// The keyword arguments of the call whose `(` is at `open`, as a JSON object; the offset
    /// after its `)`.
    pub(crate) fn arguments(text: &'t str, open: usize) -> Result<(String, usize), String> {
        let mut reader = Literal {
            text,
            bytes: text.as_bytes(),
            at: open + 1,
            out: String::from("{"),
            argument: "",
        };
        loop {
            reader.space();
            if reader.eat(b')') {
                break;
            }
            let len = identifier_len(rest(text, reader.at));
            let name = text.get(reader.at..reader.at + len).unwrap_or_default();
            let after_name = skip_space(text, reader.at + len);
            let keyword = len > 0 && has(text, after_name, "=") && !has(text, after_name, "==");
            if !keyword {
                return Err(if reader.bytes.get(reader.at).is_none() {
                    "the call is not closed".to_owned()
                } else {
                    "the call has a positional argument; pass each argument as name=value"
                        .to_owned()
                });
            }
            if reader.out.len() > 1 {
                reader.out.push(',');
            }
            push_json_string(&mut reader.out, name);
            reader.out.push(':');
            reader.argument = name;
            reader.at = after_name + 1;
            reader.value()?;
            reader.space();
            if reader.eat(b')') {
                break;
            }
            if !reader.eat(b',') {
                return Err(reader.not_literal("an expression"));
            }
        }
        reader.out.push('}');
        Ok((reader.out, reader.at))
    }

    fn space(&mut self) {
        self.at = skip_space(self.text, self.at);
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Consumes `byte` when it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let next = self.peek() == Some(byte);
        if next {
            self.at += 1;
        }
        next
    }

    fn not_literal(&self, what: &str) -> String {
        format!(
            "the argument {} holds {what}, which is not a Python literal",
            quoted(self.argument)
        )
    }

    /// One value, containers included, iteratively.
    fn value(&mut self) -> Result<(), String> {
        let mut open: Vec<Container> = Vec::new();
        'value: loop {
            self.space();
            let Some(byte) = self.peek() else {
                return Err(format!(
                    "the argument {} is not complete",
                    quoted(self.argument)
                ));
            };
            match byte {
                b'[' | b'(' | b'{' => {
                    if self.open_container(byte, &mut open)? {
                        continue 'value;
                    }
                }
                b'\'' | b'"' => self.string(byte)?,
                b'-' | b'+' | b'.' | b'0'..=b'9' => self.number()?,
                _ => self.word()?,
            }
            // A value ended: close what it ends, or go on to the next value.
            while let Some(frame) = open.last_mut() {
                match self.after_item(frame)? {
                    After::Item => continue 'value,
                    After::Closed => {
                        open.pop();
                    }
                }
            }
            return Ok(());
        }
    }

    /// Opens the container `byte` starts. `true` when it holds a value to read next (pushed
    /// on `open`, a dict's first key read); `false` when it closed at once, empty.
    fn open_container(&mut self, byte: u8, open: &mut Vec<Container>) -> Result<bool, String> {
        if open.len() >= MAX_DEPTH {
            return Err(format!(
                "the argument {} nests deeper than {MAX_DEPTH} levels",
                quoted(self.argument)
            ));
        }
        self.at += 1;
        self.space();
        let (frame, close, json) = match byte {
            b'[' => (Container::List, b']', ('[', ']')),
            b'(' => (
                Container::Tuple {
                    items: 0,
                    commas: 0,
                },
                b')',
                ('[', ']'),
            ),
            _ => (Container::Dict, b'}', ('{', '}')),
        };
        self.out.push(json.0);
        if self.eat(close) {
            self.out.push(json.1);
            return Ok(false);
        }
        let dict = matches!(frame, Container::Dict);
        open.push(frame);
        if dict {
            self.key()?;
        }
        Ok(true)
    }

    /// After an item of the innermost open container: a comma and another item, or the
    /// container's close (a one-item tuple needs its comma).
    fn after_item(&mut self, frame: &mut Container) -> Result<After, String> {
        self.space();
        match frame {
            Container::List => {
                if self.eat(b',') {
                    self.space();
                    if !self.eat(b']') {
                        self.out.push(',');
                        return Ok(After::Item);
                    }
                } else if !self.eat(b']') {
                    return Err(self.not_literal("an expression"));
                }
                self.out.push(']');
            }
            Container::Tuple { items, commas } => {
                *items += 1;
                if self.eat(b',') {
                    *commas += 1;
                    self.space();
                    if !self.eat(b')') {
                        self.out.push(',');
                        return Ok(After::Item);
                    }
                } else if !self.eat(b')') {
                    return Err(self.not_literal("an expression"));
                } else if *items == 1 && *commas == 0 {
                    return Err(self.not_literal("a parenthesized expression"));
                }
                self.out.push(']');
            }
            Container::Dict => {
                if self.eat(b',') {
                    self.space();
                    if !self.eat(b'}') {
                        self.out.push(',');
                        self.key()?;
                        return Ok(After::Item);
                    }
                } else if !self.eat(b'}') {
                    return Err(self.not_literal("an expression"));
                }
                self.out.push('}');
            }
        }
        Ok(After::Closed)
    }

    /// A dict key (a string) and its colon.
    fn key(&mut self) -> Result<(), String> {
        self.space();
        match self.peek() {
            Some(quote @ (b'\'' | b'"')) => self.string(quote)?,
            _ => return Err(self.not_literal("a dict key that is not a string")),
        }
        self.space();
        if !self.eat(b':') {
            return Err(self.not_literal("a set or a dict without a colon after its key"));
        }
        self.out.push(':');
        Ok(())
    }

    /// A string in `quote`s, unescaped as Python does.
    fn string(&mut self, quote: u8) -> Result<(), String> {
        let bytes = self.bytes;
        if bytes.get(self.at + 1) == Some(&quote) && bytes.get(self.at + 2) == Some(&quote) {
            return Err(self.not_literal("a triple-quoted string"));
        }
        self.at += 1;
        let mut value = String::new();
        let mut plain = self.at;
        loop {
            match bytes.get(self.at) {
                None | Some(b'\n' | b'\r') => {
                    return Err(self.not_literal("a string that is not closed"))
                }
                Some(&byte) if byte == quote => {
                    value.push_str(self.text.get(plain..self.at).unwrap_or_default());
                    self.at += 1;
                    break;
                }
                Some(b'\\') => {
                    value.push_str(self.text.get(plain..self.at).unwrap_or_default());
                    self.escape(&mut value)?;
                    plain = self.at;
                }
                Some(_) => self.at += 1,
            }
        }
        push_json_string(&mut self.out, &value);
        Ok(())
    }

    /// The escape whose backslash is at the reader, appended to `value`.
    fn escape(&mut self, value: &mut String) -> Result<(), String> {
        let Some(&kind) = self.bytes.get(self.at + 1) else {
            return Err(self.not_literal("a string that is not closed"));
        };
        self.at += 2;
        let simple = match kind {
            b'\n' => Some(None),
            b'\r' => {
                self.eat(b'\n');
                Some(None)
            }
            b'\\' => Some(Some('\\')),
            b'\'' => Some(Some('\'')),
            b'"' => Some(Some('"')),
            b'a' => Some(Some('\u{7}')),
            b'b' => Some(Some('\u{8}')),
            b'f' => Some(Some('\u{c}')),
            b'n' => Some(Some('\n')),
            b'r' => Some(Some('\r')),
            b't' => Some(Some('\t')),
            b'v' => Some(Some('\u{b}')),
            _ => None,
        };
        if let Some(char) = simple {
            value.extend(char);
            return Ok(());
        }
        let code = match kind {
            b'0'..=b'7' => {
                self.at -= 1;
                let digits = self.digits(3, 8);
                self.code(digits, 8)
            }
            b'x' => self.fixed(2)?,
            b'u' => self.fixed(4)?,
            b'U' => self.fixed(8)?,
            b'N' => return Err(self.not_literal("a \\N{…} escape")),
            _ => {
                // Unknown: Python keeps the backslash and the character after it.
                value.push('\\');
                self.at -= 1;
                return Ok(());
            }
        };
        match char::from_u32(code) {
            Some(char) => {
                value.push(char);
                Ok(())
            }
            None => Err(self.not_literal("an escape that is no Unicode scalar value")),
        }
    }

    /// Up to `max` digits of `radix` at the reader: how many.
    fn digits(&mut self, max: usize, radix: u32) -> usize {
        let count = rest(self.text, self.at)
            .bytes()
            .take(max)
            .take_while(|b| char::from(*b).is_digit(radix))
            .count();
        self.at += count;
        count
    }

    /// The value of the `count` digits of `radix` before the reader.
    fn code(&self, count: usize, radix: u32) -> u32 {
        let digits = self.text.get(self.at - count..self.at).unwrap_or_default();
        u32::from_str_radix(digits, radix).unwrap_or(u32::MAX)
    }

    /// Exactly `count` hex digits.
    fn fixed(&mut self, count: usize) -> Result<u32, String> {
        if self.digits(count, 16) != count {
            return Err(self.not_literal("an escape without its hex digits"));
        }
        Ok(self.code(count, 16))
    }

    /// An integer or a float, with an optional sign.
    fn number(&mut self) -> Result<(), String> {
        let negative = match self.peek() {
            Some(b'-') => {
                self.at += 1;
                true
            }
            Some(b'+') => {
                self.at += 1;
                false
            }
            _ => false,
        };
        let whole_at = self.at;
        let whole = self.digits(usize::MAX, 10);
        let fraction = if self.eat(b'.') {
            let at = self.at;
            Some((at, self.digits(usize::MAX, 10)))
        } else {
            None
        };
        if whole == 0 && fraction.is_none_or(|(_, len)| len == 0) {
            return Err(self.not_literal("an expression"));
        }
        let exponent = if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            let sign = match self.peek() {
                Some(sign @ (b'+' | b'-')) => {
                    self.at += 1;
                    Some(char::from(sign))
                }
                _ => None,
            };
            let at = self.at;
            if self.digits(usize::MAX, 10) == 0 {
                return Err(self.not_literal("a number without its exponent"));
            }
            Some((sign, at))
        } else {
            None
        };
        if self
            .peek()
            .is_some_and(|b| is_identifier_byte(b) || b == b'.')
        {
            return Err(self.not_literal("a number that is not a decimal literal"));
        }
        let text = self.text;
        let whole_digits = text.get(whole_at..whole_at + whole).unwrap_or_default();
        let integer = fraction.is_none() && exponent.is_none();
        if integer && whole > 1 && whole_digits.starts_with('0') {
            return Err(self.not_literal("an integer with a leading zero"));
        }
        if negative {
            self.out.push('-');
        }
        let significant = whole_digits.trim_start_matches('0');
        self.out.push_str(if significant.is_empty() {
            "0"
        } else {
            significant
        });
        if let Some((at, len)) = fraction {
            self.out.push('.');
            self.out.push_str(match text.get(at..at + len) {
                Some(digits) if !digits.is_empty() => digits,
                _ => "0",
            });
        }
        if let Some((sign, at)) = exponent {
            self.out.push('e');
            self.out.extend(sign);
            self.out.push_str(text.get(at..self.at).unwrap_or_default());
        }
        Ok(())
    }

    /// `True`, `False` or `None`; any other word declines.
    fn word(&mut self) -> Result<(), String> {
        let len = identifier_len(rest(self.text, self.at));
        let word = self.text.get(self.at..self.at + len).unwrap_or_default();
        let json = match word {
            "True" => "true",
            "False" => "false",
            "None" => "null",
            _ => {
                let next = self.bytes.get(self.at + len).copied();
                let prefix = matches!(
                    word.to_ascii_lowercase().as_str(),
                    "r" | "u" | "b" | "f" | "br" | "rb" | "fr" | "rf"
                );
                return Err(self.not_literal(match next {
                    _ if len == 0 => "an expression",
                    Some(b'\'' | b'"') if prefix => "a prefixed string",
                    Some(b'(') => "a call",
                    _ => "a name",
                }));
            }
        };
        self.out.push_str(json);
        self.at += len;
        Ok(())
    }
}
