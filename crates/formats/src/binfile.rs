//! The iden3 binary container every circom/snarkjs file uses.
//!
//! Layout (all integers little-endian): 4-byte magic (`"r1cs"`, `"wtns"`, `"zkey"`,
//! `"ptau"`), `u32` version, `u32` number of sections, then each section as `u32` type,
//! `u64` size and `size` bytes. Sections are found by type, in any order.
//!
//! Parsing checks every length against the bytes that remain before it is used, so a
//! corrupt header can neither make the reader allocate nor read out of bounds.

use std::io::{Read, Seek, SeekFrom};

use crate::error::{Ctx, ErrorKind, FormatError, Result};

/// One section's place in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    pub id: u32,
    /// Offset of the section's first content byte from the start of the file.
    pub offset: u64,
    pub size: u64,
}

/// The header and section table of a container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionTable {
    pub magic: [u8; 4],
    pub version: u32,
    /// Sections in file order; no id appears twice.
    pub sections: Vec<Section>,
}

impl SectionTable {
    /// The section with this id, if present.
    pub fn find(&self, id: u32) -> Option<&Section> {
        self.sections.iter().find(|s| s.id == id)
    }

    /// The section with this id, or a [`ErrorKind::MissingSection`] error.
    pub fn require(&self, file: &str, id: u32) -> Result<&Section> {
        self.find(id)
            .ok_or_else(|| FormatError::new(file, ErrorKind::MissingSection(id)))
    }

    /// Checks the version against the supported ones.
    pub fn check_version(&self, file: &str, supported: &[u32]) -> Result<()> {
        if supported.contains(&self.version) {
            Ok(())
        } else {
            Err(FormatError::new(
                file,
                ErrorKind::Version {
                    found: self.version,
                    supported: supported
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                },
            ))
        }
    }
}

fn magic_str(m: &[u8]) -> String {
    String::from_utf8_lossy(m).into_owned()
}

/// Reads the section table from anything seekable of known length, skipping over the
/// section contents (for files too large to load, like big `.ptau` files).
pub fn scan_table<R: Read + Seek>(
    r: &mut R,
    total_len: u64,
    magic: &[u8; 4],
    file: &str,
) -> Result<SectionTable> {
    let io = |e: std::io::Error| FormatError::new(file, ErrorKind::Io(e));
    let truncated = |needed: u64, available: u64| {
        FormatError::new(file, ErrorKind::Truncated { needed, available }).in_section("file header")
    };
    if total_len < 12 {
        return Err(truncated(12, total_len));
    }
    let mut head = [0u8; 12];
    r.seek(SeekFrom::Start(0)).map_err(io)?;
    r.read_exact(&mut head).map_err(io)?;
    let found: [u8; 4] = head[..4].try_into().expect("4 bytes");
    if &found != magic {
        return Err(FormatError::new(
            file,
            ErrorKind::Magic {
                found: magic_str(&found),
                expected: magic_str(magic),
            },
        ));
    }
    let version = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes"));
    let n_sections = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
    let mut pos = 12u64;
    // Each section costs at least 12 bytes, so the file size bounds the table.
    let mut sections = Vec::with_capacity((n_sections as u64).min((total_len - pos) / 12) as usize);
    for i in 0..n_sections {
        let left = total_len - pos;
        let at_section = |e: FormatError| e.in_section(format!("section header {i}"));
        if left < 12 {
            return Err(at_section(FormatError::new(
                file,
                ErrorKind::Truncated {
                    needed: 12,
                    available: left,
                },
            )));
        }
        let mut sh = [0u8; 12];
        r.read_exact(&mut sh).map_err(io)?;
        pos += 12;
        let id = u32::from_le_bytes(sh[..4].try_into().expect("4 bytes"));
        let size = u64::from_le_bytes(sh[4..].try_into().expect("8 bytes"));
        let left = total_len - pos;
        if size > left {
            return Err(FormatError::new(
                file,
                ErrorKind::Truncated {
                    needed: size,
                    available: left,
                },
            )
            .in_section(format!("section {id}")));
        }
        if sections.iter().any(|s: &Section| s.id == id) {
            return Err(FormatError::new(file, ErrorKind::DuplicateSection(id)));
        }
        sections.push(Section {
            id,
            offset: pos,
            size,
        });
        pos += size;
        if size > 0 {
            r.seek(SeekFrom::Start(pos)).map_err(io)?;
        }
    }
    if pos != total_len {
        return Err(FormatError::new(
            file,
            ErrorKind::TrailingBytes(total_len - pos),
        ));
    }
    Ok(SectionTable {
        magic: found,
        version,
        sections,
    })
}

/// A container parsed from bytes in memory.
#[derive(Clone, Debug)]
pub struct BinFile<'a, 'f> {
    pub table: SectionTable,
    pub bytes: &'a [u8],
    /// The file name errors mention.
    pub file: &'f str,
}

impl<'a, 'f> BinFile<'a, 'f> {
    /// Parses the header and section table; `magic` must match.
    pub fn parse(bytes: &'a [u8], magic: &[u8; 4], file: &'f str) -> Result<Self> {
        let table = scan_table(
            &mut std::io::Cursor::new(bytes),
            bytes.len() as u64,
            magic,
            file,
        )?;
        Ok(Self { table, bytes, file })
    }

    /// The contents of a section, if present.
    pub fn section(&self, id: u32) -> Option<&'a [u8]> {
        self.table.find(id).map(|s| self.slice(s))
    }

    /// The contents of a required section.
    pub fn require(&self, id: u32) -> Result<&'a [u8]> {
        let s = self.table.require(self.file, id)?;
        Ok(self.slice(s))
    }

    fn slice(&self, s: &Section) -> &'a [u8] {
        // In range: scan_table checked offset + size against the length.
        &self.bytes[s.offset as usize..(s.offset + s.size) as usize]
    }
}

/// A little-endian reader over a byte slice whose errors carry a file/section context.
pub struct Cursor<'a, 'c> {
    bytes: &'a [u8],
    pos: usize,
    pub ctx: Ctx<'c>,
}

impl<'a, 'c> Cursor<'a, 'c> {
    pub fn new(bytes: &'a [u8], ctx: Ctx<'c>) -> Self {
        Self { bytes, pos: 0, ctx }
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes; an error (not a panic, not an allocation) when fewer remain.
    pub fn take(&mut self, n: u64) -> Result<&'a [u8]> {
        let left = self.remaining() as u64;
        if n > left {
            return Err(self.ctx.err(ErrorKind::Truncated {
                needed: n,
                available: left,
            }));
        }
        let s = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    /// Checks that `count` items of `item_size` bytes fit in what remains, before the
    /// caller allocates for them.
    pub fn check_fits(&self, count: u64, item_size: u64) -> Result<()> {
        let needed = count.saturating_mul(item_size);
        let left = self.remaining() as u64;
        if needed > left {
            return Err(self.ctx.err(ErrorKind::Truncated {
                needed,
                available: left,
            }));
        }
        Ok(())
    }

    /// Errors unless every byte was consumed.
    pub fn finish(&self) -> Result<()> {
        if self.remaining() != 0 {
            return Err(self.ctx.invalid(format!(
                "{} unexpected bytes at the end of the section",
                self.remaining()
            )));
        }
        Ok(())
    }
}

/// Builds a container in memory, section by section.
#[derive(Debug)]
pub struct BinWriter {
    buf: Vec<u8>,
    n_sections: u32,
    /// Where finished sections go when writing straight to a file ([`Self::create`]):
    /// then `buf` holds one section at a time.
    file: Option<FileSink>,
}

#[derive(Debug)]
struct FileSink {
    path: std::path::PathBuf,
    out: std::io::BufWriter<std::fs::File>,
    /// The first write error, reported by [`BinWriter::finish_file`].
    error: Option<std::io::Error>,
}

impl BinWriter {
    pub fn new(magic: &[u8; 4], version: u32) -> Self {
        let mut buf = Vec::with_capacity(1 << 12);
        buf.extend_from_slice(magic);
        buf.extend_from_slice(&version.to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes());
        Self {
            buf,
            n_sections: 0,
            file: None,
        }
    }

    /// A writer that sends each section to `path` as soon as it is complete, so at most
    /// one section is held in memory (a key of many GiB is written with the memory of
    /// its largest section); end with [`Self::finish_file`].
    pub fn create(path: &std::path::Path, magic: &[u8; 4], version: u32) -> Result<Self> {
        let file = std::fs::File::create(path)
            .map_err(|e| FormatError::new(&path.display().to_string(), ErrorKind::Io(e)))?;
        let mut w = Self::new(magic, version);
        w.file = Some(FileSink {
            path: path.to_owned(),
            out: std::io::BufWriter::new(file),
            error: None,
        });
        w.flush_to_file();
        Ok(w)
    }

    /// Appends a section whose contents `fill` writes into the buffer it is given.
    pub fn section(&mut self, id: u32, fill: impl FnOnce(&mut Vec<u8>)) -> &mut Self {
        self.buf.extend_from_slice(&id.to_le_bytes());
        let size_at = self.buf.len();
        self.buf.extend_from_slice(&0u64.to_le_bytes());
        let start = self.buf.len();
        fill(&mut self.buf);
        let size = (self.buf.len() - start) as u64;
        self.buf[size_at..size_at + 8].copy_from_slice(&size.to_le_bytes());
        self.n_sections += 1;
        self.flush_to_file();
        self
    }

    /// Appends a section of exactly `len` bytes that `fill` hands over in pieces to the
    /// function it is given. A writer from [`Self::create`] sends each piece straight to
    /// the file, so a section of many GiB needs no buffer of its size. A `fill` that
    /// hands over any other number of bytes, or fails, is an error (the file is then
    /// unusable).
    pub fn section_sized<E>(
        &mut self,
        id: u32,
        len: u64,
        fill: impl FnOnce(&mut dyn FnMut(&[u8])) -> std::result::Result<(), E>,
    ) -> std::result::Result<&mut Self, SizedSectionError<E>> {
        self.buf.extend_from_slice(&id.to_le_bytes());
        self.buf.extend_from_slice(&len.to_le_bytes());
        self.flush_to_file();
        let mut written = 0u64;
        let result = {
            let buf = &mut self.buf;
            let file = &mut self.file;
            let mut put = |piece: &[u8]| {
                written += piece.len() as u64;
                match file {
                    Some(sink) => {
                        use std::io::Write;
                        if sink.error.is_none() {
                            sink.error = sink.out.write_all(piece).err();
                        }
                    }
                    None => buf.extend_from_slice(piece),
                }
            };
            fill(&mut put)
        };
        result.map_err(SizedSectionError::Fill)?;
        if written != len {
            return Err(SizedSectionError::Length {
                id,
                declared: len,
                written,
            });
        }
        self.n_sections += 1;
        Ok(self)
    }

    /// Appends a section with the given contents.
    pub fn raw_section(&mut self, id: u32, bytes: &[u8]) -> &mut Self {
        self.section(id, |b| b.extend_from_slice(bytes))
    }

    fn flush_to_file(&mut self) {
        use std::io::Write;
        if let Some(sink) = &mut self.file {
            if sink.error.is_none() {
                sink.error = sink.out.write_all(&self.buf).err();
            }
            self.buf = Vec::new();
        }
    }

    /// The bytes written (for a writer from [`Self::new`]).
    pub fn finish(mut self) -> Vec<u8> {
        self.buf[8..12].copy_from_slice(&self.n_sections.to_le_bytes());
        self.buf
    }

    /// Completes a file from [`Self::create`]: the section count in the header, and any
    /// write error, naming the file.
    pub fn finish_file(self) -> Result<()> {
        use std::io::{Seek, SeekFrom, Write};
        let Some(FileSink {
            path,
            mut out,
            error,
        }) = self.file
        else {
            return Err(FormatError::new(
                "<in memory>",
                ErrorKind::Invalid("finish_file on a writer made by BinWriter::new".into()),
            ));
        };
        let n = self.n_sections;
        let result = match error {
            Some(e) => Err(e),
            None => out
                .seek(SeekFrom::Start(8))
                .and_then(|_| out.write_all(&n.to_le_bytes()))
                .and_then(|_| out.flush()),
        };
        result.map_err(|e| FormatError::new(&path.display().to_string(), ErrorKind::Io(e)))
    }
}

/// Why [`BinWriter::section_sized`] failed.
#[derive(Debug, thiserror::Error)]
pub enum SizedSectionError<E> {
    #[error("{0}")]
    Fill(E),
    #[error("section {id} was declared {declared} bytes long but {written} were written")]
    Length {
        id: u32,
        declared: u64,
        written: u64,
    },
}

/// Reads a whole file, with an error naming it.
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| FormatError::new(&path.display().to_string(), ErrorKind::Io(e)))
}

/// Writes a whole file, with an error naming it.
pub fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes)
        .map_err(|e| FormatError::new(&path.display().to_string(), ErrorKind::Io(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections(w: &mut BinWriter) {
        w.section(1, |b| b.extend_from_slice(&7u32.to_le_bytes()));
        // Section 2 handed over in pieces of uneven size.
        w.section_sized(2, 1000, |put| {
            put(&[0xab; 300]);
            put(&[]);
            put(&[0xab; 700]);
            Ok::<(), ()>(())
        })
        .unwrap();
        w.section(3, |_| {});
    }

    #[test]
    fn a_sized_section_of_the_wrong_length_or_a_failed_fill_is_an_error() {
        let mut w = BinWriter::new(b"test", 1);
        let e = w.section_sized(4, 10, |put| {
            put(&[1; 9]);
            Ok::<(), ()>(())
        });
        assert!(
            matches!(
                e,
                Err(SizedSectionError::Length {
                    id: 4,
                    declared: 10,
                    written: 9
                })
            ),
            "{e:?}"
        );
        let mut w = BinWriter::new(b"test", 1);
        let e = w.section_sized(4, 0, |_| Err("no"));
        assert!(matches!(e, Err(SizedSectionError::Fill("no"))));
    }

    #[test]
    fn a_file_written_section_by_section_has_the_in_memory_bytes() {
        let mut w = BinWriter::new(b"test", 3);
        sections(&mut w);
        let expected = w.finish();
        let path = std::env::temp_dir().join(format!("fastzk-binwriter-{}", std::process::id()));
        let mut w = BinWriter::create(&path, b"test", 3).unwrap();
        sections(&mut w);
        w.finish_file().unwrap();
        let got = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(got, expected);
        let f = BinFile::parse(&got, b"test", "t").unwrap();
        assert_eq!(f.require(2).unwrap(), &[0xab; 1000][..]);

        // An in-memory writer has no file to finish; a file that cannot be created is
        // named.
        assert!(BinWriter::new(b"test", 3).finish_file().is_err());
        let e = BinWriter::create(std::path::Path::new("/nonexistent/dir/f"), b"test", 3)
            .err()
            .unwrap();
        assert!(e.to_string().contains("/nonexistent/dir/f"), "{e}");
    }
}
