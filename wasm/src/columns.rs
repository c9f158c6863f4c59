//! Key columns as the host lays them out in linear memory, and the total
//! order Paimon uses for primary keys (nulls first, strings and binaries as
//! unsigned bytes, floating point like `Double.compare`).

use std::cmp::Ordering;

/// Words per column descriptor written by the host (`src/kernel/wasm.ts`).
pub const DESCRIPTOR_WORDS: usize = 8;

pub const TYPE_BOOL: u32 = 1;
pub const TYPE_I8: u32 = 2;
pub const TYPE_I16: u32 = 3;
pub const TYPE_I32: u32 = 4;
pub const TYPE_I64: u32 = 5;
pub const TYPE_F32: u32 = 6;
pub const TYPE_F64: u32 = 7;
pub const TYPE_BYTES: u32 = 8;
pub const TYPE_TIMESTAMP_MICROS: u32 = 9;
pub const TYPE_TIMESTAMP_NANOS: u32 = 10;
pub const TYPE_DECIMAL128: u32 = 11;

/// The values of one column; integers that share an order share a variant.
pub enum Values<'a> {
    Bool(&'a [u8]),
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Bytes { offsets: &'a [i32], data: &'a [u8] },
    TimestampMicros(&'a [i64]),
    TimestampNanos(&'a [i64]),
    Decimal128(&'a [i128]),
}

pub struct Column<'a> {
    pub values: Values<'a>,
    validity: Option<&'a [u8]>,
    validity_offset: usize,
}

unsafe fn slice<'a, T>(ptr: u32, len: usize) -> &'a [T] {
    if len == 0 {
        return &[];
    }
    std::slice::from_raw_parts(ptr as usize as *const T, len)
}

impl<'a> Column<'a> {
    /// A column over slices the caller owns (the component's entry point; the
    /// C ABI reads descriptors instead). `validity` covers `validity_offset + rows` bits.
    pub fn new(values: Values<'a>, validity: Option<&'a [u8]>, validity_offset: usize) -> Column<'a> {
        Column { values, validity, validity_offset }
    }

    /// Reads one descriptor. Safety: the host guarantees the pointers cover `len` rows.
    pub unsafe fn from_descriptor(d: &[u32]) -> Column<'a> {
        let len = d[1] as usize;
        let values = match d[0] {
            TYPE_BOOL => Values::Bool(slice(d[2], len)),
            TYPE_I8 => Values::I8(slice(d[2], len)),
            TYPE_I16 => Values::I16(slice(d[2], len)),
            TYPE_I32 => Values::I32(slice(d[2], len)),
            TYPE_I64 => Values::I64(slice(d[2], len)),
            TYPE_F32 => Values::F32(slice(d[2], len)),
            TYPE_F64 => Values::F64(slice(d[2], len)),
            TYPE_BYTES => {
                let offsets: &[i32] = slice(d[2], len + 1);
                let bytes = (offsets[len] - offsets[0]) as usize;
                Values::Bytes { offsets, data: slice(d[3], bytes) }
            }
            TYPE_TIMESTAMP_MICROS => Values::TimestampMicros(slice(d[2], len)),
            TYPE_TIMESTAMP_NANOS => Values::TimestampNanos(slice(d[2], len)),
            TYPE_DECIMAL128 => Values::Decimal128(slice(d[2], len)),
            other => panic!("unknown column type {}", other),
        };
        let validity_offset = d[5] as usize;
        let validity = if d[4] == 0 { None } else { Some(slice(d[4], (validity_offset + len + 7) / 8)) };
        Column { values, validity, validity_offset }
    }

    #[inline]
    pub fn nullable(&self) -> bool {
        self.validity.is_some()
    }

    #[inline]
    pub fn is_null(&self, row: usize) -> bool {
        match self.validity {
            None => false,
            Some(bits) => {
                let bit = self.validity_offset + row;
                bits[bit >> 3] & (1 << (bit & 7)) == 0
            }
        }
    }

    /// The bytes of a BYTES value; offsets are relative to the first offset.
    #[inline]
    pub fn bytes(&self, row: usize) -> &'a [u8] {
        match self.values {
            Values::Bytes { offsets, data } => {
                let base = offsets[0];
                &data[(offsets[row] - base) as usize..(offsets[row + 1] - base) as usize]
            }
            _ => &[],
        }
    }
}

/// Reads `count` descriptors starting at `ptr`.
pub unsafe fn read_columns<'a>(ptr: u32, count: usize) -> Vec<Column<'a>> {
    let words: &[u32] = slice(ptr, count * DESCRIPTOR_WORDS);
    words.chunks(DESCRIPTOR_WORDS).map(|d| Column::from_descriptor(d)).collect()
}

#[inline]
fn order_f64(v: f64) -> u64 {
    // Double.compare: NaNs collapse to one value above +inf, -0.0 < 0.0.
    let bits = if v.is_nan() { 0x7ff8_0000_0000_0000u64 } else { v.to_bits() };
    if bits >> 63 == 1 { !bits } else { bits | (1 << 63) }
}

#[inline]
fn order_f32(v: f32) -> u32 {
    let bits = if v.is_nan() { 0x7fc0_0000u32 } else { v.to_bits() };
    if bits >> 31 == 1 { !bits } else { bits | (1 << 31) }
}

/// First eight bytes, big-endian, zero padded: orders like the bytes themselves
/// except for ties, which a full comparison settles.
#[inline]
fn prefix_word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = b.len().min(8);
    w[..n].copy_from_slice(&b[..n]);
    u64::from_be_bytes(w)
}

/// Length of the prefix shared by every non-null value of a BYTES column.
fn common_prefix(col: &Column, rows: usize) -> usize {
    let first = match (0..rows).find(|&r| !col.is_null(r)) {
        Some(r) => col.bytes(r),
        None => return 0,
    };
    let mut len = first.len();
    for r in 0..rows {
        if len == 0 {
            break;
        }
        if col.is_null(r) {
            continue;
        }
        let b = col.bytes(r);
        len = len.min(b.len());
        len = first[..len].iter().zip(b).take_while(|(x, y)| x == y).count();
    }
    len
}

/// What a normalized word stands for, to settle ties the words cannot.
#[derive(Clone, Copy)]
enum WordKind {
    /// The word is exact: equal words mean equal values.
    Exact,
    /// The word is the prefix of a BYTES column `c`; equal words need a full compare.
    BytesPrefix(usize),
}

/// Primary-key order over rows as fixed-width `u64` words (`width` per row),
/// with the byte columns kept for tie-breaking. Building it once turns every
/// comparison into word compares, which is what makes sort and merge fast.
pub struct NormalizedKeys<'a> {
    pub width: usize,
    pub words: Vec<u64>,
    kinds: Vec<WordKind>,
    columns: &'a [Column<'a>],
    /// Whether some word needs a full compare on ties.
    has_bytes: bool,
}

impl<'a> NormalizedKeys<'a> {
    pub fn build(columns: &'a [Column<'a>], rows: usize) -> NormalizedKeys<'a> {
        let mut kinds = Vec::new();
        for (c, col) in columns.iter().enumerate() {
            let wide = matches!(
                col.values,
                Values::I64(_) | Values::F64(_) | Values::TimestampMicros(_) | Values::TimestampNanos(_) | Values::Bytes { .. }
            );
            if col.nullable() && wide {
                kinds.push(WordKind::Exact); // null flag word
            }
            match col.values {
                Values::Decimal128(_) => {
                    if col.nullable() {
                        kinds.push(WordKind::Exact);
                    }
                    kinds.push(WordKind::Exact);
                    kinds.push(WordKind::Exact);
                }
                Values::Bytes { .. } => kinds.push(WordKind::BytesPrefix(c)),
                _ => kinds.push(WordKind::Exact),
            }
        }
        let width = kinds.len();
        let mut words = vec![0u64; width * rows];
        let mut w = 0;
        for col in columns.iter() {
            let nullable = col.nullable();
            // Narrow values carry their null flag in bit 32 of the same word.
            macro_rules! narrow {
                ($vals:expr, $f:expr) => {{
                    for r in 0..rows {
                        words[r * width + w] = if col.is_null(r) { 0 } else { (1u64 << 32) | ($f)($vals[r]) as u64 };
                    }
                    w += 1;
                }};
            }
            macro_rules! wide {
                ($f:expr) => {{
                    if nullable {
                        for r in 0..rows {
                            words[r * width + w] = !col.is_null(r) as u64;
                        }
                        w += 1;
                    }
                    for r in 0..rows {
                        words[r * width + w] = if col.is_null(r) { 0 } else { ($f)(r) };
                    }
                    w += 1;
                }};
            }
            match col.values {
                Values::Bool(v) => narrow!(v, |x: u8| (x != 0) as u32),
                Values::I8(v) => narrow!(v, |x: i8| (x as i32 as u32) ^ 0x8000_0000),
                Values::I16(v) => narrow!(v, |x: i16| (x as i32 as u32) ^ 0x8000_0000),
                Values::I32(v) => narrow!(v, |x: i32| (x as u32) ^ 0x8000_0000),
                Values::F32(v) => narrow!(v, order_f32),
                Values::I64(v) | Values::TimestampMicros(v) | Values::TimestampNanos(v) => {
                    wide!(|r: usize| (v[r] as u64) ^ (1 << 63))
                }
                Values::F64(v) => wide!(|r: usize| order_f64(v[r])),
                Values::Bytes { .. } => {
                    // Values sharing a prefix order by what follows it: skip it so the
                    // word discriminates (keys like "user-000123" share a long prefix).
                    let skip = common_prefix(col, rows);
                    wide!(|r: usize| prefix_word(&col.bytes(r)[skip..]))
                }
                Values::Decimal128(v) => {
                    if nullable {
                        for r in 0..rows {
                            words[r * width + w] = !col.is_null(r) as u64;
                        }
                        w += 1;
                    }
                    for r in 0..rows {
                        let (hi, lo) = if col.is_null(r) {
                            (0, 0)
                        } else {
                            let x = v[r];
                            (((x >> 64) as u64) ^ (1 << 63), x as u64)
                        };
                        words[r * width + w] = hi;
                        words[r * width + w + 1] = lo;
                    }
                    w += 2;
                }
            }
        }
        debug_assert_eq!(w, width);
        let has_bytes = kinds.iter().any(|k| matches!(k, WordKind::BytesPrefix(_)));
        NormalizedKeys { width, words, kinds, columns, has_bytes }
    }

    /// The key's only column when it is a BYTES column.
    #[inline]
    pub fn single_bytes_column(&self) -> Option<&Column<'a>> {
        match self.columns {
            [col] if matches!(col.values, Values::Bytes { .. }) => Some(col),
            _ => None,
        }
    }

    /// Whether equal first words mean equal first key columns (no tie-break needed there).
    #[inline]
    pub fn first_word_exact(&self) -> bool {
        matches!(self.kinds.first(), Some(WordKind::Exact))
    }

    /// Whether some column is BYTES (words alone cannot settle every tie).
    #[inline]
    pub fn has_bytes(&self) -> bool {
        self.has_bytes
    }

    #[inline]
    pub fn first_word(&self, row: usize) -> u64 {
        self.words[row * self.width]
    }

    /// Compares the keys of rows `a` and `b`, starting at word `from`.
    #[inline]
    pub fn compare_from(&self, a: usize, b: usize, from: usize) -> Ordering {
        let wa = &self.words[a * self.width..(a + 1) * self.width];
        let wb = &self.words[b * self.width..(b + 1) * self.width];
        for i in from..self.width {
            match wa[i].cmp(&wb[i]) {
                Ordering::Equal => {
                    if self.has_bytes {
                        if let WordKind::BytesPrefix(c) = self.kinds[i] {
                            let col = &self.columns[c];
                            if col.is_null(a) {
                                continue; // equal null flags: both null
                            }
                            let o = col.bytes(a).cmp(col.bytes(b));
                            if o != Ordering::Equal {
                                return o;
                            }
                        }
                    }
                }
                o => return o,
            }
        }
        Ordering::Equal
    }

    #[inline]
    pub fn compare(&self, a: usize, b: usize) -> Ordering {
        self.compare_from(a, b, 0)
    }
}
