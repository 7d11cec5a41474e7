//! Random-access bytes: a key file read a block at a time, or bytes in memory.

use std::io;

/// Bytes that can be read at any offset from several threads at once.
pub trait ByteSource: Send + Sync {
    fn len(&self) -> u64;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `buf` from `offset`; an error if the bytes are not all there.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
}

impl ByteSource for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(|_| eof())?;
        let end = start.checked_add(buf.len()).ok_or_else(eof)?;
        buf.copy_from_slice(self.get(start..end).ok_or_else(eof)?);
        Ok(())
    }
}

/// A file, read with positioned reads (no shared cursor, so threads need no lock, and
/// no mapping, so what was read once is not counted in the process' memory).
pub struct FileSource {
    file: std::fs::File,
    len: u64,
}

impl FileSource {
    pub fn open(path: &std::path::Path) -> io::Result<Self> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Self { file, len })
    }
}

impl ByteSource for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    #[cfg(unix)]
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
    }

    #[cfg(windows)]
    fn read_at(&self, mut offset: u64, mut buf: &mut [u8]) -> io::Result<()> {
        use std::os::windows::fs::FileExt;
        while !buf.is_empty() {
            match self.file.seek_read(buf, offset)? {
                0 => return Err(eof()),
                k => {
                    buf = &mut buf[k..];
                    offset += k as u64;
                }
            }
        }
        Ok(())
    }
}

fn eof() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "read past the end of the key")
}

/// `std::io::Read + Seek` over a source, for the section-table scanner.
pub(crate) struct SourceReader<'a> {
    pub source: &'a dyn ByteSource,
    pub pos: u64,
}

impl io::Read for SourceReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.source.len().saturating_sub(self.pos);
        let k = (buf.len() as u64).min(left) as usize;
        self.source.read_at(self.pos, &mut buf[..k])?;
        self.pos += k as u64;
        Ok(k)
    }
}

impl io::Seek for SourceReader<'_> {
    fn seek(&mut self, to: io::SeekFrom) -> io::Result<u64> {
        self.pos = match to {
            io::SeekFrom::Start(p) => p,
            io::SeekFrom::End(d) => self.source.len().checked_add_signed(d).ok_or_else(eof)?,
            io::SeekFrom::Current(d) => self.pos.checked_add_signed(d).ok_or_else(eof)?,
        };
        Ok(self.pos)
    }
}
