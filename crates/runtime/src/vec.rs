//! Field vectors that track where their valid copies live (ZERA §4.3, without unified
//! memory: the thesis measured page migration as its main overhead). A vector is
//! immutable once made, so a copy never goes stale: it is on the host, on the device, or
//! on both, and a copy is made only when the other side first reads it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use fastzk_gpu::runtime::Event;
use fastzk_gpu::source::{from_words, to_words};
use fastzk_gpu::{Buffer, Device, DeviceField};

use crate::RuntimeError;

/// Where a vector's valid copies are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Residency {
    Host,
    Device,
    Both,
}

/// Data moved between host and device through a context, per direction, with the
/// launches of the layer's kernels and the streams its tasks took. Vectors count in
/// `uploads`/`downloads`; the control words of launches (the fault flag, a reduction's
/// partial results) count apart in `control_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub uploads: u64,
    pub upload_bytes: u64,
    pub downloads: u64,
    pub download_bytes: u64,
    pub launches: u64,
    /// Streams taken by tasks (from the device's pool, so not always new ones).
    pub streams: u64,
    pub control_copies: u64,
    pub control_bytes: u64,
}

impl Traffic {
    /// What moved between `earlier` (a snapshot of the same context) and this snapshot.
    pub fn since(&self, earlier: &Traffic) -> Traffic {
        Traffic {
            uploads: self.uploads - earlier.uploads,
            upload_bytes: self.upload_bytes - earlier.upload_bytes,
            downloads: self.downloads - earlier.downloads,
            download_bytes: self.download_bytes - earlier.download_bytes,
            launches: self.launches - earlier.launches,
            streams: self.streams - earlier.streams,
            control_copies: self.control_copies - earlier.control_copies,
            control_bytes: self.control_bytes - earlier.control_bytes,
        }
    }
}

#[derive(Default)]
pub(crate) struct Counters {
    uploads: AtomicU64,
    upload_bytes: AtomicU64,
    downloads: AtomicU64,
    download_bytes: AtomicU64,
    launches: AtomicU64,
    streams: AtomicU64,
    control_copies: AtomicU64,
    control_bytes: AtomicU64,
}

impl Counters {
    pub(crate) fn snapshot(&self) -> Traffic {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Traffic {
            uploads: g(&self.uploads),
            upload_bytes: g(&self.upload_bytes),
            downloads: g(&self.downloads),
            download_bytes: g(&self.download_bytes),
            launches: g(&self.launches),
            streams: g(&self.streams),
            control_copies: g(&self.control_copies),
            control_bytes: g(&self.control_bytes),
        }
    }
    pub(crate) fn uploaded(&self, bytes: usize) {
        self.uploads.fetch_add(1, Ordering::Relaxed);
        self.upload_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }
    pub(crate) fn stream_taken(&self) {
        self.streams.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn launched(&self) {
        self.launches.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn control(&self, bytes: usize) {
        self.control_copies.fetch_add(1, Ordering::Relaxed);
        self.control_bytes
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

/// What the vectors of one context share: its device (if any) and its counters.
pub(crate) struct Shared {
    pub(crate) device: Option<Arc<Device>>,
    pub(crate) counters: Counters,
}

/// A vector of field elements of one [`crate::Context`], on the host, the device or both.
pub struct FieldVec<F> {
    len: usize,
    shared: Arc<Shared>,
    copies: Mutex<Copies<F>>,
}

struct Copies<F> {
    host: Option<HostSlice<F>>,
    /// The device copy and the event after which it is valid (the end of the kernel or
    /// the copy that made it, on the stream of the task that issued it).
    device: Option<(Arc<Buffer>, Arc<Event>)>,
}

impl<F: DeviceField> FieldVec<F> {
    pub(crate) fn from_host(shared: Arc<Shared>, v: Arc<Vec<F>>) -> Self {
        Self {
            len: v.len(),
            shared,
            copies: Mutex::new(Copies {
                host: Some(HostSlice::whole(v)),
                device: None,
            }),
        }
    }

    pub(crate) fn from_device(
        shared: Arc<Shared>,
        len: usize,
        buf: Arc<Buffer>,
        ready: Arc<Event>,
    ) -> Self {
        Self {
            len,
            shared,
            copies: Mutex::new(Copies {
                host: None,
                device: Some((buf, ready)),
            }),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Copies<F>> {
        self.copies.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn residency(&self) -> Residency {
        let c = self.lock();
        match (c.host.is_some(), c.device.is_some()) {
            (true, true) => Residency::Both,
            (false, true) => Residency::Device,
            _ => Residency::Host,
        }
    }

    pub(crate) fn belongs_to(&self, shared: &Arc<Shared>) -> bool {
        Arc::ptr_eq(&self.shared, shared)
    }

    /// The host copy, downloaded first if there is none (after the work that makes the
    /// device copy has run).
    pub fn host(&self) -> Result<HostSlice<F>, RuntimeError> {
        let mut c = self.lock();
        if let Some(h) = &c.host {
            return Ok(h.clone());
        }
        let (Some((buf, ready)), Some(dev)) = (&c.device, &self.shared.device) else {
            return unreachable_copies();
        };
        ready.wait()?;
        let words = download(dev, buf, self.len * F::WORDS)?;
        let cnt = &self.shared.counters;
        cnt.downloads.fetch_add(1, Ordering::Relaxed);
        cnt.download_bytes
            .fetch_add((words.len() * 8) as u64, Ordering::Relaxed);
        let h = HostSlice::whole(Arc::new(from_words::<F>(&words)));
        c.host = Some(h.clone());
        Ok(h)
    }

    /// The elements, on the host.
    pub fn to_vec(&self) -> Result<Vec<F>, RuntimeError> {
        Ok(self.host()?.to_vec())
    }

    /// The elements as the caller's own vector: the host copy itself when nothing else
    /// shares it (no copy), else a copy of it (downloaded first if there is none).
    pub fn into_vec(self) -> Result<Vec<F>, RuntimeError> {
        let h = self.host()?;
        drop(self);
        Ok(h.into_vec())
    }

    /// The device copy, if there is one.
    pub(crate) fn device_buffer(&self) -> Option<Arc<Buffer>> {
        self.lock().device.as_ref().map(|(b, _)| b.clone())
    }

    /// The first `mid` elements and the rest, as two vectors sharing this one's host
    /// copy (no copy is made; the host copy is downloaded first if there is none).
    pub fn split_at(&self, mid: usize) -> Result<(Self, Self), RuntimeError> {
        if mid > self.len {
            return Err(RuntimeError::Internal(format!(
                "split at {mid} of a vector of {}",
                self.len
            )));
        }
        let h = self.host()?;
        let part = |start: usize, len: usize| Self {
            len,
            shared: self.shared.clone(),
            copies: Mutex::new(Copies {
                host: Some(HostSlice {
                    data: h.data.clone(),
                    start: h.start + start,
                    len,
                }),
                device: None,
            }),
        };
        Ok((part(0, mid), part(mid, self.len - mid)))
    }

    /// The device copy and the event it is valid after, made by `upload` (from the
    /// elements' words) if there is none.
    pub(crate) fn device_copy(
        &self,
        upload: impl FnOnce(&[u64]) -> Result<(Buffer, Event), RuntimeError>,
    ) -> Result<(Arc<Buffer>, Arc<Event>), RuntimeError> {
        let mut c = self.lock();
        if let Some(d) = &c.device {
            return Ok(d.clone());
        }
        let Some(h) = &c.host else {
            return unreachable_copies();
        };
        let words = to_words(h);
        let (buf, ready) = upload(&words)?;
        self.shared.counters.uploaded(words.len() * 8);
        let d = (Arc::new(buf), Arc::new(ready));
        c.device = Some(d.clone());
        Ok(d)
    }
}

/// A vector's host copy: a range of a shared allocation (views of one vector share it).
pub struct HostSlice<F> {
    data: Arc<Vec<F>>,
    start: usize,
    len: usize,
}

impl<F> HostSlice<F> {
    fn whole(data: Arc<Vec<F>>) -> Self {
        let len = data.len();
        Self {
            data,
            start: 0,
            len,
        }
    }

    /// The elements, taking the allocation when this slice is all of it and the only
    /// holder.
    fn into_vec(self) -> Vec<F>
    where
        F: Clone,
    {
        if self.start == 0 && self.len == self.data.len() {
            Arc::try_unwrap(self.data).unwrap_or_else(|shared| shared.to_vec())
        } else {
            self.data[self.start..self.start + self.len].to_vec()
        }
    }
}

impl<F> Clone for HostSlice<F> {
    fn clone(&self) -> Self {
        Self {
            data: self.data.clone(),
            start: self.start,
            len: self.len,
        }
    }
}

impl<F> std::ops::Deref for HostSlice<F> {
    type Target = [F];
    fn deref(&self) -> &[F] {
        &self.data[self.start..self.start + self.len]
    }
}

/// A vector always has a copy, and one on the device only in a context with a device.
fn unreachable_copies<T>() -> Result<T, RuntimeError> {
    Err(RuntimeError::Internal(
        "a vector without the copy it needs".into(),
    ))
}

/// A buffer of at least one word (no device takes an empty one).
pub(crate) fn alloc_words(dev: &Device, words: usize) -> Result<Buffer, RuntimeError> {
    Ok(dev.alloc(8 * words.max(1))?)
}

/// The first `words` words of `buf`, through pinned memory.
pub(crate) fn download(dev: &Device, buf: &Buffer, words: usize) -> Result<Vec<u64>, RuntimeError> {
    if words == 0 {
        return Ok(Vec::new());
    }
    let stream = dev.stream()?;
    let mut pinned = dev.pinned(8 * words)?;
    stream.download(buf, 0, &mut pinned)?;
    Ok(pinned.as_slice::<u64>()?.to_vec())
}
