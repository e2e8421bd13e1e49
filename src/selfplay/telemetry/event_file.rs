//! TensorBoard's event file format, for scalars: a sequence of records, each
//!
//! ```text
//! u64 length (little-endian) · u32 masked CRC-32C of those 8 bytes
//!     · the data · u32 masked CRC-32C of the data
//! ```
//!
//! whose data is a serialised `tensorflow.Event` protocol buffer. The first event holds the
//! file version (`brain.Event:2`); each later one a wall time, a step and a `Summary` of
//! `simple_value` scalars — the form TensorBoard's scalar dashboard reads from any writer. The
//! few protocol-buffer fields needed are written by hand (field numbers from TensorFlow's
//! `event.proto` and `summary.proto`), so no protobuf code generator is needed.
//!
//! `read_scalars` reads such a file back (checking both checksums of every record): the tests
//! use it, and `scripts/check_tensorboard.py` checks the same files with TensorBoard's own reader.

use std::io::{self, Read, Write};

/// The version string of the first event (the format TensorBoard reads).
pub const FILE_VERSION: &str = "brain.Event:2";

/// The largest record `read_record` accepts (a scalar event is a few hundred bytes).
const MAX_RECORD_BYTES: u64 = 1 << 24;

/// The masked CRC-32C of TensorFlow's record format.
fn masked_crc(bytes: &[u8]) -> u32 {
    let crc = crc32c::crc32c(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// Appends one record holding `data` to `out`.
pub fn write_record(out: &mut impl Write, data: &[u8]) -> io::Result<()> {
    let length = (data.len() as u64).to_le_bytes();
    out.write_all(&length)?;
    out.write_all(&masked_crc(&length).to_le_bytes())?;
    out.write_all(data)?;
    out.write_all(&masked_crc(data).to_le_bytes())
}

/// Reads the next record's data, `None` at the end of the input.
///
/// # Errors
/// A truncated record or a checksum that does not match, saying which.
pub fn read_record(input: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut header = [0u8; 12];
    match input.read_exact(&mut header[..1]) {
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    input.read_exact(&mut header[1..])?;
    let length = u64::from_le_bytes(header[..8].try_into().expect("8 bytes"));
    let length_crc = u32::from_le_bytes(header[8..].try_into().expect("4 bytes"));
    if masked_crc(&header[..8]) != length_crc {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a record's length fails its checksum",
        ));
    }
    if length > MAX_RECORD_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "a record of {length} bytes (more than {MAX_RECORD_BYTES}: not a scalar event)"
            ),
        ));
    }
    let mut data = vec![0u8; length as usize];
    input.read_exact(&mut data)?;
    let mut crc = [0u8; 4];
    input.read_exact(&mut crc)?;
    if masked_crc(&data) != u32::from_le_bytes(crc) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a record's data fails its checksum",
        ));
    }
    Ok(Some(data))
}

/// One scalar of an event.
#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub tag: String,
    pub value: f32,
}

/// One event: scalars at a step, or the file version.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Event {
    pub wall_time: f64,
    pub step: i64,
    pub file_version: Option<String>,
    pub scalars: Vec<Scalar>,
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A length-delimited field (wire type 2).
fn put_bytes(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    put_varint(out, u64::from(field << 3 | 2));
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

impl Event {
    /// The event as a `tensorflow.Event` message: wall_time = 1 (double), step = 2 (int64),
    /// file_version = 3 (string), summary = 5 (`Summary`: value = 1, each `Value`: tag = 1,
    /// simple_value = 2 (float)).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + 48 * self.scalars.len());
        out.push(1 << 3 | 1);
        out.extend_from_slice(&self.wall_time.to_le_bytes());
        if self.step != 0 {
            out.push(2 << 3);
            put_varint(&mut out, self.step as u64);
        }
        if let Some(version) = &self.file_version {
            put_bytes(&mut out, 3, version.as_bytes());
        }
        if !self.scalars.is_empty() {
            let mut summary = Vec::new();
            for scalar in &self.scalars {
                let mut value = Vec::with_capacity(scalar.tag.len() + 8);
                put_bytes(&mut value, 1, scalar.tag.as_bytes());
                value.push(2 << 3 | 5);
                value.extend_from_slice(&scalar.value.to_le_bytes());
                put_bytes(&mut summary, 1, &value);
            }
            put_bytes(&mut out, 5, &summary);
        }
        out
    }

    /// Decodes what `encode` writes (other fields are skipped).
    ///
    /// # Errors
    /// Bytes that are not such a message.
    pub fn decode(bytes: &[u8]) -> io::Result<Event> {
        let mut event = Event::default();
        for field in Fields::new(bytes) {
            match field? {
                (1, FieldValue::Fixed64(bits)) => event.wall_time = f64::from_bits(bits),
                (2, FieldValue::Varint(step)) => event.step = step as i64,
                (3, FieldValue::Bytes(text)) => event.file_version = Some(utf8(text)?),
                (5, FieldValue::Bytes(summary)) => {
                    for value in Fields::new(summary) {
                        if let (1, FieldValue::Bytes(value)) = value? {
                            event.scalars.push(decode_scalar(value)?);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(event)
    }
}

fn decode_scalar(bytes: &[u8]) -> io::Result<Scalar> {
    let mut scalar = Scalar {
        tag: String::new(),
        value: f32::NAN,
    };
    for field in Fields::new(bytes) {
        match field? {
            (1, FieldValue::Bytes(tag)) => scalar.tag = utf8(tag)?,
            (2, FieldValue::Fixed32(bits)) => scalar.value = f32::from_bits(bits),
            _ => {}
        }
    }
    Ok(scalar)
}

fn utf8(bytes: &[u8]) -> io::Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

enum FieldValue<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
}

/// The fields of one protocol-buffer message, in order.
struct Fields<'a> {
    bytes: &'a [u8],
}

impl<'a> Fields<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Fields { bytes }
    }

    fn varint(&mut self) -> io::Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.bytes.split_first().ok_or_else(truncated)?;
            self.bytes = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(truncated())
    }

    fn take(&mut self, count: usize) -> io::Result<&'a [u8]> {
        if self.bytes.len() < count {
            return Err(truncated());
        }
        let (taken, rest) = self.bytes.split_at(count);
        self.bytes = rest;
        Ok(taken)
    }

    fn field(&mut self) -> io::Result<(u64, FieldValue<'a>)> {
        let key = self.varint()?;
        let value = match key & 7 {
            0 => FieldValue::Varint(self.varint()?),
            1 => FieldValue::Fixed64(u64::from_le_bytes(self.take(8)?.try_into().expect("8"))),
            2 => {
                let length = usize::try_from(self.varint()?).map_err(|_| truncated())?;
                FieldValue::Bytes(self.take(length)?)
            }
            5 => FieldValue::Fixed32(u32::from_le_bytes(self.take(4)?.try_into().expect("4"))),
            wire => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("unsupported protobuf wire type {wire}"),
                ));
            }
        };
        Ok((key >> 3, value))
    }
}

fn truncated() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "a truncated protobuf message")
}

impl<'a> Iterator for Fields<'a> {
    type Item = io::Result<(u64, FieldValue<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.bytes.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.bytes = &[];
        }
        Some(field)
    }
}

/// Every event of an event file, in order.
///
/// # Errors
/// The file cannot be read, a record fails its checksum, or an event does not decode.
pub fn read_events(input: &mut impl Read) -> io::Result<Vec<Event>> {
    let mut events = Vec::new();
    while let Some(data) = read_record(input)? {
        events.push(Event::decode(&data)?);
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_the_published_check_value() {
        // CRC-32C (Castagnoli) of "123456789" is 0xE3069283 (RFC 3720 test vector).
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn the_file_version_event_has_tensorflows_bytes() {
        // The first record of every TensorBoard event file written at wall time 0 is this
        // message: field 1 (fixed64) = 0.0, field 3 (string) = "brain.Event:2".
        let event = Event {
            file_version: Some(FILE_VERSION.into()),
            ..Event::default()
        };
        let mut expected = vec![0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0x1a, 13];
        expected.extend_from_slice(b"brain.Event:2");
        assert_eq!(event.encode(), expected);
    }

    #[test]
    fn events_round_trip_through_records() {
        let events = vec![
            Event {
                wall_time: 1.7e9,
                file_version: Some(FILE_VERSION.into()),
                ..Event::default()
            },
            Event {
                wall_time: 1.7e9 + 0.5,
                step: 300,
                file_version: None,
                scalars: vec![
                    Scalar {
                        tag: "learn/loss".into(),
                        value: 0.125,
                    },
                    Scalar {
                        tag: "selfplay/games_per_hour".into(),
                        value: 4321.5,
                    },
                ],
            },
        ];
        let mut bytes = Vec::new();
        for event in &events {
            write_record(&mut bytes, &event.encode()).unwrap();
        }
        assert_eq!(read_events(&mut bytes.as_slice()).unwrap(), events);
        // A flipped bit anywhere is caught by a checksum.
        for position in [3, 10, 20, bytes.len() - 2] {
            let mut damaged = bytes.clone();
            damaged[position] ^= 0x10;
            assert!(
                read_events(&mut damaged.as_slice()).is_err(),
                "byte {position}"
            );
        }
        // A truncated file too.
        assert!(read_events(&mut &bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn a_varint_step_uses_seven_bits_a_byte() {
        let event = Event {
            step: 300,
            ..Event::default()
        };
        // 300 = 0b10_0101100: 0xAC 0x02.
        assert_eq!(&event.encode()[9..], &[0x10, 0xac, 0x02]);
    }
}
