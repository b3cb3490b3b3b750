//! Linear memories that start from a memory image mapped copy-on-write: an interpreter guest's
//! memory after it loaded a student's file, taken once per submission and then mapped privately
//! into every instance, so that an instance costs the page faults of the pages it touches instead of
//! a copy of what loading changed.
//!
//! An image is a memfd written once, before any mapping, and never written again (it is
//! close-on-exec and its descriptor never leaves this module); its size is sealed. Every instance
//! maps it `MAP_PRIVATE`: what a guest writes lands in pages of its own and vanishes with its
//! mapping, so no instance can see what another wrote (tested from the host side in
//! `tests/integration/hostile/python.rs`).
//!
//! wasmtime asks [`ImageMemoryCreator`] for each memory of an engine made with it; the image an
//! instance starts from is the one [`instantiate_with`] names on the instantiating thread (none: a
//! zeroed memory, which wasmtime fills from the module's data segments as usual). Such an engine has
//! wasmtime's own copy-on-write images off, and its guests' modules carry no data segments when
//! they start from an image.

use std::cell::RefCell;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use wasmtime::{LinearMemory, MemoryCreator, MemoryType};

/// Host page size assumed for mappings (x86-64 and aarch64 Linux with 4 KiB pages; checked when a
/// memory is made).
pub(crate) const PAGE_BYTES: usize = 4096;

/// A linear memory's initial content, as a sealed file mapped privately into each instance.
#[derive(Debug)]
pub(crate) struct MemoryImage {
    file: File,
    bytes: usize,
}

impl MemoryImage {
    /// The image of `memory`, whose bytes below `zero_below` are taken as zero (an interpreter's
    /// shadow stack, dead between calls). Only pages that are not all zero are written: the rest
    /// of the file is a hole, read as zeros.
    pub(crate) fn new(memory: &[u8], zero_below: usize) -> Result<Arc<MemoryImage>, String> {
        let file = memfd("pruefstein-memory-image")?;
        let io = |e: std::io::Error| format!("cannot write a memory image: {e}");
        file.set_len(memory.len() as u64).map_err(io)?;
        let mut at = zero_below.min(memory.len()) / PAGE_BYTES * PAGE_BYTES;
        while at < memory.len() {
            let end = (at + PAGE_BYTES).min(memory.len());
            // One OR over the whole page, which the compiler turns into vector instructions: most
            // pages of an interpreter's heap are zero, and a byte-by-byte search with an early exit
            // was a tenth of a Python submission's grading time.
            if memory[at..end].iter().fold(0u8, |seen, byte| seen | byte) != 0 {
                let from = at.max(zero_below);
                file.write_all_at(&memory[from..end], from as u64).map_err(io)?;
            }
            at = end;
        }
        seal_size(&file)?;
        Ok(Arc::new(MemoryImage { file, bytes: memory.len() }))
    }

    /// The image as the file holds it (for tests comparing an instance's memory with it).
    #[cfg(test)]
    pub(crate) fn read(&self) -> Result<Vec<u8>, String> {
        let mut bytes = vec![0u8; self.bytes];
        self.file.read_exact_at(&mut bytes, 0).map_err(|e| format!("cannot read a memory image: {e}"))?;
        Ok(bytes)
    }
}

thread_local! {
    /// The image the next memory made on this thread starts from.
    static NEXT_IMAGE: RefCell<Option<Arc<MemoryImage>>> = const { RefCell::new(None) };
}

/// Runs `instantiate` (which creates one instance on this thread) with its memory starting from
/// `image`.
pub(crate) fn instantiate_with<T>(image: &Arc<MemoryImage>, instantiate: impl FnOnce() -> T) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            NEXT_IMAGE.with(|next| next.borrow_mut().take());
        }
    }
    NEXT_IMAGE.with(|next| *next.borrow_mut() = Some(Arc::clone(image)));
    let _reset = Reset;
    instantiate()
}

/// Makes the memories of an engine: each a private mapping of the image [`instantiate_with`] names,
/// or zeroed.
pub(crate) struct ImageMemoryCreator;

// SAFETY: every memory this creator returns is a mapping it owns for its whole life (unmapped only
// when wasmtime drops it), page aligned, with `reserved_size_in_bytes` plus the guard mapped as
// wasmtime asks, so the bounds wasmtime's code relies on hold; see `ImageMemory`.
#[allow(unsafe_code)]
unsafe impl MemoryCreator for ImageMemoryCreator {
    fn new_memory(
        &self,
        _ty: MemoryType,
        minimum: usize,
        maximum: Option<usize>,
        reserved_size_in_bytes: Option<usize>,
        guard_size_in_bytes: usize,
    ) -> Result<Box<dyn LinearMemory>, String> {
        let image = NEXT_IMAGE.with(|next| next.borrow_mut().take());
        let size = minimum.max(image.as_ref().map_or(0, |image| image.bytes));
        let capacity = reserved_size_in_bytes.unwrap_or(size).max(size);
        if maximum.is_some_and(|maximum| size > maximum) {
            return Err(format!("a memory image of {size} bytes exceeds the memory's maximum"));
        }
        Ok(Box::new(ImageMemory::map(image.as_deref(), size, capacity, guard_size_in_bytes)?))
    }
}

/// A reservation of `capacity` plus a guard, inaccessible except its first `size` bytes: the image
/// mapped privately over its start, zero pages after it.
struct ImageMemory {
    base: *mut u8,
    /// Bytes of the whole mapping (capacity and guard).
    mapped: usize,
    size: usize,
    capacity: usize,
}

// SAFETY: the mapping is owned by this value alone; wasmtime synchronises access to a memory
// through its store, as with its own memories.
#[allow(unsafe_code)]
unsafe impl Send for ImageMemory {}
#[allow(unsafe_code)]
unsafe impl Sync for ImageMemory {}

#[allow(unsafe_code)] // mmap, mprotect and munmap have no safe wrapper in the standard library.
impl ImageMemory {
    fn map(
        image: Option<&MemoryImage>,
        size: usize,
        capacity: usize,
        guard: usize,
    ) -> Result<ImageMemory, String> {
        // SAFETY: sysconf only reads a constant of the system.
        if unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize != PAGE_BYTES {
            return Err("memory images need 4 KiB pages".into());
        }
        let capacity = capacity.div_ceil(PAGE_BYTES) * PAGE_BYTES;
        let mapped = capacity + guard.div_ceil(PAGE_BYTES) * PAGE_BYTES;
        let os = |what: &str| format!("cannot {what} a linear memory: {}", std::io::Error::last_os_error());
        // SAFETY: a new anonymous mapping at an address the kernel chooses; nothing else uses it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os("reserve"));
        }
        let mut memory = ImageMemory { base: base.cast(), mapped, size: 0, capacity };
        if let Some(image) = image {
            let length = image.bytes.div_ceil(PAGE_BYTES) * PAGE_BYTES;
            // SAFETY: replaces the start of this value's own reservation (length <= capacity) with a
            // private, copy-on-write mapping of the image file, which stays open for the mapping's
            // life (a mapping keeps its file alive). Guest writes never reach the file.
            let mapped = unsafe {
                libc::mmap(
                    base,
                    length,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_FIXED,
                    image.file.as_raw_fd(),
                    0,
                )
            };
            if mapped == libc::MAP_FAILED {
                return Err(os("map the image of"));
            }
            memory.size = length;
        }
        memory.grow(size).map_err(|e| format!("cannot make a linear memory accessible: {e}"))?;
        Ok(memory)
    }

    /// Makes the bytes up to `new_size` accessible (zero pages beyond the image).
    fn grow(&mut self, new_size: usize) -> std::io::Result<()> {
        let new_size = new_size.div_ceil(PAGE_BYTES) * PAGE_BYTES;
        if new_size > self.capacity {
            return Err(std::io::Error::other("beyond the memory's reservation"));
        }
        if new_size > self.size {
            // SAFETY: the range lies inside this value's own reservation (checked above).
            let done = unsafe {
                libc::mprotect(
                    self.base.add(self.size).cast(),
                    new_size - self.size,
                    libc::PROT_READ | libc::PROT_WRITE,
                )
            };
            if done != 0 {
                return Err(std::io::Error::last_os_error());
            }
            self.size = new_size;
        }
        Ok(())
    }
}

// SAFETY: `as_ptr` is the page-aligned base of a mapping of `byte_capacity` bytes plus the guard
// wasmtime asked for; the first `byte_size` bytes are readable and writable, the rest inaccessible,
// and the base never moves (growth beyond the reservation fails).
#[allow(unsafe_code)]
unsafe impl LinearMemory for ImageMemory {
    fn byte_size(&self) -> usize {
        self.size
    }

    fn byte_capacity(&self) -> usize {
        self.capacity
    }

    fn grow_to(&mut self, new_size: usize) -> wasmtime::Result<()> {
        self.grow(new_size).map_err(wasmtime::Error::new)
    }

    fn as_ptr(&self) -> *mut u8 {
        self.base
    }
}

#[allow(unsafe_code)]
impl Drop for ImageMemory {
    fn drop(&mut self) {
        // SAFETY: unmaps this value's own mapping, which nothing uses once wasmtime drops it.
        unsafe {
            libc::munmap(self.base.cast(), self.mapped);
        }
    }
}

/// A new memfd, close-on-exec, whose seals can be added.
#[allow(unsafe_code)] // memfd_create has no safe wrapper in the standard library.
fn memfd(name: &str) -> Result<File, String> {
    let name = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: `name` is a valid C string; the flags ask for a new descriptor.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    if fd < 0 {
        return Err(format!("cannot create a memory image: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: `fd` is a new descriptor that nothing else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Seals the file's size and the seals themselves. (No write seal: the kernel may refuse it for a
/// moment on a loaded machine, and nothing writes the file after it is made.)
#[allow(unsafe_code)] // fcntl has no safe wrapper in the standard library.
fn seal_size(file: &File) -> Result<(), String> {
    let seals = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;
    // SAFETY: adds seals to a descriptor this module owns.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } != 0 {
        return Err(format!("cannot seal a memory image: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_reads_back_as_written_with_zeros_below_the_cut() {
        let mut memory = vec![0u8; 5 * PAGE_BYTES];
        memory[10] = 1; // below the cut: taken as zero
        memory[2 * PAGE_BYTES + 7] = 42;
        memory[5 * PAGE_BYTES - 1] = 9;
        let image = MemoryImage::new(&memory, PAGE_BYTES).expect("image");
        let read = image.read().expect("read");
        memory[10] = 0;
        assert_eq!(read, memory);
    }

    #[test]
    fn a_memory_starts_as_its_image_and_writes_stay_private() {
        let mut bytes = vec![0u8; 16 * PAGE_BYTES];
        bytes[3 * PAGE_BYTES] = 7;
        let image = MemoryImage::new(&bytes, 0).expect("image");
        let mut memory =
            ImageMemory::map(Some(&image), 16 * PAGE_BYTES, 64 * PAGE_BYTES, PAGE_BYTES).expect("mapped");
        memory.grow(20 * PAGE_BYTES).expect("grows within its reservation");
        assert!(memory.grow(65 * PAGE_BYTES).is_err(), "not beyond it");
        #[allow(unsafe_code)]
        // SAFETY: the first 20 pages are mapped readable and writable.
        let view = unsafe { std::slice::from_raw_parts_mut(memory.as_ptr(), 20 * PAGE_BYTES) };
        assert_eq!(view[3 * PAGE_BYTES], 7);
        view[3 * PAGE_BYTES] = 99;
        view[19 * PAGE_BYTES] = 1;
        drop(memory);
        assert_eq!(image.read().expect("read"), bytes, "the image is unchanged");
    }
}
