//! What every handler uses: the shared state as actix data, and store calls on the blocking pool.

use actix_web::web;

use crate::service::problem::Problem;
use crate::service::shared::Shared;
use crate::service::store::Store;

/// The service's shared state, as handlers take it.
pub(crate) type Data = web::Data<Shared>;

/// Runs a store call on the blocking pool.
pub(crate) async fn db<T: Send + 'static>(
    shared: &Shared,
    f: impl FnOnce(&dyn Store) -> Result<T, crate::service::store::StoreError> + Send + 'static,
) -> Result<T, Problem> {
    let store = shared.store.clone();
    Ok(web::block(move || f(store.as_ref())).await??)
}
