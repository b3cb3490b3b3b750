//! An in-process stand-in for the host on targets other than wasm32, so the SDK's logic can be unit
//! tested with `cargo test`: it records statements and log lines and answers with scripted statuses.
#![allow(clippy::missing_safety_doc)]

use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Default)]
struct Host {
    statuses: HashMap<String, i32>,
    texts: HashMap<String, String>,
    statements: Vec<String>,
    logs: Vec<String>,
}

thread_local! {
    static HOST: RefCell<Host> = RefCell::new(Host::default());
}

unsafe fn text<'a>(ptr: *const u8, len: i32) -> &'a str {
    std::str::from_utf8(std::slice::from_raw_parts(ptr, len as usize)).unwrap_or("<not UTF-8>")
}

/// Starts afresh; `statuses` gives the status a statement returns (default 0, ok).
pub fn reset(statuses: &[(&str, i32)]) {
    HOST.with(|h| {
        *h.borrow_mut() =
            Host { statuses: statuses.iter().map(|(s, c)| (s.to_string(), *c)).collect(), ..Host::default() }
    });
}

/// Sets the text at a message path.
pub fn set_text(path: &str, value: &str) {
    HOST.with(|h| h.borrow_mut().texts.insert(path.to_string(), value.to_string()));
}

/// The statements run since the last reset.
pub fn statements() -> Vec<String> {
    HOST.with(|h| h.borrow().statements.clone())
}

/// The log lines since the last reset.
pub fn logs() -> Vec<String> {
    HOST.with(|h| h.borrow().logs.clone())
}

pub unsafe fn msg_int(_path: *const u8, _path_len: i32) -> i64 {
    0
}

pub unsafe fn msg_text(path: *const u8, path_len: i32, buf: *mut u8, cap: i32) -> i32 {
    let value = HOST.with(|h| h.borrow().texts.get(text(path, path_len)).cloned().unwrap_or_default());
    if value.len() <= cap as usize {
        std::ptr::copy_nonoverlapping(value.as_ptr(), buf, value.len());
    }
    value.len() as i32
}

pub unsafe fn bind_int(_index: i32, _value: i64) {}

pub unsafe fn bind_text(_index: i32, _text: *const u8, _len: i32) {}

pub unsafe fn exec(sql: *const u8, sql_len: i32) -> i32 {
    let sql = text(sql, sql_len).to_string();
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        let status = h.statuses.get(&sql).copied().unwrap_or(0);
        h.statements.push(sql);
        status
    })
}

pub unsafe fn query_int(sql: *const u8, sql_len: i32, out: *mut i64) -> i32 {
    let status = exec(sql, sql_len);
    if status == 0 {
        *out = 0;
    }
    status
}

pub unsafe fn changes() -> i64 {
    0
}

pub unsafe fn last_error(_buf: *mut u8, _cap: i32) -> i32 {
    0
}

pub unsafe fn log(text_ptr: *const u8, len: i32) {
    let line = text(text_ptr, len).to_string();
    HOST.with(|h| h.borrow_mut().logs.push(line));
}
