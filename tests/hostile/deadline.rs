//! Hostile inputs that never end: one deadline per submission that every loop, statement, lock wait
//! and instantiation obeys.
