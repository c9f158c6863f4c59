// Java RoaringBitmap 1.2.1's native `Roaring64Bitmap` serialization (what Paimon 1.4.2's
// RoaringBitmap64 and FieldRoaringBitmap64Agg read and write) and its in-place `or`, replayed so
// the union's bytes equal Java's. The format has no specification: it is the in-memory layout.
//
//   bitmap     := tag u8 (0: empty, end) | art | containers
//   art        := keySize i64 | node (pre-order, children in key order)
//   node       := type u8 (0 Node4, 1 Node16, 2 Node48, 3 Node256, 4 leaf) | count i16 | prefixLength i8
//                 | prefix bytes | body
//   body       := Node4: its 4 key bytes as a little-endian int (spare bytes kept); Node16: 16 key
//                 bytes as two little-endian longs; Node48: 256 child slots (0xFF: none) as 32
//                 little-endian longs; Node256: a 256-bit presence mask; leaf: the 6 high key bytes
//                 (big-endian) | container index i64 (array << 32 | slot)
//   containers := arrays i32 | per array: 0xFE (not trimmed) | slots i32 | per slot: 0 (null) or
//                 1 | type u8 (0 run, 1 bitmap, 2 array) | cardinality i32 | data
//                 | containerSize i64 | firstLevelIdx i32 | secondLevelIdx i32
//
// Everything is little-endian. Node shapes, spare key bytes, slot positions and the slot arrays'
// spare capacity follow the insertion history, so a union must insert new keys exactly as Java's
// Art.insert (node growth Node4 → Node16 → Node48 → Node256), add containers as Containers.addContainer
// (capacity growth by 1.5), pick each container's kind as Container.ior does, and then runOptimize.
import { ByteReader, ByteWriter } from "../spec/data-stream.js";

const NODE4 = 0;
const NODE16 = 1;
const NODE48 = 2;
const NODE256 = 3;
const LEAF = 4;
const KEY_BYTES = 6;
const EMPTY_SLOT = 0xff;
const RUN = 0;
const BITMAP = 1;
const ARRAY = 2;
const ARRAY_MAX = 4096;
const FULL = 65536;
const WORDS = 2048;
const BITMAP_BYTES = 8192;
const NOT_TRIMMED = 0xfe;
/** Java's Containers.MAX_JVM_ARRAY_OFFSET: a slot array never grows past it. */
const MAX_SLOT_OFFSET = 0x7fffffff - 8 - 1;

interface Leaf {
  type: typeof LEAF;
  prefix: Uint8Array;
  /** the header's count, kept as read (0 for leaves Java creates) */
  count: number;
  key: Uint8Array;
  array: number;
  slot: number;
}

interface Inner {
  type: typeof NODE4 | typeof NODE16 | typeof NODE48 | typeof NODE256;
  prefix: Uint8Array;
  count: number;
  /** Node4 / Node16: the key byte at each position; Node48: the slot of each key byte (0xFF none); Node256: 1 where a child is. */
  keys: Uint8Array;
  children: Array<Node | null>;
}

type Node = Leaf | Inner;

/** One 16-bit container: array values, (start, length) run pairs, or 2048 bitmap words. */
interface Container {
  kind: typeof RUN | typeof BITMAP | typeof ARRAY;
  data: Uint16Array | Uint32Array;
  card: number;
}

interface Bitmap64 {
  keySize: number;
  /** the leaves as read, in key order */
  leaves: Leaf[];
  root: Node | null;
  arrays: Array<Array<Container | null>>;
  containerSize: number;
  firstLevelIdx: number;
  secondLevelIdx: number;
}

const CAPACITY = [4, 16, 48, 256];
const KEY_SLOTS = [4, 16, 256, 256];

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** An i64 count that must fit in [0, 2^53). */
function readCount(r: ByteReader, what: string): number {
  const v = r.i64();
  if (v < 0n || v >= 1n << 53n) throw r.corrupt(`${what} ${v} is out of range`);
  return Number(v);
}

function readU16s(r: ByteReader, n: number): Uint16Array {
  const raw = r.bytesOf(n * 2);
  const out = new Uint16Array(n);
  for (let i = 0; i < n; i++) out[i] = raw[2 * i]! | (raw[2 * i + 1]! << 8);
  return out;
}

// ---------------------------------------------------------------- containers

function bitsOf(c: Container): Uint32Array {
  if (c.kind === BITMAP) return c.data.slice() as Uint32Array;
  const bits = new Uint32Array(WORDS);
  const d = c.data;
  if (c.kind === ARRAY) {
    for (const v of d) bits[v >>> 5]! |= 1 << (v & 31);
    return bits;
  }
  for (let r = 0; r < d.length; r += 2) setRange(bits, d[r]!, d[r]! + d[r + 1]! + 1);
  return bits;
}

/** Sets bits [from, to). */
function setRange(bits: Uint32Array, from: number, to: number): void {
  for (let v = from; v < to; ) {
    if ((v & 31) === 0 && v + 32 <= to) {
      bits[v >>> 5] = 0xffffffff;
      v += 32;
    } else {
      bits[v >>> 5]! |= 1 << (v & 31);
      v++;
    }
  }
}

function cardinalityOf(bits: Uint32Array): number {
  let n = 0;
  for (const w of bits) n += popcount(w);
  return n;
}

function runCountOf(bits: Uint32Array): number {
  let runs = 0;
  let carry = 0;
  for (const w of bits) {
    runs += popcount(w & ~((w << 1) | carry));
    carry = w >>> 31;
  }
  return runs;
}

function runCount(c: Container): number {
  if (c.kind === RUN) return c.data.length / 2;
  if (c.kind === BITMAP) return runCountOf(c.data as Uint32Array);
  const d = c.data;
  let runs = 0;
  for (let i = 0; i < d.length; i++) if (i === 0 || d[i] !== d[i - 1]! + 1) runs++;
  return runs;
}

function containerFromBits(bits: Uint32Array, kind: Container["kind"], card: number): Container {
  if (kind === BITMAP) return { kind, data: bits, card };
  if (kind === ARRAY) {
    const values = new Uint16Array(card);
    let n = 0;
    for (let w = 0; w < WORDS; w++) for (let word = bits[w]!; word !== 0; word &= word - 1) values[n++] = w * 32 + (31 - Math.clz32(word & -word));
    return { kind, data: values, card };
  }
  const runs = new Uint16Array(runCountOf(bits) * 2);
  let n = 0;
  let start = -1;
  for (let w = 0; w < WORDS; w++) {
    const word = bits[w]!;
    // words wholly inside or outside a run change nothing
    if (word === (start < 0 ? 0 : 0xffffffff)) continue;
    for (let bit = 0; bit < 32; bit++) {
      const set = (word >>> bit) & 1;
      if (set && start < 0) start = w * 32 + bit;
      else if (!set && start >= 0) {
        runs[n++] = start;
        runs[n++] = w * 32 + bit - 1 - start;
        start = -1;
      }
    }
  }
  if (start >= 0) {
    runs[n++] = start;
    runs[n++] = FULL - 1 - start;
  }
  return { kind, data: runs, card };
}

/** RunContainer.toEfficientContainer's choice for a union. */
function efficientKind(card: number, runs: number): Container["kind"] {
  if (2 + 4 * runs <= Math.min(BITMAP_BYTES, 2 * card + 2)) return RUN;
  return card <= ARRAY_MAX ? ARRAY : BITMAP;
}

/** Java `acc.ior(input)` (RoaringBitmap 1.2.1): the union, in the container kind Java's code path returns. */
function containerOr(acc: Container, input: Container): Container {
  const bits = bitsOf(acc);
  const other = bitsOf(input);
  for (let w = 0; w < WORDS; w++) bits[w]! |= other[w]!;
  const card = cardinalityOf(bits);
  const full = card === FULL;
  let kind: Container["kind"];
  if (acc.kind === ARRAY && input.kind === ARRAY) {
    // ArrayContainer.ior: over 4096 summed, a lazy bitmap repaired by its cardinality
    kind = acc.card + input.card <= ARRAY_MAX || card <= ARRAY_MAX ? ARRAY : full ? RUN : BITMAP;
  } else if (acc.kind === BITMAP && input.kind === ARRAY) {
    kind = BITMAP; // BitmapContainer.ior(ArrayContainer) never converts
  } else if (acc.kind === BITMAP || input.kind === BITMAP) {
    kind = full ? RUN : BITMAP; // the bitmap ors return RunContainer.full() when full
  } else {
    kind = efficientKind(card, runCountOf(bits)); // run with array / run: toEfficientContainer
  }
  return containerFromBits(bits, kind, card);
}

/** Java's Container.runOptimize as Roaring64Bitmap.runOptimize applies it: only a conversion to runs is kept. */
function runOptimized(c: Container): Container {
  if (c.kind === RUN) return c;
  const runs = runCount(c);
  const size = c.kind === ARRAY ? 2 * c.card : BITMAP_BYTES;
  if (size <= 2 + 4 * runs) return c;
  return containerFromBits(bitsOf(c), RUN, c.card);
}

function readContainer(r: ByteReader): Container {
  const kind = r.u8();
  const card = r.i32();
  if (kind === ARRAY) {
    if (card < 0 || card > ARRAY_MAX) throw r.corrupt(`array container cardinality ${card} is out of [0, ${ARRAY_MAX}]`);
    const values = readU16s(r, card);
    for (let i = 1; i < card; i++) if (values[i]! <= values[i - 1]!) throw r.corrupt("array container values are not strictly increasing");
    return { kind, data: values, card };
  }
  if (kind === BITMAP) {
    const raw = r.bytesOf(BITMAP_BYTES);
    const words = new Uint32Array(WORDS);
    for (let w = 0; w < WORDS; w++) words[w] = raw[4 * w]! | (raw[4 * w + 1]! << 8) | (raw[4 * w + 2]! << 16) | (raw[4 * w + 3]! << 24);
    if (cardinalityOf(words) !== card) throw r.corrupt(`bitmap container cardinality ${card} is not its ${cardinalityOf(words)} set bits`);
    return { kind, data: words, card };
  }
  if (kind === RUN) {
    const runs = readU16s(r, (r.i16() & 0xffff) * 2);
    let total = 0;
    let end = -2;
    for (let i = 0; i < runs.length; i += 2) {
      const start = runs[i]!;
      const last = start + runs[i + 1]!;
      if (start <= end + 1 || last >= FULL) throw r.corrupt("run container runs overlap, touch, are unsorted or pass 65535");
      total += last - start + 1;
      end = last;
    }
    if (total !== card) throw r.corrupt(`run container cardinality ${card} is not its ${total} values`);
    return { kind, data: runs, card };
  }
  throw r.corrupt(`unknown container type ${kind}`);
}

function writeContainer(w: ByteWriter, c: Container): void {
  w.u8(1).u8(c.kind).i32(c.card);
  if (c.kind === BITMAP) for (const word of c.data) w.i32(word);
  else {
    if (c.kind === RUN) w.i16(c.data.length / 2);
    for (const v of c.data) w.i16(v);
  }
}

// ---------------------------------------------------------------- ART

function newInner(type: Inner["type"], prefix: Uint8Array): Inner {
  const keys = new Uint8Array(KEY_SLOTS[type]!);
  if (type === NODE48) keys.fill(EMPTY_SLOT);
  return { type, prefix, count: 0, keys, children: new Array<Node | null>(CAPACITY[type]!).fill(null) };
}

/** The positions of an inner node's children in key order (Node48 / Node256: the key bytes). */
function positions(n: Inner): number[] {
  if (n.type === NODE4 || n.type === NODE16) return Array.from({ length: n.count }, (_, i) => i);
  const out: number[] = [];
  for (let b = 0; b < 256; b++) if (n.type === NODE48 ? n.keys[b] !== EMPTY_SLOT : n.keys[b] === 1) out.push(b);
  return out;
}

function childAt(n: Inner, pos: number): Node {
  return n.children[n.type === NODE48 ? n.keys[pos]! : pos]!;
}

function childPos(n: Inner, b: number): number {
  if (n.type === NODE48) return n.keys[b] === EMPTY_SLOT ? -1 : b;
  if (n.type === NODE256) return n.children[b] ? b : -1;
  for (let i = 0; i < n.count; i++) if (n.keys[i] === b) return i;
  return -1;
}

/** Node.sortSmallByteArray: insertion sort of keys[left..right] (unsigned) with their children. */
function sortKeys(n: Inner, left: number, right: number): void {
  const { keys, children } = n;
  for (let i = left, j = i; i < right; j = ++i) {
    const ai = keys[i + 1]!;
    const child = children[i + 1]!;
    while (ai < keys[j]!) {
      keys[j + 1] = keys[j]!;
      children[j + 1] = children[j]!;
      if (j-- === left) break;
    }
    keys[j + 1] = ai;
    children[j + 1] = child;
  }
}

/** Node.insertLeaf (Node4.insert, Node16.insert, Node48.insert, Node256.insert): the node, or the one it grew into. */
function insertChild(n: Inner, child: Node, b: number): Inner {
  switch (n.type) {
    case NODE4:
    case NODE16: {
      if (n.count < CAPACITY[n.type]!) {
        n.keys[n.count] = b;
        n.children[n.count] = child;
        sortKeys(n, 0, n.count);
        n.count++;
        return n;
      }
      if (n.type === NODE4) {
        const grown = newInner(NODE16, n.prefix);
        grown.keys.set(n.keys);
        for (let i = 0; i < 4; i++) grown.children[i] = n.children[i]!;
        grown.count = 4;
        return insertChild(grown, child, b);
      }
      const grown = newInner(NODE48, n.prefix);
      for (let i = 0; i < n.count; i++) {
        grown.keys[n.keys[i]!] = i;
        grown.children[i] = n.children[i]!;
      }
      grown.count = n.count;
      return insertChild(grown, child, b);
    }
    case NODE48: {
      if (n.count < 48) {
        let pos = n.count;
        if (n.children[pos] !== null) {
          pos = 0;
          while (n.children[pos] !== null) pos++;
        }
        n.children[pos] = child;
        n.keys[b] = pos;
        n.count++;
        return n;
      }
      const grown = newInner(NODE256, n.prefix);
      for (const pos of positions(n)) {
        grown.children[pos] = childAt(n, pos);
        grown.keys[pos] = 1;
      }
      grown.count = n.count;
      return insertChild(grown, child, b);
    }
    case NODE256:
      n.count++;
      n.children[b] = child;
      n.keys[b] = 1;
      return n;
  }
}

/** Index of the first difference of a[aFrom..aTo) and b[bFrom..bTo), relative; the shorter length when one is a prefix of the other. */
function mismatch(a: Uint8Array, aFrom: number, aTo: number, b: Uint8Array, bFrom: number, bTo: number): number {
  const n = Math.min(aTo - aFrom, bTo - bFrom);
  for (let i = 0; i < n; i++) if (a[aFrom + i] !== b[bFrom + i]) return i;
  return n;
}

/** Art.insert of a key not in the tree. */
function artInsert(node: Node | null, key: Uint8Array, depth: number, leaf: Leaf): Node {
  if (node === null) return leaf;
  if (node.type === LEAF) {
    const common = mismatch(node.key, depth, KEY_BYTES, key, depth, KEY_BYTES);
    node.prefix = new Uint8Array(0);
    const n4 = newInner(NODE4, key.slice(depth, depth + common));
    insertChild(n4, node, node.key[depth + common]!);
    insertChild(n4, leaf, key[depth + common]!);
    return n4;
  }
  const plen = node.prefix.length;
  if (plen > 0) {
    const at = mismatch(node.prefix, 0, plen, key, depth, KEY_BYTES);
    if (at !== plen) {
      const n4 = newInner(NODE4, node.prefix.slice(0, at));
      insertChild(n4, node, node.prefix[at]!);
      node.prefix = node.prefix.slice(at + 1);
      insertChild(n4, leaf, key[at + depth]!);
      return n4;
    }
    depth += plen;
  }
  const pos = childPos(node, key[depth]!);
  if (pos >= 0) {
    const child = childAt(node, pos);
    const fresh = artInsert(child, key, depth + 1, leaf);
    if (fresh !== child) node.children[node.type === NODE48 ? node.keys[pos]! : pos] = fresh;
    return node;
  }
  return insertChild(node, leaf, key[depth]!);
}

/** Containers.addContainer: the new container's (array, slot). */
function addContainer(b: Bitmap64, c: Container): [number, number] {
  if (b.secondLevelIdx + 1 === MAX_SLOT_OFFSET || b.firstLevelIdx === -1) {
    b.arrays.push([null]);
    b.firstLevelIdx++;
    b.secondLevelIdx = 0;
  } else b.secondLevelIdx++;
  const slots = b.arrays[b.firstLevelIdx]!;
  const min = b.secondLevelIdx + 1;
  if (min > slots.length) {
    let cap = slots.length + (slots.length >> 1);
    if (cap < min) cap = min;
    while (slots.length < cap) slots.push(null);
  }
  slots[b.secondLevelIdx] = c;
  b.containerSize++;
  return [b.firstLevelIdx, b.secondLevelIdx];
}

const keyNumber = (key: Uint8Array) => key.reduce((acc, byte) => acc * 256 + byte, 0);

// ---------------------------------------------------------------- (de)serialization

/** One node and its subtree, pre-order; leaves are appended to `leaves`. */
function readNode(r: ByteReader, path: Uint8Array, depth: number, leaves: Leaf[]): Node {
  const type = r.u8();
  const count = r.i16();
  const plen = r.u8();
  if (type > LEAF) throw r.corrupt(`unknown node type ${type}`);
  if (plen > KEY_BYTES) throw r.corrupt(`node prefix length ${plen} is over ${KEY_BYTES}`);
  const prefix = r.bytesOf(plen).slice();
  if (type === LEAF) {
    const key = r.bytesOf(KEY_BYTES).slice();
    const low = r.i32();
    const array = r.i32();
    if (depth > KEY_BYTES || mismatch(key, 0, depth, path, 0, depth) !== depth) throw r.corrupt("a leaf's key does not match its path in the tree");
    const leaf: Leaf = { type, prefix, count, key, array, slot: low };
    leaves.push(leaf);
    return leaf;
  }
  if (depth + plen >= KEY_BYTES) throw r.corrupt("an inner node is deeper than the 6 key bytes");
  if (count < 1 || count > CAPACITY[type]!) throw r.corrupt(`node of type ${type} has ${count} children`);
  const n = newInner(type as Inner["type"], prefix);
  n.count = count;
  const body = r.bytesOf(type === NODE4 ? 4 : type === NODE16 ? 16 : type === NODE48 ? 256 : 32);
  path.set(prefix, depth);
  const at = depth + plen;
  if (type === NODE4) for (let i = 0; i < 4; i++) n.keys[i] = body[3 - i]!;
  else if (type === NODE16) for (let i = 0; i < 16; i++) n.keys[i] = body[(i & 8) + 7 - (i & 7)]!;
  else if (type === NODE48) for (let i = 0; i < 256; i++) n.keys[i] = body[(i & ~7) + 7 - (i & 7)]!;
  else for (let i = 0; i < 256; i++) n.keys[i] = (body[i >>> 3]! >>> (i & 7)) & 1;
  // the children's key bytes, in key order
  let bytes: number[];
  if (type === NODE4 || type === NODE16) {
    bytes = Array.from(n.keys.subarray(0, count));
    for (let i = 1; i < count; i++) if (bytes[i]! <= bytes[i - 1]!) throw r.corrupt("node keys are not strictly increasing");
  } else {
    bytes = positions(n);
    if (bytes.length !== count) throw r.corrupt(`node of type ${type} has ${bytes.length} keys but a count of ${count}`);
    if (type === NODE48) {
      const seen = new Set<number>();
      for (const b of bytes) {
        const slot = n.keys[b]!;
        if (slot >= 48 || seen.has(slot)) throw r.corrupt("Node48 child slots are out of range or repeated");
        seen.add(slot);
      }
    }
  }
  bytes.forEach((b, i) => {
    path[at] = b;
    n.children[type === NODE48 ? n.keys[b]! : type === NODE256 ? b : i] = readNode(r, path, at + 1, leaves);
  });
  return n;
}

function writeNode(w: ByteWriter, node: Node): void {
  w.u8(node.type);
  w.i16(node.count);
  w.u8(node.prefix.length);
  w.bytes(node.prefix);
  if (node.type === LEAF) {
    w.bytes(node.key);
    w.i32(node.slot);
    w.i32(node.array);
    return;
  }
  const k = node.keys;
  const body = new Uint8Array(node.type === NODE4 ? 4 : node.type === NODE16 ? 16 : node.type === NODE48 ? 256 : 32);
  if (node.type === NODE4) for (let i = 0; i < 4; i++) body[3 - i] = k[i]!;
  else if (node.type === NODE16) for (let i = 0; i < 16; i++) body[(i & 8) + 7 - (i & 7)] = k[i]!;
  else if (node.type === NODE48) for (let i = 0; i < 256; i++) body[(i & ~7) + 7 - (i & 7)] = k[i]!;
  else for (let i = 0; i < 256; i++) body[i >>> 3]! |= k[i]! << (i & 7);
  w.bytes(body);
  for (const pos of positions(node)) writeNode(w, childAt(node, pos));
}

function readBitmap(bytes: Uint8Array, what: string): Bitmap64 {
  const r = new ByteReader(bytes, `${what}: not a valid Roaring64Bitmap serialization`, 0, bytes.length, true);
  const b: Bitmap64 = { keySize: 0, leaves: [], root: null, arrays: [], containerSize: 0, firstLevelIdx: -1, secondLevelIdx: 0 };
  const tag = r.u8();
  if (tag > 1) throw r.corrupt(`empty tag ${tag} is neither 0 nor 1`);
  if (tag === 1) {
    b.keySize = readCount(r, "key count");
    b.root = readNode(r, new Uint8Array(KEY_BYTES), 0, b.leaves);
    const arrays = r.i32();
    if (arrays < 1 || arrays * 5 > r.remaining) throw r.corrupt(`container array count ${arrays} does not fit the ${r.remaining} bytes left`);
    for (let a = 0; a < arrays; a++) {
      if (r.u8() !== NOT_TRIMMED) throw r.corrupt("a container array is not marked untrimmed (0xFE)");
      const n = r.i32();
      if (n < 1 || n > r.remaining) throw r.corrupt(`container slot count ${n} does not fit the ${r.remaining} bytes left`);
      const slots = new Array<Container | null>(n).fill(null);
      for (let s = 0; s < n; s++) {
        const mark = r.u8();
        if (mark === 1) slots[s] = readContainer(r);
        else if (mark !== 0) throw r.corrupt(`container null mark ${mark} is neither 0 nor 1`);
      }
      b.arrays.push(slots);
    }
    b.containerSize = readCount(r, "container count");
    b.firstLevelIdx = r.i32();
    b.secondLevelIdx = r.i32();
    const last = b.arrays[b.arrays.length - 1]!;
    if (b.firstLevelIdx !== b.arrays.length - 1 || b.secondLevelIdx < 0 || b.secondLevelIdx >= last.length || last.slice(b.secondLevelIdx + 1).some((c) => c !== null)) {
      throw r.corrupt(`container position (${b.firstLevelIdx}, ${b.secondLevelIdx}) does not end the ${b.arrays.length} container arrays`);
    }
    const used = new Set<Container>();
    for (const leaf of b.leaves) {
      const c = b.arrays[leaf.array]?.[leaf.slot];
      if (!c || used.has(c)) throw r.corrupt(`a leaf refers to container (${leaf.array}, ${leaf.slot}), missing or already used`);
      used.add(c);
    }
    const present = b.arrays.reduce((n, slots) => n + slots.filter((c) => c !== null).length, 0);
    const keys = b.leaves.length;
    if (keys !== b.keySize || present !== b.containerSize || used.size !== present) throw r.corrupt(`${keys} keys, ${b.keySize} counted, ${present} containers, ${b.containerSize} counted`);
  }
  if (r.remaining !== 0) throw r.corrupt(`${r.remaining} bytes after the bitmap`);
  return b;
}

function writeBitmap(b: Bitmap64): Uint8Array {
  const w = new ByteWriter(true);
  if (b.root === null) return w.u8(0).toBytes();
  w.u8(1).i64(BigInt(b.keySize));
  writeNode(w, b.root);
  w.i32(b.arrays.length);
  for (const slots of b.arrays) {
    w.u8(NOT_TRIMMED);
    w.i32(slots.length);
    for (const c of slots) {
      if (c === null) w.u8(0);
      else writeContainer(w, c);
    }
  }
  w.i64(BigInt(b.containerSize)).i32(b.firstLevelIdx).i32(b.secondLevelIdx);
  return w.toBytes();
}

/**
 * Java Paimon's `FieldRoaringBitmap64Agg.agg` of two non-null values: both deserialized as
 * RoaringBitmap 1.2.1 `Roaring64Bitmap`s, `acc.or(input)`, `runOptimize`, serialized, with Java's
 * bytes. `what` names the value in errors (CORRUPT_FILE for bytes that are not such a bitmap).
 */
export function roaring64Or(acc: Uint8Array, input: Uint8Array, what: string): Uint8Array {
  const a = readBitmap(acc, what);
  const b = readBitmap(input, what);
  const known = new Map<number, Leaf>();
  for (const leaf of a.leaves) known.set(keyNumber(leaf.key), leaf);
  for (const leaf of b.leaves) {
    const other = b.arrays[leaf.array]![leaf.slot]!;
    const mine = known.get(keyNumber(leaf.key));
    if (mine) {
      a.arrays[mine.array]![mine.slot] = containerOr(a.arrays[mine.array]![mine.slot]!, other);
      continue;
    }
    const [array, slot] = addContainer(a, other);
    const fresh: Leaf = { type: LEAF, prefix: new Uint8Array(0), count: 0, key: leaf.key.slice(), array, slot };
    a.root = artInsert(a.root, fresh.key, 0, fresh);
    a.keySize++;
  }
  for (const slots of a.arrays) for (let s = 0; s < slots.length; s++) if (slots[s]) slots[s] = runOptimized(slots[s]!);
  return writeBitmap(a);
}
