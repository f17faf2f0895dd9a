//! The tokenizer: expression text → tokens with byte offsets.

use super::{err, ParseError};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Int(i128),
    Float(f64),
    Name(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Int(v) => write!(f, "number `{v}`"),
            Tok::Float(v) => write!(f, "number `{v}`"),
            Tok::Name(n) => write!(f, "name `{n}`"),
            Tok::Op(o) => write!(f, "`{o}`"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::End => f.write_str("end of input"),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) offset: usize,
}

const OPS: &[&str] = &[
    "**", "//", "<=", ">=", "+", "-", "*", "%", "<", ">", "&", "|", "~",
];

pub(super) fn tokenize(text: &str) -> Result<Vec<Token>, ParseError> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            let mut is_float = false;
            if i < b.len() && b[i] == b'.' {
                is_float = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    is_float = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let lit: String = text[start..i].chars().filter(|&c| c != '_').collect();
            if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_') {
                return err(i, format!("invalid number literal `{}`", &text[start..=i]));
            }
            if is_float {
                let v: f64 = lit.parse().map_err(|_| ParseError {
                    offset: start,
                    message: format!("invalid float literal `{lit}`"),
                })?;
                if !v.is_finite() {
                    return err(start, format!("float literal `{lit}` is out of range"));
                }
                out.push(Token {
                    tok: Tok::Float(v),
                    offset: start,
                });
            } else {
                let v: i128 = lit.parse().map_err(|_| ParseError {
                    offset: start,
                    message: format!("integer literal `{lit}` does not fit in 64 bits"),
                })?;
                out.push(Token {
                    tok: Tok::Int(v),
                    offset: start,
                });
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Name(text[start..i].to_string()),
                offset: start,
            });
            continue;
        }
        let tok = match c {
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b',' => Some(Tok::Comma),
            _ => None,
        };
        if let Some(tok) = tok {
            out.push(Token { tok, offset: start });
            i += 1;
            continue;
        }
        let rest = &text[i..];
        if let Some(o) = OPS.iter().find(|o| rest.starts_with(**o)) {
            out.push(Token {
                tok: Tok::Op(o),
                offset: start,
            });
            i += o.len();
            continue;
        }
        let hint = if rest.starts_with("==") {
            Some("`==` is not an expression operator; write Eq(a, b)")
        } else if rest.starts_with("!=") {
            Some("`!=` is not an expression operator; write Ne(a, b)")
        } else if c == b'/' {
            Some("true division `/` is not an integer operation; write a//b, FloatTrueDiv(a, b) or IntTrueDiv(a, b)")
        } else if c == b'^' {
            Some("`^` is not supported; write a**k for powers")
        } else {
            None
        };
        if let Some(h) = hint {
            return err(start, h);
        }
        let ch = rest.chars().next().unwrap_or(' ');
        return err(start, format!("unexpected character `{ch}`"));
    }
    out.push(Token {
        tok: Tok::End,
        offset: text.len(),
    });
    Ok(out)
}
