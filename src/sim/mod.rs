//! The queue simulation (placeholder: to be implemented).
