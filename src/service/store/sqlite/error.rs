//! How the SQLite backend's failures become the backend-neutral [`StoreError`]: the SQL code returns
//! [`Failure`] (a SQLite error, or a store error it decided on itself), and each [`Store`] method
//! names its operation when it hands the failure on, so that a log line says what the store was
//! doing and what failed, without a `rusqlite` type in the trait.
//!
//! [`Store`]: crate::service::store::Store

use crate::service::store::StoreError;

/// A failure inside the SQLite backend.
#[derive(Debug)]
pub(crate) enum Failure {
    /// SQLite refused or failed a call.
    Sqlite(rusqlite::Error),
    /// The backend's own verdict (a conflict, corrupt data).
    Store(StoreError),
}

/// What the backend's SQL code returns.
pub(crate) type Sql<T> = Result<T, Failure>;

impl From<rusqlite::Error> for Failure {
    fn from(error: rusqlite::Error) -> Self {
        Failure::Sqlite(error)
    }
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Self {
        Failure::Store(error)
    }
}

impl Failure {
    /// The backend-neutral error, naming the operation that failed (`"store a submission"`).
    pub(crate) fn during(self, operation: &'static str) -> StoreError {
        match self {
            Failure::Sqlite(error) => StoreError::Database { operation, message: error.to_string() },
            Failure::Store(error) => error,
        }
    }
}

/// Adds the operation to a SQLite result.
pub(crate) trait During<T> {
    fn during(self, operation: &'static str) -> Result<T, StoreError>;
}

impl<T, E: Into<Failure>> During<T> for Result<T, E> {
    fn during(self, operation: &'static str) -> Result<T, StoreError> {
        self.map_err(|e| e.into().during(operation))
    }
}
