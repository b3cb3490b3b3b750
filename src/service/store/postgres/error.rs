//! How the PostgreSQL backend's failures become the backend-neutral [`StoreError`]: the SQL code
//! returns [`Failure`] (a PostgreSQL error, no pooled connection, or a store error it decided on
//! itself), and each [`Store`] method names its operation when it hands the failure on. A server
//! that cannot be reached (refused, timed out, connection lost) is [`StoreError::Unavailable`];
//! an error the server reported about a statement is [`StoreError::Database`].
//!
//! [`Store`]: crate::service::store::Store

use crate::service::store::StoreError;

/// A failure inside the PostgreSQL backend.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The server refused a statement, or the connection failed.
    Postgres(tokio_postgres::Error),
    /// No connection could be had from the pool (the server is unreachable, or all are busy).
    Pool(deadpool_postgres::PoolError),
    /// The backend's own verdict (a conflict, corrupt data).
    Store(StoreError),
}

/// What the backend's SQL code returns.
pub(crate) type Sql<T> = Result<T, Failure>;

impl From<tokio_postgres::Error> for Failure {
    fn from(error: tokio_postgres::Error) -> Self {
        Failure::Postgres(error)
    }
}

impl From<deadpool_postgres::PoolError> for Failure {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        Failure::Pool(error)
    }
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Self {
        Failure::Store(error)
    }
}

/// An error and its causes, as one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl Failure {
    /// The backend-neutral error, naming the operation that failed (`"store a submission"`).
    pub(crate) fn during(self, operation: &'static str) -> StoreError {
        match self {
            Failure::Postgres(error) => match error.as_db_error() {
                // The server answered: the statement is at fault (a constraint, a timeout).
                Some(db) => {
                    let mut message = db.message().to_string();
                    if let Some(detail) = db.detail() {
                        message.push_str(" (");
                        message.push_str(detail);
                        message.push(')');
                    }
                    StoreError::Database { operation, message }
                }
                None => StoreError::Unavailable { operation, message: chain(&error) },
            },
            Failure::Pool(error) => StoreError::Unavailable { operation, message: chain(&error) },
            Failure::Store(error) => error,
        }
    }
}
