//! Hostile inputs that grow: compile input, traces, texts, reports, scratch databases, SQL functions.
