//! Roaring bitmaps for deletion vectors and offset sets.
//!
//! [`Bitmap32`] is a 32-bit Roaring bitmap: values are split into a 16-bit key
//! (high bits) and a container holding the 16-bit low halves. Containers come in
//! three kinds, with the same transitions as CRoaring / Java RoaringBitmap so that
//! the portable serialization is byte-identical to theirs after `run_optimize`:
//!
//! * array: sorted `u16`s, at most 4096 of them;
//! * bitmap: 1024 `u64` words, only for more than 4096 values;
//! * run: sorted, non-overlapping inclusive ranges (created by ranges and `run_optimize`).
//!
//! [`Bitmap64`] maps the high 32 bits of a `u64` to a [`Bitmap32`] of the low bits,
//! like Java `Roaring64NavigableMap`, and writes the 64-bit portable layout
//! (u64 LE bucket count, then per bucket u32 LE key + 32-bit portable bitmap).
//!
//! Nothing here panics on malformed serialized input: deserialization returns `Err`.

use std::collections::BTreeMap;

/// Largest cardinality of an array container.
pub const ARRAY_MAX: usize = 4096;
const WORDS: usize = 1024;
const COOKIE_NO_RUNS: u32 = 12346;
const COOKIE_RUNS: u32 = 12347;
const NO_OFFSET_THRESHOLD: usize = 4;
const BITMAP_BYTES: usize = 8192;

/// An inclusive range of low halves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Run {
    pub start: u16,
    pub last: u16,
}

impl Run {
    #[inline]
    fn card(&self) -> u32 {
        self.last as u32 - self.start as u32 + 1
    }
}

pub type Words = Box<[u64; WORDS]>;

fn new_words() -> Words {
    // A boxed slice of exactly WORDS elements always converts.
    match vec![0u64; WORDS].into_boxed_slice().try_into() {
        Ok(w) => w,
        Err(_) => unreachable!(),
    }
}

/// How `run_optimize` breaks the tie between an array container and a run
/// container of the same serialized size. Java RoaringBitmap (which Paimon uses)
/// keeps the array when `2·card == 2 + 4·runs`; CRoaring converts to runs when
/// `2·card + 2 > 2 + 4·runs`. All other decisions are identical.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TieRule {
    Java,
    CRoaring,
}

#[derive(Clone, Debug)]
pub enum Container {
    Array(Vec<u16>),
    /// Words and cardinality (always > 4096).
    Bitmap(Words, u32),
    Run(Vec<Run>),
}

// ---------------------------------------------------------------------------
// Word helpers

#[inline]
fn set_bit(w: &mut [u64; WORDS], x: u16) -> bool {
    let (k, b) = ((x >> 6) as usize, x & 63);
    let old = w[k];
    w[k] = old | (1u64 << b);
    old != w[k]
}

#[inline]
fn get_bit(w: &[u64; WORDS], x: u16) -> bool {
    (w[(x >> 6) as usize] >> (x & 63)) & 1 == 1
}

fn popcount(w: &[u64; WORDS]) -> u32 {
    w.iter().map(|x| x.count_ones()).sum()
}

/// Mask of bits `lo..=hi` (0..63) within one word.
#[inline]
fn word_mask(lo: u32, hi: u32) -> u64 {
    let upper = if hi == 63 { !0u64 } else { (1u64 << (hi + 1)) - 1 };
    upper & !((1u64 << lo) - 1)
}

/// Applies `f(word_index, mask)` to the words covering `lo..=hi`.
#[inline]
fn for_range_words<F: FnMut(usize, u64)>(lo: u16, hi: u16, mut f: F) {
    let (lo, hi) = (lo as u32, hi as u32);
    let (kl, kh) = ((lo >> 6) as usize, (hi >> 6) as usize);
    if kl == kh {
        f(kl, word_mask(lo & 63, hi & 63));
        return;
    }
    f(kl, word_mask(lo & 63, 63));
    for k in kl + 1..kh {
        f(k, !0u64);
    }
    f(kh, word_mask(0, hi & 63));
}

fn set_range(w: &mut [u64; WORDS], lo: u16, hi: u16) {
    for_range_words(lo, hi, |k, m| w[k] |= m);
}

fn clear_range(w: &mut [u64; WORDS], lo: u16, hi: u16) {
    for_range_words(lo, hi, |k, m| w[k] &= !m);
}

fn count_range(w: &[u64; WORDS], lo: u16, hi: u16) -> u32 {
    let mut n = 0;
    for_range_words(lo, hi, |k, m| n += (w[k] & m).count_ones());
    n
}

fn words_from_array(a: &[u16]) -> Words {
    let mut w = new_words();
    for &x in a {
        w[(x >> 6) as usize] |= 1u64 << (x & 63);
    }
    w
}

fn words_from_runs(runs: &[Run]) -> Words {
    let mut w = new_words();
    for r in runs {
        set_range(&mut w, r.start, r.last);
    }
    w
}

fn array_from_words(w: &[u64; WORDS], card: usize) -> Vec<u16> {
    let mut out = Vec::with_capacity(card);
    for (k, &word) in w.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            out.push((k * 64 + x.trailing_zeros() as usize) as u16);
            x &= x - 1;
        }
    }
    out
}

/// Array (≤ 4096 values) or bitmap, by cardinality.
fn canonical_from_words(w: Words) -> Container {
    let card = popcount(&w);
    if card as usize <= ARRAY_MAX {
        Container::Array(array_from_words(&w, card as usize))
    } else {
        Container::Bitmap(w, card)
    }
}

fn count_runs_words(w: &[u64; WORDS]) -> usize {
    let mut n = 0usize;
    let mut carry = 0u64;
    for &x in w.iter() {
        n += (x & !((x << 1) | carry)).count_ones() as usize;
        carry = x >> 63;
    }
    n
}

fn runs_from_words(w: &[u64; WORDS]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut i = 0usize;
    let mut cur = w[0];
    loop {
        while cur == 0 {
            i += 1;
            if i == WORDS {
                return runs;
            }
            cur = w[i];
        }
        let start = i * 64 + cur.trailing_zeros() as usize;
        cur |= cur - 1;
        while cur == !0u64 {
            i += 1;
            if i == WORDS {
                runs.push(Run { start: start as u16, last: 0xFFFF });
                return runs;
            }
            cur = w[i];
        }
        let end = i * 64 + (!cur).trailing_zeros() as usize;
        runs.push(Run { start: start as u16, last: (end - 1) as u16 });
        cur &= cur.wrapping_add(1);
    }
}

fn count_runs_array(a: &[u16]) -> usize {
    if a.is_empty() {
        return 0;
    }
    1 + a.windows(2).filter(|p| p[1] as u32 != p[0] as u32 + 1).count()
}

fn runs_from_sorted(a: &[u16]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for &x in a {
        match runs.last_mut() {
            Some(r) if r.last as u32 + 1 >= x as u32 => {
                if x > r.last {
                    r.last = x;
                }
            }
            _ => runs.push(Run { start: x, last: x }),
        }
    }
    runs
}

fn runs_card(runs: &[Run]) -> u32 {
    runs.iter().map(|r| r.card()).sum()
}

fn run_contains(runs: &[Run], x: u16) -> bool {
    let i = runs.partition_point(|r| r.start <= x);
    i > 0 && runs[i - 1].last >= x
}

fn run_add(runs: &mut Vec<Run>, x: u16) -> bool {
    let i = runs.partition_point(|r| r.start <= x);
    if i > 0 {
        let r = runs[i - 1];
        if r.last >= x {
            return false;
        }
        if r.last as u32 + 1 == x as u32 {
            runs[i - 1].last = x;
            if i < runs.len() && runs[i].start as u32 == x as u32 + 1 {
                runs[i - 1].last = runs[i].last;
                runs.remove(i);
            }
            return true;
        }
    }
    if i < runs.len() && runs[i].start as u32 == x as u32 + 1 {
        runs[i].start = x;
        return true;
    }
    runs.insert(i, Run { start: x, last: x });
    true
}

fn run_remove(runs: &mut Vec<Run>, x: u16) -> bool {
    let i = runs.partition_point(|r| r.start <= x);
    if i == 0 {
        return false;
    }
    let r = runs[i - 1];
    if r.last < x {
        return false;
    }
    if r.start == r.last {
        runs.remove(i - 1);
    } else if x == r.start {
        runs[i - 1].start = x + 1;
    } else if x == r.last {
        runs[i - 1].last = x - 1;
    } else {
        runs[i - 1].last = x - 1;
        runs.insert(i, Run { start: x + 1, last: r.last });
    }
    true
}

/// Union of two run lists (each sorted by start); adjacent runs merge.
fn runs_union(a: &[Run], b: &[Run]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = if j >= b.len() || (i < a.len() && a[i].start <= b[j].start) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        match out.last_mut() {
            Some(r) if r.last as u32 + 1 >= next.start as u32 => {
                if next.last > r.last {
                    r.last = next.last;
                }
            }
            _ => out.push(next),
        }
    }
    out
}

fn runs_and_not(a: &[Run], b: &[Run]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut j = 0;
    for r in a {
        let mut s = r.start as u32;
        let e = r.last as u32;
        while j < b.len() && (b[j].last as u32) < s {
            j += 1;
        }
        let mut k = j;
        while s <= e {
            if k >= b.len() || b[k].start as u32 > e {
                out.push(Run { start: s as u16, last: e as u16 });
                break;
            }
            let (bs, be) = (b[k].start as u32, b[k].last as u32);
            if bs > s {
                out.push(Run { start: s as u16, last: (bs - 1).min(e) as u16 });
            }
            if be + 1 > s {
                s = be + 1;
            }
            k += 1;
        }
    }
    out
}

fn runs_and(a: &[Run], b: &[Run]) -> Vec<Run> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let s = a[i].start.max(b[j].start);
        let e = a[i].last.min(b[j].last);
        if s <= e {
            out.push(Run { start: s, last: e });
        }
        if a[i].last < b[j].last {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[inline]
fn run_size(runs: usize) -> usize {
    2 + 4 * runs
}

#[inline]
fn array_size_with_count(card: usize) -> usize {
    2 * card + 2
}

/// CRoaring `convert_run_to_efficient_container` / Java `toEfficientContainer`.
fn run_to_efficient(runs: Vec<Run>) -> Container {
    let card = runs_card(&runs) as usize;
    if run_size(runs.len()) <= BITMAP_BYTES.min(array_size_with_count(card)) {
        return Container::Run(runs);
    }
    if card <= ARRAY_MAX {
        let mut a = Vec::with_capacity(card);
        for r in &runs {
            a.extend(r.start..=r.last);
        }
        Container::Array(a)
    } else {
        Container::Bitmap(words_from_runs(&runs), card as u32)
    }
}

fn merge_sorted(a: &[u16], b: &[u16]) -> Vec<u16> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x < y {
            out.push(x);
            i += 1;
        } else if y < x {
            out.push(y);
            j += 1;
        } else {
            out.push(x);
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

fn full_run() -> Container {
    Container::Run(vec![Run { start: 0, last: 0xFFFF }])
}

/// Container from sorted (non-decreasing, duplicates allowed) low halves.
fn container_from_sorted(lows: &[u16]) -> Container {
    let mut a: Vec<u16> = Vec::with_capacity(lows.len().min(ARRAY_MAX));
    let mut w: Option<Words> = None;
    let mut card = 0u32;
    for &x in lows {
        if let Some(words) = w.as_mut() {
            card += set_bit(words, x) as u32;
        } else if a.last() != Some(&x) {
            if a.len() == ARRAY_MAX {
                let mut words = words_from_array(&a);
                set_bit(&mut words, x);
                card = ARRAY_MAX as u32 + 1;
                w = Some(words);
            } else {
                a.push(x);
            }
        }
    }
    match w {
        Some(words) => Container::Bitmap(words, card),
        None => Container::Array(a),
    }
}

impl Container {
    pub fn card(&self) -> u32 {
        match self {
            Container::Array(a) => a.len() as u32,
            Container::Bitmap(_, c) => *c,
            Container::Run(r) => runs_card(r),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Container::Array(a) => a.is_empty(),
            Container::Bitmap(_, c) => *c == 0,
            Container::Run(r) => r.is_empty(),
        }
    }

    fn is_full(&self) -> bool {
        match self {
            Container::Run(r) => r.len() == 1 && r[0].start == 0 && r[0].last == 0xFFFF,
            Container::Bitmap(_, c) => *c == 65536,
            Container::Array(_) => false,
        }
    }

    #[inline]
    pub fn contains(&self, x: u16) -> bool {
        match self {
            Container::Array(a) => a.binary_search(&x).is_ok(),
            Container::Bitmap(w, _) => get_bit(w, x),
            Container::Run(r) => run_contains(r, x),
        }
    }

    fn to_words(&self) -> Words {
        match self {
            Container::Array(a) => words_from_array(a),
            Container::Bitmap(w, _) => w.clone(),
            Container::Run(r) => words_from_runs(r),
        }
    }

    fn to_runs(&self) -> Vec<Run> {
        match self {
            Container::Array(a) => runs_from_sorted(a),
            Container::Bitmap(w, _) => runs_from_words(w),
            Container::Run(r) => r.clone(),
        }
    }

    fn max(&self) -> Option<u16> {
        match self {
            Container::Array(a) => a.last().copied(),
            Container::Bitmap(w, _) => {
                w.iter().enumerate().rev().find(|(_, &x)| x != 0).map(|(k, &x)| (k * 64 + 63 - x.leading_zeros() as usize) as u16)
            }
            Container::Run(r) => r.last().map(|r| r.last),
        }
    }

    fn min(&self) -> Option<u16> {
        match self {
            Container::Array(a) => a.first().copied(),
            Container::Bitmap(w, _) => {
                w.iter().enumerate().find(|(_, &x)| x != 0).map(|(k, &x)| (k * 64 + x.trailing_zeros() as usize) as u16)
            }
            Container::Run(r) => r.first().map(|r| r.start),
        }
    }

    pub fn add(&mut self, x: u16) -> bool {
        let promoted = match self {
            Container::Array(a) => match a.binary_search(&x) {
                Ok(_) => return false,
                Err(i) => {
                    if a.len() < ARRAY_MAX {
                        a.insert(i, x);
                        return true;
                    }
                    let mut w = words_from_array(a);
                    set_bit(&mut w, x);
                    w
                }
            },
            Container::Bitmap(w, card) => {
                let added = set_bit(w, x);
                *card += added as u32;
                return added;
            }
            Container::Run(r) => return run_add(r, x),
        };
        *self = Container::Bitmap(promoted, ARRAY_MAX as u32 + 1);
        true
    }

    pub fn remove(&mut self, x: u16) -> bool {
        let demoted = match self {
            Container::Array(a) => match a.binary_search(&x) {
                Ok(i) => {
                    a.remove(i);
                    return true;
                }
                Err(_) => return false,
            },
            Container::Bitmap(w, card) => {
                if !get_bit(w, x) {
                    return false;
                }
                w[(x >> 6) as usize] &= !(1u64 << (x & 63));
                *card -= 1;
                if *card as usize > ARRAY_MAX {
                    return true;
                }
                array_from_words(w, *card as usize)
            }
            Container::Run(r) => return run_remove(r, x),
        };
        *self = Container::Array(demoted);
        true
    }

    /// Adds sorted (non-decreasing) low halves.
    fn add_sorted(&mut self, lows: &[u16]) {
        if lows.len() <= 2 {
            for &x in lows {
                self.add(x);
            }
            return;
        }
        let replacement = match self {
            Container::Array(a) => {
                let lows = container_from_sorted(lows);
                match lows {
                    Container::Array(b) => {
                        let merged = merge_sorted(a, &b);
                        if merged.len() <= ARRAY_MAX {
                            Container::Array(merged)
                        } else {
                            let card = merged.len() as u32;
                            Container::Bitmap(words_from_array(&merged), card)
                        }
                    }
                    Container::Bitmap(mut w, _) => {
                        for &x in a.iter() {
                            set_bit(&mut w, x);
                        }
                        let card = popcount(&w);
                        Container::Bitmap(w, card)
                    }
                    Container::Run(_) => unreachable!(),
                }
            }
            Container::Bitmap(w, card) => {
                for &x in lows {
                    *card += set_bit(w, x) as u32;
                }
                return;
            }
            Container::Run(r) => Container::Run(runs_union(r, &runs_from_sorted(lows))),
        };
        *self = replacement;
    }

    /// CRoaring `container_add_range` (inclusive bounds).
    fn add_range(&mut self, lo: u16, hi: u16) {
        let span = hi as u32 - lo as u32 + 1;
        let replacement = match self {
            Container::Bitmap(w, card) => {
                let union = *card + span - count_range(w, lo, hi);
                if union == 65536 {
                    full_run()
                } else {
                    set_range(w, lo, hi);
                    *card = union;
                    return;
                }
            }
            Container::Array(a) => {
                let less = a.partition_point(|&v| v < lo);
                let upto = a.partition_point(|&v| v <= hi);
                let greater = a.len() - upto;
                let union = less as u32 + span + greater as u32;
                if union == 65536 {
                    full_run()
                } else if union as usize <= ARRAY_MAX {
                    a.splice(less..upto, lo..=hi);
                    return;
                } else {
                    let mut w = words_from_array(a);
                    set_range(&mut w, lo, hi);
                    Container::Bitmap(w, union)
                }
            }
            Container::Run(r) => {
                let merged = runs_union(r, &[Run { start: lo, last: hi }]);
                if merged.len() * 4 <= BITMAP_BYTES {
                    Container::Run(merged)
                } else {
                    canonical_from_words(words_from_runs(&merged))
                }
            }
        };
        *self = replacement;
    }

    /// Number of runs if the container were a run container.
    fn count_runs(&self) -> usize {
        match self {
            Container::Array(a) => count_runs_array(a),
            Container::Bitmap(w, _) => count_runs_words(w),
            Container::Run(r) => r.len(),
        }
    }

    fn run_optimize(&mut self, rule: TieRule) {
        let replacement = match self {
            Container::Array(a) => {
                let runs = count_runs_array(a);
                let array_bytes = match rule {
                    TieRule::Java => 2 * a.len(),
                    TieRule::CRoaring => array_size_with_count(a.len()),
                };
                if array_bytes > run_size(runs) {
                    Container::Run(runs_from_sorted(a))
                } else {
                    return;
                }
            }
            Container::Bitmap(w, _) => {
                if BITMAP_BYTES > run_size(count_runs_words(w)) {
                    Container::Run(runs_from_words(w))
                } else {
                    return;
                }
            }
            Container::Run(r) => run_to_efficient(std::mem::take(r)),
        };
        *self = replacement;
    }

    /// Serialized payload size in the portable format.
    fn data_size(&self) -> usize {
        match self {
            Container::Array(a) => 2 * a.len(),
            Container::Bitmap(..) => BITMAP_BYTES,
            Container::Run(r) => run_size(r.len()),
        }
    }

    /// Writes values `>= from` (low halves) as `high | low` into `out`; returns the count.
    fn fill(&self, from: u16, high: u32, out: &mut [u32]) -> usize {
        let mut n = 0;
        match self {
            Container::Array(a) => {
                let start = a.partition_point(|&v| v < from);
                for (o, &v) in out.iter_mut().zip(a[start..].iter()) {
                    *o = high | v as u32;
                    n += 1;
                }
            }
            Container::Bitmap(w, _) => {
                let mut k = (from >> 6) as usize;
                let mut x = w[k] & (!0u64 << (from & 63));
                loop {
                    let base = high | (k * 64) as u32;
                    if out.len() - n >= 64 {
                        while x != 0 {
                            out[n] = base | x.trailing_zeros();
                            n += 1;
                            x &= x - 1;
                        }
                    } else {
                        while x != 0 {
                            if n == out.len() {
                                return n;
                            }
                            out[n] = base | x.trailing_zeros();
                            n += 1;
                            x &= x - 1;
                        }
                    }
                    k += 1;
                    if k == WORDS {
                        break;
                    }
                    x = w[k];
                }
            }
            Container::Run(runs) => {
                let mut i = runs.partition_point(|r| r.last < from);
                while i < runs.len() && n < out.len() {
                    let s = runs[i].start.max(from) as u32;
                    let e = runs[i].last as u32;
                    let take = ((e - s + 1) as usize).min(out.len() - n);
                    for (t, o) in out[n..n + take].iter_mut().enumerate() {
                        *o = high | (s + t as u32);
                    }
                    n += take;
                    i += 1;
                }
            }
        }
        n
    }
}

/// CRoaring `container_or` kinds: a full run wins; a bitmap operand makes a bitmap;
/// two non-run operands give an array or bitmap by cardinality; otherwise the
/// runs are merged and converted to the most efficient kind.
fn container_or(a: Container, b: &Container) -> Container {
    if a.is_full() && matches!(a, Container::Run(_)) {
        return a;
    }
    if b.is_full() && matches!(b, Container::Run(_)) {
        return b.clone();
    }
    match (a, b) {
        (Container::Bitmap(mut w, _), other) => {
            match other {
                Container::Bitmap(v, _) => {
                    for (x, y) in w.iter_mut().zip(v.iter()) {
                        *x |= *y;
                    }
                }
                Container::Array(v) => {
                    for &x in v {
                        set_bit(&mut w, x);
                    }
                }
                Container::Run(r) => {
                    for run in r {
                        set_range(&mut w, run.start, run.last);
                    }
                }
            }
            let card = popcount(&w);
            Container::Bitmap(w, card)
        }
        (a, Container::Bitmap(v, _)) => container_or(Container::Bitmap(v.clone(), 0), &a),
        (Container::Array(x), Container::Array(y)) => {
            let merged = merge_sorted(&x, y);
            if merged.len() <= ARRAY_MAX {
                Container::Array(merged)
            } else {
                let card = merged.len() as u32;
                Container::Bitmap(words_from_array(&merged), card)
            }
        }
        (a, b) => run_to_efficient(runs_union(&a.to_runs(), &b.to_runs())),
    }
}

/// Values of the sorted array `x` that are not in `b`.
fn array_minus(x: &[u16], b: &Container) -> Vec<u16> {
    match b {
        Container::Array(y) => {
            let mut out = Vec::with_capacity(x.len());
            let mut j = 0;
            for &v in x {
                while j < y.len() && y[j] < v {
                    j += 1;
                }
                if j >= y.len() || y[j] != v {
                    out.push(v);
                }
            }
            out
        }
        _ => x.iter().copied().filter(|&v| !b.contains(v)).collect(),
    }
}

/// Values of the sorted array `x` that are also in `b`.
fn array_and(x: &[u16], b: &Container) -> Vec<u16> {
    match b {
        Container::Array(y) => {
            let mut out = Vec::with_capacity(x.len().min(y.len()));
            let (mut i, mut j) = (0, 0);
            while i < x.len() && j < y.len() {
                if x[i] < y[j] {
                    i += 1;
                } else if y[j] < x[i] {
                    j += 1;
                } else {
                    out.push(x[i]);
                    i += 1;
                    j += 1;
                }
            }
            out
        }
        _ => x.iter().copied().filter(|&v| b.contains(v)).collect(),
    }
}

/// `container_or` on borrowed operands, copying only what the result needs.
fn container_or_ref(a: &Container, b: &Container) -> Container {
    match (a, b) {
        (Container::Array(x), Container::Array(y)) => {
            let merged = merge_sorted(x, y);
            if merged.len() <= ARRAY_MAX {
                Container::Array(merged)
            } else {
                let card = merged.len() as u32;
                Container::Bitmap(words_from_array(&merged), card)
            }
        }
        (_, Container::Bitmap(..)) if !a.is_full() => container_or(b.clone(), a),
        _ => container_or(a.clone(), b),
    }
}

fn container_and_not_ref(a: &Container, b: &Container) -> Container {
    match a {
        Container::Array(x) => Container::Array(array_minus(x, b)),
        _ => container_and_not(a.clone(), b),
    }
}

fn container_and_ref(a: &Container, b: &Container) -> Container {
    match (a, b) {
        (Container::Array(x), _) => Container::Array(array_and(x, b)),
        (_, Container::Array(y)) => Container::Array(array_and(y, a)),
        _ => container_and(a.clone(), b),
    }
}

/// CRoaring `container_andnot` kinds.
fn container_and_not(a: Container, b: &Container) -> Container {
    match a {
        Container::Array(x) => Container::Array(array_minus(&x, b)),
        Container::Bitmap(mut w, _) => {
            match b {
                Container::Array(y) => {
                    for &v in y {
                        w[(v >> 6) as usize] &= !(1u64 << (v & 63));
                    }
                }
                Container::Bitmap(y, _) => {
                    for (p, q) in w.iter_mut().zip(y.iter()) {
                        *p &= !*q;
                    }
                }
                Container::Run(r) => {
                    for run in r {
                        clear_range(&mut w, run.start, run.last);
                    }
                }
            }
            canonical_from_words(w)
        }
        Container::Run(x) => match b {
            Container::Run(y) => run_to_efficient(runs_and_not(&x, y)),
            Container::Array(y) if runs_card(&x) <= 32 => {
                if y.is_empty() {
                    Container::Run(x)
                } else {
                    run_to_efficient(runs_and_not(&x, &runs_from_sorted(y)))
                }
            }
            _ => {
                let mut w = words_from_runs(&x);
                match b {
                    Container::Array(y) => {
                        for &v in y {
                            w[(v >> 6) as usize] &= !(1u64 << (v & 63));
                        }
                    }
                    Container::Bitmap(y, _) => {
                        for (p, q) in w.iter_mut().zip(y.iter()) {
                            *p &= !*q;
                        }
                    }
                    Container::Run(_) => unreachable!(),
                }
                canonical_from_words(w)
            }
        },
    }
}

/// CRoaring `container_and` kinds.
fn container_and(a: Container, b: &Container) -> Container {
    match (a, b) {
        (Container::Array(x), _) => Container::Array(array_and(&x, b)),
        (a, Container::Array(y)) => Container::Array(array_and(y, &a)),
        (Container::Run(x), Container::Run(y)) => run_to_efficient(runs_and(&x, y)),
        (a, b) => {
            if let Container::Run(x) = &a {
                if x.len() == 1 && x[0].start == 0 && x[0].last == 0xFFFF {
                    return b.clone();
                }
            }
            if let Container::Run(_) = b {
                if b.is_full() {
                    return a;
                }
            }
            let mut w = a.to_words();
            let v = b.to_words();
            for (p, q) in w.iter_mut().zip(v.iter()) {
                *p &= *q;
            }
            canonical_from_words(w)
        }
    }
}

// ---------------------------------------------------------------------------
// Radix sort for unsorted bulk input

fn radix_sort_u32(v: &mut Vec<u32>) {
    let n = v.len();
    if n < 256 {
        v.sort_unstable();
        return;
    }
    let mut tmp = vec![0u32; n];
    let mut in_tmp = false;
    for &(shift, bits) in &[(0u32, 11u32), (11, 11), (22, 10)] {
        let (src, dst): (&[u32], &mut [u32]) = if in_tmp { (&tmp[..], &mut v[..]) } else { (&v[..], &mut tmp[..]) };
        let mask = (1u32 << bits) - 1;
        let mut counts = vec![0usize; (1 << bits) + 1];
        for &x in src.iter() {
            counts[((x >> shift) & mask) as usize + 1] += 1;
        }
        if counts.iter().any(|&c| c == n) {
            continue; // every value has the same digit: the pass would not move anything
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        for &x in src.iter() {
            let d = ((x >> shift) & mask) as usize;
            dst[counts[d]] = x;
            counts[d] += 1;
        }
        in_tmp = !in_tmp;
    }
    if in_tmp {
        v.copy_from_slice(&tmp);
    }
}

fn is_sorted_u32(v: &[u32]) -> bool {
    v.windows(2).all(|p| p[0] <= p[1])
}

// ---------------------------------------------------------------------------
// Bitmap32

#[derive(Clone, Default, Debug)]
pub struct Bitmap32 {
    keys: Vec<u16>,
    conts: Vec<Container>,
}

/// Why deserialization failed (for tests and diagnostics).
pub type DecodeError = &'static str;

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.bytes.len() - self.pos < n {
            return Err("truncated");
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        let s = self.take(2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self) -> Result<u64, DecodeError> {
        let s = self.take(8)?;
        let mut b = [0u8; 8];
        b.copy_from_slice(s);
        Ok(u64::from_le_bytes(b))
    }
}

struct Writer<'a> {
    out: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    #[inline]
    fn put(&mut self, b: &[u8]) {
        self.out[self.pos..self.pos + b.len()].copy_from_slice(b);
        self.pos += b.len();
    }
    fn u16(&mut self, v: u16) {
        self.put(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.put(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.put(&v.to_le_bytes());
    }
}

impl Bitmap32 {
    pub fn new() -> Bitmap32 {
        Bitmap32::default()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn cardinality(&self) -> u64 {
        self.conts.iter().map(|c| c.card() as u64).sum()
    }

    /// Number of containers.
    pub fn container_count(&self) -> usize {
        self.keys.len()
    }

    /// Kinds of the containers ('a', 'b', 'r'), for tests.
    pub fn container_kinds(&self) -> Vec<char> {
        self.conts
            .iter()
            .map(|c| match c {
                Container::Array(_) => 'a',
                Container::Bitmap(..) => 'b',
                Container::Run(_) => 'r',
            })
            .collect()
    }

    #[inline]
    pub fn contains(&self, v: u32) -> bool {
        match self.keys.binary_search(&((v >> 16) as u16)) {
            Ok(i) => self.conts[i].contains(v as u16),
            Err(_) => false,
        }
    }

    pub fn add(&mut self, v: u32) -> bool {
        let key = (v >> 16) as u16;
        match self.keys.binary_search(&key) {
            Ok(i) => self.conts[i].add(v as u16),
            Err(i) => {
                self.keys.insert(i, key);
                self.conts.insert(i, Container::Array(vec![v as u16]));
                true
            }
        }
    }

    pub fn remove(&mut self, v: u32) -> bool {
        let key = (v >> 16) as u16;
        match self.keys.binary_search(&key) {
            Ok(i) => {
                let removed = self.conts[i].remove(v as u16);
                if removed && self.conts[i].is_empty() {
                    self.keys.remove(i);
                    self.conts.remove(i);
                }
                removed
            }
            Err(_) => false,
        }
    }

    pub fn min(&self) -> Option<u32> {
        let c = self.conts.first()?;
        c.min().map(|lo| ((self.keys[0] as u32) << 16) | lo as u32)
    }

    pub fn max(&self) -> Option<u32> {
        let c = self.conts.last()?;
        c.max().map(|lo| ((self.keys[self.keys.len() - 1] as u32) << 16) | lo as u32)
    }

    /// Adds non-decreasing values (duplicates allowed).
    pub fn add_sorted(&mut self, vals: &[u32]) {
        let n = vals.len();
        let mut i = 0;
        let mut lows: Vec<u16> = Vec::new();
        let mut cursor = 0usize;
        while i < n {
            let key = (vals[i] >> 16) as u16;
            let mut j = i + 1;
            while j < n && (vals[j] >> 16) as u16 == key {
                j += 1;
            }
            lows.clear();
            lows.extend(vals[i..j].iter().map(|&v| v as u16));
            // Keys only grow, so the search can start at the previous position.
            let pos = cursor + self.keys[cursor..].partition_point(|&k| k < key);
            if pos < self.keys.len() && self.keys[pos] == key {
                self.conts[pos].add_sorted(&lows);
            } else {
                self.keys.insert(pos, key);
                self.conts.insert(pos, container_from_sorted(&lows));
            }
            cursor = pos;
            i = j;
        }
    }

    /// Adds values in any order (sorted input takes the fast path).
    pub fn add_many(&mut self, vals: &[u32]) {
        if is_sorted_u32(vals) {
            self.add_sorted(vals);
        } else if vals.len() < 64 {
            for &v in vals {
                self.add(v);
            }
        } else {
            let mut sorted = vals.to_vec();
            radix_sort_u32(&mut sorted);
            self.add_sorted(&sorted);
        }
    }

    pub fn remove_many(&mut self, vals: &[u32]) {
        for &v in vals {
            self.remove(v);
        }
    }

    /// Adds `min..=max` (CRoaring `roaring_bitmap_add_range_closed` kinds).
    pub fn add_range_closed(&mut self, min: u32, max: u32) {
        if min > max {
            return;
        }
        let (kmin, kmax) = (min >> 16, max >> 16);
        for key in kmin..=kmax {
            let lo = if key == kmin { min as u16 } else { 0 };
            let hi = if key == kmax { max as u16 } else { 0xFFFF };
            let k = key as u16;
            match self.keys.binary_search(&k) {
                Ok(i) => self.conts[i].add_range(lo, hi),
                Err(i) => {
                    let c = if lo == hi { Container::Array(vec![lo]) } else { Container::Run(vec![Run { start: lo, last: hi }]) };
                    self.keys.insert(i, k);
                    self.conts.insert(i, c);
                }
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.keys.iter().zip(self.conts.iter()).flat_map(|(&k, c)| {
            let high = (k as u32) << 16;
            let v: Box<dyn Iterator<Item = u32> + '_> = match c {
                Container::Array(a) => Box::new(a.iter().map(move |&x| high | x as u32)),
                Container::Bitmap(w, _) => Box::new(array_from_words(w, 0).into_iter().map(move |x| high | x as u32)),
                Container::Run(r) => Box::new(r.iter().flat_map(move |r| (r.start as u32..=r.last as u32).map(move |x| high | x))),
            };
            v
        })
    }

    /// Writes the values `>= from` in ascending order into `out`; returns how many.
    pub fn copy_from(&self, from: u32, out: &mut [u32]) -> usize {
        let key = (from >> 16) as u16;
        let mut i = self.keys.partition_point(|&k| k < key);
        let mut n = 0;
        while i < self.keys.len() && n < out.len() {
            let low = if self.keys[i] == key { from as u16 } else { 0 };
            n += self.conts[i].fill(low, (self.keys[i] as u32) << 16, &mut out[n..]);
            i += 1;
        }
        n
    }

    pub fn or_inplace(&mut self, other: &Bitmap32) {
        if other.is_empty() {
            return;
        }
        let keys = std::mem::take(&mut self.keys);
        let conts = std::mem::take(&mut self.conts);
        let mut out_k = Vec::with_capacity(keys.len() + other.keys.len());
        let mut out_c = Vec::with_capacity(keys.len() + other.keys.len());
        let mut j = 0;
        for (k, c) in keys.into_iter().zip(conts.into_iter()) {
            while j < other.keys.len() && other.keys[j] < k {
                out_k.push(other.keys[j]);
                out_c.push(other.conts[j].clone());
                j += 1;
            }
            if j < other.keys.len() && other.keys[j] == k {
                out_k.push(k);
                // CRoaring's in-place union leaves a container that is already full as it
                // is, whatever its kind (roaring_bitmap_or_inplace skips it).
                if c.is_full() {
                    out_c.push(c);
                    j += 1;
                    continue;
                }
                // CRoaring's in-place union (OR_BITSET_CONVERSION_TO_FULL) turns a bitmap ∪
                // bitmap that fills the container into a full run; the static union does not.
                let bitmaps = matches!(c, Container::Bitmap(..)) && matches!(other.conts[j], Container::Bitmap(..));
                let merged = container_or(c, &other.conts[j]);
                out_c.push(if bitmaps && merged.is_full() { full_run() } else { merged });
                j += 1;
            } else {
                out_k.push(k);
                out_c.push(c);
            }
        }
        while j < other.keys.len() {
            out_k.push(other.keys[j]);
            out_c.push(other.conts[j].clone());
            j += 1;
        }
        self.keys = out_k;
        self.conts = out_c;
    }

    /// `a ∪ b` as a new bitmap (same container kinds as `or_inplace`).
    pub fn or(a: &Bitmap32, b: &Bitmap32) -> Bitmap32 {
        let mut out = Bitmap32 {
            keys: Vec::with_capacity(a.keys.len() + b.keys.len()),
            conts: Vec::with_capacity(a.keys.len() + b.keys.len()),
        };
        let (mut i, mut j) = (0, 0);
        while i < a.keys.len() || j < b.keys.len() {
            if j >= b.keys.len() || (i < a.keys.len() && a.keys[i] < b.keys[j]) {
                out.keys.push(a.keys[i]);
                out.conts.push(a.conts[i].clone());
                i += 1;
            } else if i >= a.keys.len() || b.keys[j] < a.keys[i] {
                out.keys.push(b.keys[j]);
                out.conts.push(b.conts[j].clone());
                j += 1;
            } else {
                out.keys.push(a.keys[i]);
                out.conts.push(container_or_ref(&a.conts[i], &b.conts[j]));
                i += 1;
                j += 1;
            }
        }
        out
    }

    fn combine_ref(a: &Bitmap32, b: &Bitmap32, keep_unmatched: bool, f: fn(&Container, &Container) -> Container) -> Bitmap32 {
        let mut out = Bitmap32::new();
        let mut j = 0;
        for (k, c) in a.keys.iter().zip(a.conts.iter()) {
            while j < b.keys.len() && b.keys[j] < *k {
                j += 1;
            }
            let result = if j < b.keys.len() && b.keys[j] == *k {
                f(c, &b.conts[j])
            } else if keep_unmatched {
                c.clone()
            } else {
                continue;
            };
            if !result.is_empty() {
                out.keys.push(*k);
                out.conts.push(result);
            }
        }
        out
    }

    /// `a \ b` as a new bitmap.
    pub fn and_not(a: &Bitmap32, b: &Bitmap32) -> Bitmap32 {
        Bitmap32::combine_ref(a, b, true, container_and_not_ref)
    }

    /// `a ∩ b` as a new bitmap.
    pub fn and(a: &Bitmap32, b: &Bitmap32) -> Bitmap32 {
        Bitmap32::combine_ref(a, b, false, container_and_ref)
    }

    fn combine_common(&mut self, other: &Bitmap32, keep_unmatched: bool, f: fn(Container, &Container) -> Container) {
        let keys = std::mem::take(&mut self.keys);
        let conts = std::mem::take(&mut self.conts);
        let mut j = 0;
        for (k, c) in keys.into_iter().zip(conts.into_iter()) {
            while j < other.keys.len() && other.keys[j] < k {
                j += 1;
            }
            let result = if j < other.keys.len() && other.keys[j] == k {
                f(c, &other.conts[j])
            } else if keep_unmatched {
                c
            } else {
                continue;
            };
            if !result.is_empty() {
                self.keys.push(k);
                self.conts.push(result);
            }
        }
    }

    pub fn and_not_inplace(&mut self, other: &Bitmap32) {
        if other.is_empty() {
            return;
        }
        self.combine_common(other, true, container_and_not);
    }

    pub fn and_inplace(&mut self, other: &Bitmap32) {
        self.combine_common(other, false, container_and);
    }

    /// Converts containers to the smallest kind; returns whether any run container remains.
    pub fn run_optimize(&mut self, rule: TieRule) -> bool {
        for c in self.conts.iter_mut() {
            c.run_optimize(rule);
        }
        self.has_runs()
    }

    fn has_runs(&self) -> bool {
        self.conts.iter().any(|c| matches!(c, Container::Run(_)))
    }

    /// Total number of runs over all containers (diagnostics).
    pub fn number_of_runs(&self) -> usize {
        self.conts.iter().map(|c| c.count_runs()).sum()
    }

    fn header_size(&self) -> usize {
        let n = self.keys.len();
        if self.has_runs() {
            4 + (n + 7) / 8 + 4 * n + if n >= NO_OFFSET_THRESHOLD { 4 * n } else { 0 }
        } else {
            8 + 8 * n
        }
    }

    /// Size of the portable serialization.
    pub fn serialized_size(&self) -> usize {
        self.header_size() + self.conts.iter().map(|c| c.data_size()).sum::<usize>()
    }

    /// Writes the portable serialization (exactly as Java RoaringBitmap / CRoaring).
    /// `out` must hold at least `serialized_size()` bytes; returns the bytes written.
    pub fn serialize_into(&self, out: &mut [u8]) -> usize {
        let n = self.keys.len();
        let has_runs = self.has_runs();
        let mut w = Writer { out, pos: 0 };
        if has_runs {
            w.u32(COOKIE_RUNS | (((n as u32).wrapping_sub(1)) << 16));
            let mut flags = vec![0u8; (n + 7) / 8];
            for (i, c) in self.conts.iter().enumerate() {
                if let Container::Run(_) = c {
                    flags[i / 8] |= 1 << (i % 8);
                }
            }
            w.put(&flags);
        } else {
            w.u32(COOKIE_NO_RUNS);
            w.u32(n as u32);
        }
        for (k, c) in self.keys.iter().zip(self.conts.iter()) {
            w.u16(*k);
            w.u16((c.card().wrapping_sub(1)) as u16);
        }
        if !has_runs || n >= NO_OFFSET_THRESHOLD {
            let mut offset = self.header_size() as u32;
            for c in &self.conts {
                w.u32(offset);
                offset += c.data_size() as u32;
            }
        }
        for c in &self.conts {
            match c {
                Container::Array(a) => {
                    for &x in a {
                        w.u16(x);
                    }
                }
                Container::Bitmap(words, _) => {
                    for &x in words.iter() {
                        w.u64(x);
                    }
                }
                Container::Run(r) => {
                    w.u16(r.len() as u16);
                    for run in r {
                        w.u16(run.start);
                        w.u16(run.last - run.start);
                    }
                }
            }
        }
        w.pos
    }

    pub fn serialize(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.serialized_size()];
        let n = self.serialize_into(&mut out);
        out.truncate(n);
        out
    }

    /// Reads a portable serialization from the start of `bytes`; returns the
    /// bitmap and the number of bytes it occupied. Validates everything the
    /// in-memory invariants rely on (sorted keys, sorted arrays, runs that do not
    /// overlap, bitmap cardinalities).
    pub fn deserialize(bytes: &[u8]) -> Result<(Bitmap32, usize), DecodeError> {
        let mut r = Reader { bytes, pos: 0 };
        let cookie = r.u32()?;
        let (size, has_runs) = if cookie & 0xFFFF == COOKIE_RUNS {
            (((cookie >> 16) + 1) as usize, true)
        } else if cookie == COOKIE_NO_RUNS {
            (r.u32()? as usize, false)
        } else {
            return Err("bad cookie");
        };
        if size > 1 << 16 {
            return Err("too many containers");
        }
        let run_flags = if has_runs { r.take((size + 7) / 8)? } else { &[][..] };
        let header = r.take(4 * size)?;
        if !has_runs || size >= NO_OFFSET_THRESHOLD {
            r.take(4 * size)?; // offsets: containers are read sequentially
        }
        let mut bm = Bitmap32 { keys: Vec::with_capacity(size), conts: Vec::with_capacity(size) };
        for i in 0..size {
            let key = u16::from_le_bytes([header[4 * i], header[4 * i + 1]]);
            let card = u16::from_le_bytes([header[4 * i + 2], header[4 * i + 3]]) as usize + 1;
            if let Some(&last) = bm.keys.last() {
                if key <= last {
                    return Err("keys not ascending");
                }
            }
            let is_run = has_runs && run_flags[i / 8] & (1 << (i % 8)) != 0;
            let c = if is_run {
                let n = r.u16()? as usize;
                let data = r.take(4 * n)?;
                let mut runs = Vec::with_capacity(n);
                let mut next_min = 0u32;
                for j in 0..n {
                    let start = u16::from_le_bytes([data[4 * j], data[4 * j + 1]]) as u32;
                    let len = u16::from_le_bytes([data[4 * j + 2], data[4 * j + 3]]) as u32;
                    if start + len > 0xFFFF {
                        return Err("run past container end");
                    }
                    if start < next_min {
                        return Err("runs overlap or are unsorted");
                    }
                    next_min = start + len + 1;
                    runs.push(Run { start: start as u16, last: (start + len) as u16 });
                }
                Container::Run(runs)
            } else if card > ARRAY_MAX {
                let data = r.take(BITMAP_BYTES)?;
                let mut w = new_words();
                for (k, chunk) in data.chunks_exact(8).enumerate() {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(chunk);
                    w[k] = u64::from_le_bytes(b);
                }
                if popcount(&w) as usize != card {
                    return Err("bitmap cardinality mismatch");
                }
                Container::Bitmap(w, card as u32)
            } else {
                let data = r.take(2 * card)?;
                let a: Vec<u16> = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
                if a.windows(2).any(|p| p[1] <= p[0]) {
                    return Err("array not strictly ascending");
                }
                Container::Array(a)
            };
            if !c.is_empty() {
                bm.keys.push(key);
                bm.conts.push(c);
            }
        }
        Ok((bm, r.pos))
    }
}

// ---------------------------------------------------------------------------
// Bitmap64

/// 64-bit layouts: `Navigable` = Java `Roaring64NavigableMap.serializePortable`
/// (non-empty buckets only); `Iceberg` = Iceberg / Paimon 64-bit deletion vectors
/// (every key from 0 to the largest, empty buckets included).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layout64 {
    Navigable,
    Iceberg,
}

const EMPTY_PORTABLE: [u8; 8] = [0x3a, 0x30, 0, 0, 0, 0, 0, 0];

#[derive(Clone, Default, Debug)]
pub struct Bitmap64 {
    map: BTreeMap<u32, Bitmap32>,
}

impl Bitmap64 {
    pub fn new() -> Bitmap64 {
        Bitmap64::default()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn cardinality(&self) -> u64 {
        self.map.values().map(|b| b.cardinality()).sum()
    }

    pub fn contains(&self, v: u64) -> bool {
        match self.map.get(&((v >> 32) as u32)) {
            Some(b) => b.contains(v as u32),
            None => false,
        }
    }

    pub fn add(&mut self, v: u64) -> bool {
        self.map.entry((v >> 32) as u32).or_default().add(v as u32)
    }

    pub fn remove(&mut self, v: u64) -> bool {
        let high = (v >> 32) as u32;
        let (removed, empty) = match self.map.get_mut(&high) {
            Some(b) => (b.remove(v as u32), b.is_empty()),
            None => return false,
        };
        if empty {
            self.map.remove(&high);
        }
        removed
    }

    pub fn add_many(&mut self, vals: &[u64]) {
        if vals.windows(2).all(|p| p[0] <= p[1]) {
            self.add_sorted(vals);
        } else {
            let mut sorted = vals.to_vec();
            sorted.sort_unstable();
            self.add_sorted(&sorted);
        }
    }

    fn add_sorted(&mut self, vals: &[u64]) {
        let mut lows: Vec<u32> = Vec::new();
        let mut i = 0;
        while i < vals.len() {
            let high = (vals[i] >> 32) as u32;
            let mut j = i + 1;
            while j < vals.len() && (vals[j] >> 32) as u32 == high {
                j += 1;
            }
            lows.clear();
            lows.extend(vals[i..j].iter().map(|&v| v as u32));
            self.map.entry(high).or_default().add_sorted(&lows);
            i = j;
        }
    }

    pub fn min(&self) -> Option<u64> {
        let (&h, b) = self.map.iter().next()?;
        b.min().map(|lo| ((h as u64) << 32) | lo as u64)
    }

    pub fn max(&self) -> Option<u64> {
        let (&h, b) = self.map.iter().next_back()?;
        b.max().map(|lo| ((h as u64) << 32) | lo as u64)
    }

    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.map.iter().flat_map(|(&h, b)| b.iter().map(move |lo| ((h as u64) << 32) | lo as u64))
    }

    /// Writes the values `>= from` in ascending order into `out`; returns how many.
    pub fn copy_from(&self, from: u64, out: &mut [u64]) -> usize {
        let high = (from >> 32) as u32;
        let mut n = 0;
        let mut buf = vec![0u32; out.len().min(4096)];
        for (&h, b) in self.map.range(high..) {
            let mut lo_from = if h == high { from as u32 } else { 0 };
            loop {
                if n == out.len() {
                    return n;
                }
                let want = (out.len() - n).min(buf.len());
                let got = b.copy_from(lo_from, &mut buf[..want]);
                for (o, &lo) in out[n..n + got].iter_mut().zip(buf[..got].iter()) {
                    *o = ((h as u64) << 32) | lo as u64;
                }
                n += got;
                if got < want || buf[got - 1] == u32::MAX {
                    break;
                }
                lo_from = buf[got - 1] + 1;
            }
        }
        n
    }

    pub fn or_inplace(&mut self, other: &Bitmap64) {
        for (&h, b) in &other.map {
            match self.map.get_mut(&h) {
                Some(mine) => mine.or_inplace(b),
                None => {
                    self.map.insert(h, b.clone());
                }
            }
        }
    }

    pub fn and_not_inplace(&mut self, other: &Bitmap64) {
        let mut emptied = Vec::new();
        for (&h, b) in other.map.iter() {
            if let Some(mine) = self.map.get_mut(&h) {
                mine.and_not_inplace(b);
                if mine.is_empty() {
                    emptied.push(h);
                }
            }
        }
        for h in emptied {
            self.map.remove(&h);
        }
    }

    pub fn and_inplace(&mut self, other: &Bitmap64) {
        let mut keep = BTreeMap::new();
        for (h, mut b) in std::mem::take(&mut self.map) {
            if let Some(o) = other.map.get(&h) {
                b.and_inplace(o);
                if !b.is_empty() {
                    keep.insert(h, b);
                }
            }
        }
        self.map = keep;
    }

    pub fn run_optimize(&mut self, rule: TieRule) -> bool {
        let mut any = false;
        for b in self.map.values_mut() {
            any |= b.run_optimize(rule);
        }
        any
    }

    /// Serialized size; `None` if it does not fit in `usize` arithmetic sensibly (u64 here).
    pub fn serialized_size(&self, layout: Layout64) -> u64 {
        let mut size = 8u64;
        for b in self.map.values() {
            size += 4 + b.serialized_size() as u64;
        }
        if layout == Layout64::Iceberg {
            if let Some((&max, _)) = self.map.iter().next_back() {
                let empties = max as u64 + 1 - self.map.len() as u64;
                size += empties * (4 + EMPTY_PORTABLE.len() as u64);
            }
        }
        size
    }

    pub fn serialize_into(&self, layout: Layout64, out: &mut [u8]) -> usize {
        let mut w = Writer { out, pos: 0 };
        match layout {
            Layout64::Navigable => {
                w.u64(self.map.len() as u64);
                for (&h, b) in &self.map {
                    w.u32(h);
                    let pos = w.pos;
                    w.pos += b.serialize_into(&mut w.out[pos..]);
                }
            }
            Layout64::Iceberg => {
                let count = self.map.keys().next_back().map_or(0u64, |&m| m as u64 + 1);
                w.u64(count);
                let mut next = 0u64;
                for (&h, b) in &self.map {
                    while next < h as u64 {
                        w.u32(next as u32);
                        w.put(&EMPTY_PORTABLE);
                        next += 1;
                    }
                    w.u32(h);
                    let pos = w.pos;
                    w.pos += b.serialize_into(&mut w.out[pos..]);
                    next = h as u64 + 1;
                }
            }
        }
        w.pos
    }

    pub fn serialize(&self, layout: Layout64) -> Vec<u8> {
        let mut out = vec![0u8; self.serialized_size(layout) as usize];
        let n = self.serialize_into(layout, &mut out);
        out.truncate(n);
        out
    }

    /// Reads either 64-bit layout. Buckets may come in any order; a repeated key
    /// is merged (Java's reader would keep the last one, but writers never repeat keys).
    pub fn deserialize(bytes: &[u8]) -> Result<(Bitmap64, usize), DecodeError> {
        let mut r = Reader { bytes, pos: 0 };
        let count = r.u64()?;
        // Each bucket needs at least a key and an 8-byte empty bitmap.
        if count > ((bytes.len() - r.pos) / 12) as u64 {
            return Err("bucket count exceeds input");
        }
        let mut out = Bitmap64::new();
        for _ in 0..count {
            let high = r.u32()?;
            let (b, used) = Bitmap32::deserialize(&bytes[r.pos..])?;
            r.pos += used;
            if b.is_empty() {
                continue;
            }
            match out.map.get_mut(&high) {
                Some(existing) => existing.or_inplace(&b),
                None => {
                    out.map.insert(high, b);
                }
            }
        }
        Ok((out, r.pos))
    }
}

// ---------------------------------------------------------------------------
// FFI. Handles are pointers to boxed bitmaps (never 0). Values and outputs live
// in host-allocated buffers (see `pr_alloc`).

unsafe fn slice<'a, T>(ptr: u32, len: u32) -> &'a [T] {
    if len == 0 {
        return &[];
    }
    std::slice::from_raw_parts(ptr as usize as *const T, len as usize)
}

unsafe fn slice_mut<'a, T>(ptr: u32, len: u32) -> &'a mut [T] {
    if len == 0 {
        return &mut [];
    }
    std::slice::from_raw_parts_mut(ptr as usize as *mut T, len as usize)
}

unsafe fn b32<'a>(h: u32) -> &'a mut Bitmap32 {
    &mut *(h as usize as *mut Bitmap32)
}

unsafe fn b64<'a>(h: u32) -> &'a mut Bitmap64 {
    &mut *(h as usize as *mut Bitmap64)
}

fn rule(croaring: u32) -> TieRule {
    if croaring != 0 {
        TieRule::CRoaring
    } else {
        TieRule::Java
    }
}

fn layout(iceberg: u32) -> Layout64 {
    if iceberg != 0 {
        Layout64::Iceberg
    } else {
        Layout64::Navigable
    }
}

fn box32(b: Bitmap32) -> u32 {
    Box::into_raw(Box::new(b)) as usize as u32
}

fn box64(b: Bitmap64) -> u32 {
    Box::into_raw(Box::new(b)) as usize as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub extern "C" fn pr_bitmap32_new() -> u32 {
    box32(Bitmap32::new())
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_free(h: u32) {
    if h != 0 {
        drop(Box::from_raw(h as usize as *mut Bitmap32));
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_clone(h: u32) -> u32 {
    box32(b32(h).clone())
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_add(h: u32, v: u32) -> u32 {
    b32(h).add(v) as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_remove(h: u32, v: u32) -> u32 {
    b32(h).remove(v) as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_contains(h: u32, v: u32) -> u32 {
    b32(h).contains(v) as u32
}

/// `ptr`: `len` u32 values in any order.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_add_many(h: u32, ptr: u32, len: u32) {
    b32(h).add_many(slice(ptr, len));
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_remove_many(h: u32, ptr: u32, len: u32) {
    b32(h).remove_many(slice(ptr, len));
}

/// Adds `min..=max`.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_add_range(h: u32, min: u32, max: u32) {
    b32(h).add_range_closed(min, max);
}

/// Writes one byte per value (1 = present) to `out_ptr`.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_contains_many(h: u32, ptr: u32, len: u32, out_ptr: u32) {
    let b = b32(h);
    let vals: &[u32] = slice(ptr, len);
    let out: &mut [u8] = slice_mut(out_ptr, len);
    // Remember the last container: queries are often clustered.
    let mut last_key: i32 = -1;
    let mut last: Option<&Container> = None;
    for (o, &v) in out.iter_mut().zip(vals.iter()) {
        let key = (v >> 16) as i32;
        if key != last_key {
            last_key = key;
            last = b.keys.binary_search(&(key as u16)).ok().map(|i| &b.conts[i]);
        }
        *o = match last {
            Some(c) => c.contains(v as u16) as u8,
            None => 0,
        };
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_cardinality(h: u32) -> f64 {
    b32(h).cardinality() as f64
}

/// Smallest / largest value, or -1 when empty.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_min(h: u32) -> f64 {
    b32(h).min().map_or(-1.0, |v| v as f64)
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_max(h: u32) -> f64 {
    b32(h).max().map_or(-1.0, |v| v as f64)
}

/// Writes up to `cap` values `>= from` to `out_ptr`; returns how many.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_copy_from(h: u32, from: u32, out_ptr: u32, cap: u32) -> u32 {
    b32(h).copy_from(from, slice_mut(out_ptr, cap)) as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_or_inplace(h: u32, other: u32) {
    if h == other {
        return;
    }
    b32(h).or_inplace(b32(other));
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_and_not_inplace(h: u32, other: u32) {
    if h == other {
        *b32(h) = Bitmap32::new();
        return;
    }
    b32(h).and_not_inplace(b32(other));
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_and_inplace(h: u32, other: u32) {
    if h == other {
        return;
    }
    b32(h).and_inplace(b32(other));
}

/// New bitmaps holding `a ∪ b`, `a \ b`, `a ∩ b`.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_or(a: u32, b: u32) -> u32 {
    box32(Bitmap32::or(b32(a), b32(b)))
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_and_not(a: u32, b: u32) -> u32 {
    box32(Bitmap32::and_not(b32(a), b32(b)))
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_and(a: u32, b: u32) -> u32 {
    box32(Bitmap32::and(b32(a), b32(b)))
}

/// Returns 1 if some run container remains. `croaring` selects CRoaring's tie rule.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_run_optimize(h: u32, croaring: u32) -> u32 {
    b32(h).run_optimize(rule(croaring)) as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_serialize_size(h: u32) -> u32 {
    b32(h).serialized_size() as u32
}

/// `out_ptr` must hold `pr_bitmap32_serialize_size` bytes; returns the bytes written.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_serialize(h: u32, out_ptr: u32) -> u32 {
    let b = b32(h);
    let size = b.serialized_size() as u32;
    b.serialize_into(slice_mut(out_ptr, size)) as u32
}

/// Returns a new handle, or 0 if the bytes are not a valid portable bitmap. The
/// number of bytes read is stored at `consumed_ptr` (u32) unless it is 0.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap32_deserialize(ptr: u32, len: u32, consumed_ptr: u32) -> u32 {
    match Bitmap32::deserialize(slice(ptr, len)) {
        Ok((b, used)) => {
            if consumed_ptr != 0 {
                *(consumed_ptr as usize as *mut u32) = used as u32;
            }
            box32(b)
        }
        Err(_) => 0,
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub extern "C" fn pr_bitmap64_new() -> u32 {
    box64(Bitmap64::new())
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_free(h: u32) {
    if h != 0 {
        drop(Box::from_raw(h as usize as *mut Bitmap64));
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_clone(h: u32) -> u32 {
    box64(b64(h).clone())
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_add(h: u32, v: u64) -> u32 {
    b64(h).add(v) as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_remove(h: u32, v: u64) -> u32 {
    b64(h).remove(v) as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_contains(h: u32, v: u64) -> u32 {
    b64(h).contains(v) as u32
}

/// `ptr`: `len` u64 values in any order. With `signed` != 0 the values are
/// int64 and nothing is added if one is negative (returns 1); otherwise returns 0.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_add_many(h: u32, ptr: u32, len: u32, signed: u32) -> u32 {
    let vals: &[u64] = slice(ptr, len);
    if signed != 0 && vals.iter().any(|&v| v >> 63 != 0) {
        return 1;
    }
    b64(h).add_many(vals);
    0
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_contains_many(h: u32, ptr: u32, len: u32, out_ptr: u32) {
    let b = b64(h);
    let vals: &[u64] = slice(ptr, len);
    let out: &mut [u8] = slice_mut(out_ptr, len);
    let mut last_high: Option<u32> = None;
    let mut last: Option<&Bitmap32> = None;
    for (o, &v) in out.iter_mut().zip(vals.iter()) {
        let high = (v >> 32) as u32;
        if last_high != Some(high) {
            last_high = Some(high);
            last = b.map.get(&high);
        }
        *o = match last {
            Some(bm) => bm.contains(v as u32) as u8,
            None => 0,
        };
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_cardinality(h: u32) -> f64 {
    b64(h).cardinality() as f64
}

/// Writes the smallest (`which` = 0) or largest value to `out_ptr` (u64); returns 0 when empty.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_extreme(h: u32, which: u32, out_ptr: u32) -> u32 {
    let v = if which == 0 { b64(h).min() } else { b64(h).max() };
    match v {
        Some(v) => {
            *(out_ptr as usize as *mut u64) = v;
            1
        }
        None => 0,
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_copy_from(h: u32, from: u64, out_ptr: u32, cap: u32) -> u32 {
    b64(h).copy_from(from, slice_mut(out_ptr, cap)) as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_or_inplace(h: u32, other: u32) {
    if h == other {
        return;
    }
    b64(h).or_inplace(b64(other));
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_and_not_inplace(h: u32, other: u32) {
    if h == other {
        *b64(h) = Bitmap64::new();
        return;
    }
    b64(h).and_not_inplace(b64(other));
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_and_inplace(h: u32, other: u32) {
    if h == other {
        return;
    }
    b64(h).and_inplace(b64(other));
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_run_optimize(h: u32, croaring: u32) -> u32 {
    b64(h).run_optimize(rule(croaring)) as u32
}

/// Serialized size as f64 (the Iceberg layout can exceed 4 GiB for huge keys).
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_serialize_size(h: u32, iceberg: u32) -> f64 {
    b64(h).serialized_size(layout(iceberg)) as f64
}

/// `out_ptr` must hold `pr_bitmap64_serialize_size` bytes (< 4 GiB); returns the bytes written.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_serialize(h: u32, iceberg: u32, out_ptr: u32) -> u32 {
    let b = b64(h);
    let size = b.serialized_size(layout(iceberg));
    if size > u32::MAX as u64 {
        return 0;
    }
    b.serialize_into(layout(iceberg), slice_mut(out_ptr, size as u32)) as u32
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bitmap64_deserialize(ptr: u32, len: u32, consumed_ptr: u32) -> u32 {
    match Bitmap64::deserialize(slice(ptr, len)) {
        Ok((b, used)) => {
            if consumed_ptr != 0 {
                *(consumed_ptr as usize as *mut u32) = used as u32;
            }
            box64(b)
        }
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{:02x}", x)).collect()
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    const SPEC_135: &str = "3a300000010000000000020010000000010003000500";

    #[test]
    fn spec_vector_1_3_5() {
        let mut b = Bitmap32::new();
        b.add_many(&[5, 1, 3]);
        b.run_optimize(TieRule::Java);
        assert_eq!(hex(&b.serialize()), SPEC_135);
    }

    #[test]
    fn empty_bitmap() {
        let b = Bitmap32::new();
        assert_eq!(hex(&b.serialize()), "3a30000000000000");
        let (d, used) = Bitmap32::deserialize(&b.serialize()).unwrap();
        assert!(d.is_empty());
        assert_eq!(used, 8);
        let e = Bitmap64::new();
        assert_eq!(hex(&e.serialize(Layout64::Navigable)), "0000000000000000");
        assert_eq!(hex(&e.serialize(Layout64::Iceberg)), "0000000000000000");
    }

    #[test]
    fn tie_rules_differ_on_three_consecutive_values() {
        let mut j = Bitmap32::new();
        j.add_many(&[1, 2, 3]);
        let mut c = j.clone();
        j.run_optimize(TieRule::Java);
        c.run_optimize(TieRule::CRoaring);
        assert_eq!(j.container_kinds(), vec!['a']);
        assert_eq!(hex(&c.serialize()), "3b3000000100000200010001000200");
    }

    #[test]
    fn ranges_and_runs_round_trip() {
        let mut b = Bitmap32::new();
        b.add_range_closed(0, 200_000);
        b.add(u32::MAX);
        b.add_range_closed(u32::MAX - 10, u32::MAX);
        assert_eq!(b.cardinality(), 200_001 + 11);
        let bytes = b.serialize();
        let (d, used) = Bitmap32::deserialize(&bytes).unwrap();
        assert_eq!(used, bytes.len());
        assert!(d.iter().eq(b.iter()));
        assert!(d.contains(u32::MAX) && d.contains(0) && !d.contains(200_001));
    }

    #[test]
    fn random_ops_match_model() {
        let mut rng = Lcg(42);
        for round in 0..40 {
            let mut b = Bitmap32::new();
            let mut o = Bitmap32::new();
            let mut m = BTreeSet::new();
            let mut mo = BTreeSet::new();
            let span = [1u64 << 12, 1 << 17, 1 << 20, 1 << 32][round % 4];
            for _ in 0..(rng.next() % 1500) {
                let v = (rng.next() % span) as u32;
                match rng.next() % 10 {
                    0 => {
                        b.remove(v);
                        m.remove(&v);
                    }
                    1 => {
                        let len = (rng.next() % if rng.next() % 8 == 0 { 5000 } else { 100 }) as u32;
                        let hi = v.saturating_add(len);
                        b.add_range_closed(v, hi);
                        m.extend(v..=hi);
                    }
                    2 => {
                        o.add(v);
                        mo.insert(v);
                    }
                    3 => {
                        let len = if rng.next() % 16 == 0 { 70000 } else { 300 };
                        let hi = v.saturating_add((rng.next() % len) as u32);
                        o.add_range_closed(v, hi);
                        mo.extend(v..=hi);
                    }
                    _ => {
                        b.add(v);
                        m.insert(v);
                    }
                }
            }
            assert!(b.iter().eq(m.iter().copied()));
            assert_eq!(b.cardinality(), m.len() as u64);
            let mut u = b.clone();
            u.or_inplace(&o);
            assert!(u.iter().eq(m.union(&mo).copied()));
            let mut d = b.clone();
            d.and_not_inplace(&o);
            assert!(d.iter().eq(m.difference(&mo).copied()));
            let mut i = b.clone();
            i.and_inplace(&o);
            assert!(i.iter().eq(m.intersection(&mo).copied()));
            for (x, y) in [(&b, &o), (&o, &b)] {
                let mut ip = x.clone();
                ip.or_inplace(y);
                assert_eq!(Bitmap32::or(x, y).serialize(), ip.serialize());
                let mut ip = x.clone();
                ip.and_not_inplace(y);
                assert_eq!(Bitmap32::and_not(x, y).serialize(), ip.serialize());
                let mut ip = x.clone();
                ip.and_inplace(y);
                assert_eq!(Bitmap32::and(x, y).serialize(), ip.serialize());
            }
            for rule in [TieRule::Java, TieRule::CRoaring] {
                let mut r = u.clone();
                r.run_optimize(rule);
                let bytes = r.serialize();
                assert_eq!(bytes.len(), r.serialized_size());
                let (back, used) = Bitmap32::deserialize(&bytes).unwrap();
                assert_eq!(used, bytes.len());
                assert!(back.iter().eq(m.union(&mo).copied()));
                assert_eq!(back.serialize(), bytes);
            }
            let mut out = vec![0u32; 100];
            let from = (rng.next() % span) as u32;
            let n = b.copy_from(from, &mut out);
            let expect: Vec<u32> = m.range(from..).take(100).copied().collect();
            assert_eq!(&out[..n], &expect[..]);
        }
    }

    #[test]
    fn unsorted_bulk_add() {
        let mut rng = Lcg(7);
        let vals: Vec<u32> = (0..100_000).map(|_| rng.next() as u32).collect();
        let mut b = Bitmap32::new();
        b.add_many(&vals);
        let m: BTreeSet<u32> = vals.iter().copied().collect();
        assert!(b.iter().eq(m.iter().copied()));
    }

    #[test]
    fn malformed_input_is_an_error() {
        let mut b = Bitmap32::new();
        b.add_range_closed(10, 100_000);
        b.add_many(&[3, 7, 1 << 20]);
        b.run_optimize(TieRule::Java);
        let bytes = b.serialize();
        for cut in 0..bytes.len() {
            assert!(Bitmap32::deserialize(&bytes[..cut]).is_err(), "cut {}", cut);
        }
        let mut rng = Lcg(3);
        for _ in 0..5000 {
            let mut g = bytes.clone();
            for _ in 0..1 + rng.next() % 4 {
                let i = (rng.next() as usize) % g.len();
                g[i] = rng.next() as u8;
            }
            let _ = Bitmap32::deserialize(&g);
            let garbage: Vec<u8> = (0..rng.next() % 64).map(|_| rng.next() as u8).collect();
            let _ = Bitmap32::deserialize(&garbage);
            let _ = Bitmap64::deserialize(&garbage);
        }
    }

    #[test]
    fn bitmap64_layouts() {
        let mut b = Bitmap64::new();
        for v in [1u64, 3, 5] {
            b.add(v);
        }
        assert_eq!(hex(&b.serialize(Layout64::Iceberg)), format!("010000000000000000000000{}", SPEC_135));
        assert_eq!(hex(&b.serialize(Layout64::Navigable)), format!("010000000000000000000000{}", SPEC_135));
        let mut s = Bitmap64::new();
        s.add_many(&[0, 5, 1 << 32, (1 << 32) + 7, 5 * (1 << 32) + 123456, (1 << 62) + 1]);
        let nav = s.serialize(Layout64::Navigable);
        let (back, used) = Bitmap64::deserialize(&nav).unwrap();
        assert_eq!(used, nav.len());
        assert!(back.iter().eq(s.iter()));
        let mut t = Bitmap64::new();
        t.add_many(&[2, 3 << 32]);
        let ice = t.serialize(Layout64::Iceberg);
        assert_eq!(ice.len(), 8 + 4 * 4 + 18 + 8 + 8 + 18);
        assert_eq!(t.serialize(Layout64::Navigable).len(), 8 + 2 * 4 + 18 + 18);
        let (back, _) = Bitmap64::deserialize(&ice).unwrap();
        assert!(back.iter().eq([2u64, 3 << 32].iter().copied()));
        let mut out = vec![0u64; 10];
        assert_eq!(s.copy_from(6, &mut out), 4);
        assert_eq!(out[0], 1 << 32);
    }
}
