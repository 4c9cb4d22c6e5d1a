//! What `triage` reads: a file or standard input holding JSONL, or a gzip or Zstandard archive
//! of it, told by its first bytes, with the bytes taken from it counted for the progress bar.

use std::cell::Cell;
use std::fmt;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::rc::Rc;

/// The size of the buffers the input is read through.
const BUFFER: usize = 256 * 1024;

/// How the input is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// The JSONL itself.
    None,
    /// gzip (first bytes `1f 8b`): one member or several, as `zcat` reads them.
    Gzip,
    /// Zstandard (first bytes `28 b5 2f fd`): one frame or several.
    Zstd,
}

impl Compression {
    /// How the bytes that begin an input tell its storage.
    pub fn of(start: &[u8]) -> Compression {
        if start.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if start.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compression::None => "uncompressed",
            Compression::Gzip => "gzip",
            Compression::Zstd => "Zstandard",
        })
    }
}

/// The bytes read from the source so far: of the archive, for a compressed input.
#[derive(Clone, Debug, Default)]
pub struct ReadCount(Rc<Cell<u64>>);

impl ReadCount {
    /// The bytes read so far.
    pub fn get(&self) -> u64 {
        self.0.get()
    }
}

/// A reader that adds what it reads to a [`ReadCount`].
struct Counted<R> {
    inner: R,
    count: ReadCount,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(out)?;
        self.count.0.set(self.count.0.get() + read as u64);
        Ok(read)
    }
}

/// An input opened: the JSONL it holds, how it was stored, and the bytes read of it.
pub struct Source {
    /// The JSONL, decompressed.
    pub reader: Box<dyn BufRead>,
    /// How the input was stored.
    pub compression: Compression,
    /// The bytes read of the input itself (of the archive, when compressed).
    pub count: ReadCount,
}

/// Why an input could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// Its first bytes could not be read.
    Read(std::io::Error),
    /// It is compressed, and this build reads no compressed input (feature `compression`).
    NotBuilt(Compression),
}

/// Opens `raw` for reading as JSONL: reads its first bytes, and when they begin a gzip or a
/// Zstandard archive, decompresses it as it is read (streaming; nothing is held whole).
///
/// ```
/// use std::io::{BufRead, Write};
/// use submit_cli::__private::open;
///
/// let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
/// gzip.write_all(b"{\"a\": 1}\n{\"b\": 2}\n")?;
/// let archive = gzip.finish()?;
/// let size = archive.len() as u64;
///
/// let mut source = open(std::io::Cursor::new(archive)).map_err(|e| format!("{e:?}"))?;
/// assert_eq!(source.compression.to_string(), "gzip");
/// let lines: Vec<String> = (&mut *source.reader).lines().collect::<Result<_, _>>()?;
/// assert_eq!(lines, ["{\"a\": 1}", "{\"b\": 2}"]);
/// assert_eq!(source.count.get(), size);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open(raw: impl Read + 'static) -> Result<Source, OpenError> {
    let count = ReadCount::default();
    let mut counted = Counted {
        inner: raw,
        count: count.clone(),
    };
    // The first four bytes, however the source hands them over (a pipe may give fewer at a
    // time), then the rest after them.
    let mut start = [0u8; 4];
    let mut have = 0;
    while have < start.len() {
        match counted.read(&mut start[have..]) {
            Ok(0) => break,
            Ok(read) => have += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(OpenError::Read(error)),
        }
    }
    let prefix = start.get(..have).unwrap_or_default().to_vec();
    let compression = Compression::of(&prefix);
    let whole = BufReader::with_capacity(BUFFER, Cursor::new(prefix).chain(counted));
    let reader = decompressed(whole, compression)?;
    Ok(Source {
        reader,
        compression,
        count,
    })
}

#[cfg(feature = "compression")]
fn decompressed(
    raw: BufReader<impl Read + 'static>,
    compression: Compression,
) -> Result<Box<dyn BufRead>, OpenError> {
    Ok(match compression {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUFFER,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            BUFFER,
            zstd::stream::read::Decoder::with_buffer(raw).map_err(OpenError::Read)?,
        )),
    })
}

#[cfg(not(feature = "compression"))]
fn decompressed(
    raw: BufReader<impl Read + 'static>,
    compression: Compression,
) -> Result<Box<dyn BufRead>, OpenError> {
    match compression {
        Compression::None => Ok(Box::new(raw)),
        compressed => Err(OpenError::NotBuilt(compressed)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands over one byte a call, as a slow pipe may.
    struct Trickle(Vec<u8>, usize);

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.get(self.1), out.first_mut()) {
                (Some(byte), Some(slot)) => {
                    *slot = *byte;
                    self.1 += 1;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    fn read_all(source: Source) -> String {
        let mut text = String::new();
        let mut reader = source.reader;
        reader.read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn the_first_bytes_tell_the_storage() {
        assert_eq!(Compression::of(b"\x1f\x8b\x08\x00"), Compression::Gzip);
        assert_eq!(Compression::of(b"\x28\xb5\x2f\xfd"), Compression::Zstd);
        assert_eq!(Compression::of(b"{\"type\""), Compression::None);
        assert_eq!(Compression::of(b"\x1f"), Compression::None);
    }

    #[test]
    fn plain_jsonl_is_read_as_it_is_even_one_byte_at_a_time() {
        let source = open(Trickle(b"{}\n[1]\n".to_vec(), 0)).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(source.compression, Compression::None);
        let count = source.count.clone();
        assert_eq!(read_all(source), "{}\n[1]\n");
        assert_eq!(count.get(), 7);
    }

    #[test]
    fn short_inputs_are_read_whole() {
        for text in ["", "{", "\x1f"] {
            let source =
                open(Cursor::new(text.as_bytes().to_vec())).unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(source.compression, Compression::None);
            assert_eq!(read_all(source), text);
        }
    }

    #[cfg(feature = "compression")]
    #[test]
    fn gzip_members_one_after_the_other_are_read_as_one_text() {
        use std::io::Write;
        let member = |text: &[u8]| {
            let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gzip.write_all(text).unwrap();
            gzip.finish().unwrap()
        };
        let mut archive = member(b"{\"a\":1}\n");
        archive.extend(member(b"{\"b\":2}\n"));
        let source = open(Trickle(archive, 0)).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(source.compression, Compression::Gzip);
        assert_eq!(read_all(source), "{\"a\":1}\n{\"b\":2}\n");
    }

    #[cfg(feature = "compression")]
    #[test]
    fn zstandard_frames_one_after_the_other_are_read_as_one_text() {
        let mut archive = zstd::encode_all(&b"{\"a\":1}\n"[..], 3).unwrap();
        archive.extend(zstd::encode_all(&b"{\"b\":2}\n"[..], 3).unwrap());
        let source = open(Cursor::new(archive)).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(source.compression, Compression::Zstd);
        assert_eq!(read_all(source), "{\"a\":1}\n{\"b\":2}\n");
    }

    #[cfg(feature = "compression")]
    #[test]
    fn a_cut_archive_is_a_read_error_after_what_it_held() {
        use std::io::Write;
        let text = "{\"a\":1}\n".repeat(10_000);
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(text.as_bytes()).unwrap();
        let gzip = gzip.finish().unwrap();
        let zstd = zstd::encode_all(text.as_bytes(), 3).unwrap();
        for archive in [gzip, zstd] {
            let cut = archive[..archive.len() - 10].to_vec();
            let source = open(Cursor::new(cut)).unwrap_or_else(|e| panic!("{e:?}"));
            let mut reader = source.reader;
            let mut read = Vec::new();
            let error = reader.read_to_end(&mut read).unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::UnexpectedEof, "{error}");
        }
    }
}
