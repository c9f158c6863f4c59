//! Roaring bitmaps (placeholder module; filled in by the bitmap work).
