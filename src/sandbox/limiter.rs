//! Caps a guest's memory and tables, and remembers which limit was hit so that the report can name
//! it. Growth past a cap traps (rather than returning -1 to the guest) so a memory bomb ends at once
//! with a clear reason instead of spinning until its fuel runs out.

use wasmtime::ResourceLimiter;

/// A limit the guest ran into.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LimitHit {
    #[error("memory limit: the module tried to grow its memory to {desired} bytes; the limit is {max} bytes")]
    Memory { desired: u64, max: u64 },
    #[error("table limit: the module tried to grow a table to {desired} elements; the limit is {max}")]
    Table { desired: u64, max: u64 },
}

#[derive(Debug)]
pub(crate) struct GuestLimiter {
    pub memory_bytes: u64,
    pub table_elements: usize,
    /// The first limit hit, if any.
    pub hit: Option<LimitHit>,
}

impl GuestLimiter {
    pub(crate) fn new(memory_bytes: u64, table_elements: usize) -> Self {
        GuestLimiter { memory_bytes, table_elements, hit: None }
    }
}

impl ResourceLimiter for GuestLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired as u64 > self.memory_bytes {
            let hit = LimitHit::Memory { desired: desired as u64, max: self.memory_bytes };
            self.hit.get_or_insert(hit.clone());
            return Err(wasmtime::Error::new(hit));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.table_elements {
            let hit = LimitHit::Table { desired: desired as u64, max: self.table_elements as u64 };
            self.hit.get_or_insert(hit.clone());
            return Err(wasmtime::Error::new(hit));
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        1
    }
    fn memories(&self) -> usize {
        1
    }
    fn tables(&self) -> usize {
        4
    }
}
