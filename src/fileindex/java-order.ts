// Java iteration orders that Paimon's file-index writers leak into their bytes: the order
// of columns and index types in a FileIndexFormat header (several nested `HashMap`s keyed by
// String) and the order of bitmaps in a bitmap index body (`HashMap<Object, RoaringBitmap32>`
// filled with `computeIfAbsent`). Writing byte-identical blobs means replaying those maps.
//
// JDK `java.util.HashMap` (8 – 25) rules replayed here: a bucket is
// `(h ^ (h >>> 16)) & (capacity - 1)`; the table starts at 16 slots, threshold 12, and
// doubles; `put` appends to its bucket and resizes after inserting when `size > threshold`;
// `computeIfAbsent` resizes *before* looking up (also for keys already present) when
// `size > threshold`, and inserts at the head of its bucket; a resize keeps the relative
// order inside each bucket; a bucket reaching 8 (`computeIfAbsent`) / 9 (`put`) nodes
// resizes instead of becoming a tree while the table has fewer than 64 slots, and becomes a
// tree bin (a red-black tree ordered by hash, then `compareTo`) once it has 64. Iteration is
// bucket by bucket, each bucket along its node list; a tree bin's list keeps the tree's root
// first and links a new node right after its tree parent, so its order follows the tree's
// shape — replayed here with the JDK's insertion, deletion, rebalancing, resize split (a half
// of 6 or fewer nodes becomes a list again) and untreeify rules. Keys are ordered in a tree by
// hash, then by `compare` (Java's `compareTo`); distinct keys with equal hash codes and no
// order (a class that is not `Comparable`, such as `BinaryRow`) are ordered by JVM identity
// hash codes, which cannot be replayed: `unreplayable` reports it.

import { javaStringCompare, javaStringHash } from "./java-hash.js";

/** How keys enter the map: `put` (appended to the bucket) or `computeIfAbsent` (prepended). */
export type JavaInsertion = "put" | "computeIfAbsent";

const INITIAL_CAPACITY = 16;
const MIN_TREEIFY_CAPACITY = 64;
const TREEIFY_THRESHOLD = 8;
const UNTREEIFY_THRESHOLD = 6;
const NONE = -1;

/**
 * Replays the shape of one `java.util.HashMap` as keys are inserted (and removed), assigning
 * each inserted key an id (0, 1, …) in insertion order; a key removed and inserted again gets
 * a new id (Java appends it to its bucket again).
 *
 * While no bucket has become a tree the order is bucket, then insertion id (no per-bucket
 * lists are kept: the bitmap index writer inserts every distinct value of a column); from the
 * first tree bin on the buckets are kept as the JDK keeps them (`TreeBins`).
 */
export class JavaHashMapReplay<K> {
  private readonly ids = new Map<K, number>();
  private readonly keys: K[] = [];
  private hashes = new Int32Array(16);
  /** Per id: 1 while the key is in the map. */
  private live = new Uint8Array(16);
  private bucketSizes = new Int32Array(0);
  private capacity = 0;
  private threshold = 0;
  /** The JDK's node lists and trees, from the first tree bin on. */
  private bins: TreeBins | undefined;
  /**
   * Whether two distinct keys of one tree bin had equal hash codes and `compare` did not order
   * them: Java then orders them by identity hash codes and the iteration order is not replayed.
   */
  unreplayable = false;

  /**
   * @param compare Java's `compareTo` of the keys (only its sign is used), consulted for keys of
   *   equal hash code in a tree bin; without it such keys make the map `unreplayable`.
   */
  constructor(
    private readonly insertion: JavaInsertion,
    private readonly hashOf: (key: K) => number,
    private readonly compare?: (a: K, b: K) => number,
  ) {}

  get size(): number {
    return this.ids.size;
  }

  /** Whether some bucket has become a tree bin (it may have become a list again since). */
  get hadTreeBin(): boolean {
    return this.bins !== undefined;
  }

  /** The id of `key`, inserting it when absent (one `put` / `computeIfAbsent` call). */
  insert(key: K): number {
    if (this.insertion === "computeIfAbsent" && (this.capacity === 0 || this.ids.size > this.threshold)) this.resize();
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    if (this.capacity === 0) this.resize();
    const id = this.keys.length;
    const hash = spread(this.hashOf(key));
    if (id === this.hashes.length) {
      this.hashes = grownInt32(this.hashes, id * 2);
      const live = new Uint8Array(id * 2);
      live.set(this.live);
      this.live = live;
      this.bins?.grow(id * 2, this.hashes);
    }
    this.hashes[id] = hash;
    this.live[id] = 1;
    this.keys.push(key);
    this.ids.set(key, id);
    const bucket = hash & (this.capacity - 1);
    const limit = this.insertion === "put" ? TREEIFY_THRESHOLD : TREEIFY_THRESHOLD - 1;
    if (this.bins) {
      const before = this.bins.link(bucket, id, this.insertion);
      if (before >= limit) this.treeifyBin(bucket);
    } else {
      const before = this.bucketSizes[bucket]!;
      this.bucketSizes[bucket] = before + 1;
      if (before >= limit) this.treeifyBin(bucket);
    }
    if (this.insertion === "put" && this.ids.size > this.threshold) this.resize();
    return id;
  }

  /** The id of `key` while it is in the map (`get` / `containsKey`). */
  idOf(key: K): number | undefined {
    return this.ids.get(key);
  }

  /** `remove(key)`: unlinks it from its bucket (the table never shrinks); whether it was there. */
  remove(key: K): boolean {
    const id = this.ids.get(key);
    if (id === undefined) return false;
    this.ids.delete(key);
    this.live[id] = 0;
    const bucket = this.hashes[id]! & (this.capacity - 1);
    if (this.bins) this.bins.unlink(bucket, id);
    else this.bucketSizes[bucket]!--;
    return true;
  }

  /** Ids of the keys in the map, in its iteration order. */
  iterationOrder(): Int32Array {
    if (this.bins) return this.bins.order(this.ids.size);
    const order = Int32Array.from(this.ids.values());
    const mask = this.capacity - 1;
    const head = this.insertion === "computeIfAbsent";
    order.sort((a, b) => (this.hashes[a]! & mask) - (this.hashes[b]! & mask) || (head ? b - a : a - b));
    return order;
  }

  /** Keys in the map, by id (insertion order). */
  keysInInsertionOrder(): IterableIterator<K> {
    return this.ids.keys();
  }

  /** Keys in the map's iteration order. */
  keysInOrder(): K[] {
    return Array.from(this.iterationOrder(), (id) => this.keys[id]!);
  }

  /** `treeifyBin`: a small table grows instead; else the bucket's list becomes a tree. */
  private treeifyBin(bucket: number): void {
    if (this.capacity < MIN_TREEIFY_CAPACITY) {
      this.resize();
      return;
    }
    if (!this.bins) {
      // from here on the JDK's lists: link every bucket in the order iteration has so far
      const order = this.iterationOrder();
      this.bins = new TreeBins(this.hashes, this.capacity, this.hashes.length, (a, b) => this.order(a, b));
      this.bins.linkInOrder(order);
    }
    this.bins.treeify(bucket);
  }

  /** The JDK's tree direction of key `a` against key `b` of equal hash: `compareTo`, else a tie. */
  private order(a: number, b: number): number {
    const c = this.compare ? this.compare(this.keys[a]!, this.keys[b]!) : 0;
    if (c !== 0) return c;
    this.unreplayable = true; // Java: tieBreakOrder by System.identityHashCode
    return -1;
  }

  private resize(): void {
    if (this.capacity === 0) {
      this.capacity = INITIAL_CAPACITY;
      this.threshold = (INITIAL_CAPACITY * 3) / 4;
    } else {
      this.capacity *= 2;
      this.threshold *= 2;
    }
    if (this.bins) {
      this.bins.resize(this.capacity);
      return;
    }
    this.bucketSizes = new Int32Array(this.capacity);
    const mask = this.capacity - 1;
    for (let i = 0; i < this.keys.length; i++) if (this.live[i]) this.bucketSizes[this.hashes[i]! & mask]!++;
  }
}

/**
 * A HashMap table as the JDK keeps it once a bucket has become a tree bin: per bucket the head
 * of its node list and whether it is a tree bin; per node (key id) its list and red-black tree
 * links. The red-black tree code follows the JDK's `HashMap.TreeNode` step by step (its shape
 * decides the list order).
 */
class TreeBins {
  private head: Int32Array;
  private tree: Uint8Array;
  private next: Int32Array;
  private prev: Int32Array;
  private left: Int32Array;
  private right: Int32Array;
  private parent: Int32Array;
  private red: Uint8Array;
  private mask: number;

  constructor(
    private hashes: Int32Array,
    capacity: number,
    ids: number,
    /** Direction of node `a` against node `b` of equal hash (never 0). */
    private readonly tieOrder: (a: number, b: number) => number,
  ) {
    this.head = new Int32Array(capacity).fill(NONE);
    this.tree = new Uint8Array(capacity);
    this.mask = capacity - 1;
    this.next = new Int32Array(ids).fill(NONE);
    this.prev = new Int32Array(ids).fill(NONE);
    this.left = new Int32Array(ids).fill(NONE);
    this.right = new Int32Array(ids).fill(NONE);
    this.parent = new Int32Array(ids).fill(NONE);
    this.red = new Uint8Array(ids);
  }

  /** Room for `ids` nodes; `hashes` is the replay's grown copy of the node hashes. */
  grow(ids: number, hashes: Int32Array): void {
    this.hashes = hashes;
    const grow = (a: Int32Array) => {
      const out = new Int32Array(ids).fill(NONE);
      out.set(a);
      return out;
    };
    this.next = grow(this.next);
    this.prev = grow(this.prev);
    this.left = grow(this.left);
    this.right = grow(this.right);
    this.parent = grow(this.parent);
    const red = new Uint8Array(ids);
    red.set(this.red);
    this.red = red;
  }

  /** Links the live ids of `order` (bucket by bucket, as iteration meets them) as list bins. */
  linkInOrder(order: Int32Array): void {
    let last = NONE;
    for (const id of order) {
      const bucket = this.hashes[id]! & this.mask;
      if (last !== NONE && (this.hashes[last]! & this.mask) === bucket) {
        this.next[last] = id;
        this.prev[id] = last;
      } else this.head[bucket] = id;
      last = id;
    }
  }

  /** Adds new node `id` to `bucket` (`put`: list tail or tree; `computeIfAbsent`: list head or tree); the nodes it had (for list bins). */
  link(bucket: number, id: number, insertion: JavaInsertion): number {
    const { next } = this;
    next[id] = this.prev[id] = this.left[id] = this.right[id] = this.parent[id] = NONE;
    this.red[id] = 0;
    const first = this.head[bucket]!;
    if (first === NONE) {
      this.head[bucket] = id;
      return 0;
    }
    if (this.tree[bucket]) {
      this.putTreeVal(first, id);
      return 0;
    }
    let count = 1;
    let tail = first;
    while (next[tail] !== NONE) {
      tail = next[tail]!;
      count++;
    }
    if (insertion === "put") {
      next[tail] = id;
      this.prev[id] = tail;
    } else {
      next[id] = first;
      this.prev[first] = id;
      this.head[bucket] = id;
    }
    return count;
  }

  /** `removeNode` of node `id` from `bucket`. */
  unlink(bucket: number, id: number): void {
    if (this.tree[bucket]) {
      this.removeTreeNode(bucket, id);
      return;
    }
    const { next } = this;
    if (this.head[bucket] === id) this.head[bucket] = next[id]!;
    else {
      let p = this.head[bucket]!;
      while (next[p] !== id) p = next[p]!;
      next[p] = next[id]!;
    }
  }

  /** Node ids bucket by bucket along each list. */
  order(size: number): Int32Array {
    const out = new Int32Array(size);
    let at = 0;
    for (let b = 0; b < this.head.length; b++) for (let e = this.head[b]!; e !== NONE; e = this.next[e]!) out[at++] = e;
    return out;
  }

  /** The table doubled (`capacity` is the new size): list bins split in order, tree bins by `split`. */
  resize(capacity: number): void {
    const oldHead = this.head;
    const oldTree = this.tree;
    const oldCap = oldHead.length;
    this.head = new Int32Array(capacity).fill(NONE);
    this.tree = new Uint8Array(capacity);
    this.mask = capacity - 1;
    const { next, prev, hashes } = this;
    for (let j = 0; j < oldCap; j++) {
      const e = oldHead[j]!;
      if (e === NONE) continue;
      if (next[e] === NONE) {
        const b = hashes[e]! & this.mask;
        this.head[b] = e;
        this.tree[b] = oldTree[j]!;
        continue;
      }
      let loHead = NONE;
      let loTail = NONE;
      let hiHead = NONE;
      let hiTail = NONE;
      let lc = 0;
      let hc = 0;
      for (let x = e, nx: number; x !== NONE; x = nx) {
        nx = next[x]!;
        next[x] = NONE;
        if ((hashes[x]! & oldCap) === 0) {
          if ((prev[x] = loTail) === NONE) loHead = x;
          else next[loTail] = x;
          loTail = x;
          lc++;
        } else {
          if ((prev[x] = hiTail) === NONE) hiHead = x;
          else next[hiTail] = x;
          hiTail = x;
          hc++;
        }
      }
      if (!oldTree[j]) {
        this.head[j] = loHead;
        this.head[j + oldCap] = hiHead;
        continue;
      }
      // TreeNode.split: a half of at most 6 nodes untreeifies; a half that kept every node keeps its tree
      if (loHead !== NONE) {
        this.head[j] = loHead;
        if (lc > UNTREEIFY_THRESHOLD) {
          this.tree[j] = 1;
          if (hiHead !== NONE) this.treeify(j);
        }
      }
      if (hiHead !== NONE) {
        this.head[j + oldCap] = hiHead;
        if (hc > UNTREEIFY_THRESHOLD) {
          this.tree[j + oldCap] = 1;
          if (loHead !== NONE) this.treeify(j + oldCap);
        }
      }
    }
  }

  /** `TreeNode.treeify` of `bucket`'s list: insert its nodes in list order, then move the root to the front. */
  treeify(bucket: number): void {
    const { next, prev, left, right, parent, hashes } = this;
    this.tree[bucket] = 1;
    // treeifyBin links TreeNodes both ways in list order (list bins kept no back links)
    for (let x = this.head[bucket]!, before = NONE; x !== NONE; before = x, x = next[x]!) prev[x] = before;
    let root = NONE;
    for (let x = this.head[bucket]!, nx: number; x !== NONE; x = nx) {
      nx = next[x]!;
      left[x] = right[x] = NONE;
      if (root === NONE) {
        parent[x] = NONE;
        this.red[x] = 0;
        root = x;
        continue;
      }
      const h = hashes[x]!;
      for (let p = root; ; ) {
        const ph = hashes[p]!;
        const dir = ph > h ? -1 : ph < h ? 1 : this.tieOrder(x, p);
        const xp = p;
        p = dir <= 0 ? left[p]! : right[p]!;
        if (p === NONE) {
          parent[x] = xp;
          if (dir <= 0) left[xp] = x;
          else right[xp] = x;
          root = this.balanceInsertion(root, x);
          break;
        }
      }
    }
    this.moveRootToFront(root);
  }

  /** `putTreeVal` of new node `x` (absent from the tree) into the tree bin whose list starts at `first`. */
  private putTreeVal(first: number, x: number): void {
    const { next, prev, left, right, parent, hashes } = this;
    const root = this.rootOf(first);
    const h = hashes[x]!;
    for (let p = root; ; ) {
      const ph = hashes[p]!;
      const dir = ph > h ? -1 : ph < h ? 1 : this.tieOrder(x, p);
      const xp = p;
      p = dir <= 0 ? left[p]! : right[p]!;
      if (p === NONE) {
        const xpn = next[xp]!;
        next[x] = xpn;
        if (dir <= 0) left[xp] = x;
        else right[xp] = x;
        next[xp] = x;
        parent[x] = prev[x] = xp;
        if (xpn !== NONE) prev[xpn] = x;
        this.moveRootToFront(this.balanceInsertion(root, x));
        return;
      }
    }
  }

  /** `removeTreeNode(movable = true)` of node `p` from tree bin `bucket`. */
  private removeTreeNode(bucket: number, p: number): void {
    const { next, prev, left, right, parent, red } = this;
    let first = this.head[bucket]!;
    let root = first;
    const succ = next[p]!;
    const pred = prev[p]!;
    if (pred === NONE) this.head[bucket] = first = succ;
    else next[pred] = succ;
    if (succ !== NONE) prev[succ] = pred;
    if (first === NONE) {
      this.tree[bucket] = 0;
      return;
    }
    if (parent[root] !== NONE) root = this.rootOf(root);
    let rl: number;
    if (root === NONE || right[root] === NONE || (rl = left[root]!) === NONE || left[rl] === NONE) {
      this.tree[bucket] = 0; // untreeify: too small; the list stays as it is
      return;
    }
    const pl = left[p]!;
    const pr = right[p]!;
    let replacement: number;
    if (pl !== NONE && pr !== NONE) {
      let s = pr;
      for (let sl = left[s]!; sl !== NONE; sl = left[s]!) s = sl; // the successor
      const c = red[s]!;
      red[s] = red[p]!;
      red[p] = c;
      const sr = right[s]!;
      const pp = parent[p]!;
      if (s === pr) {
        parent[p] = s;
        right[s] = p;
      } else {
        const sp = parent[s]!;
        if ((parent[p] = sp) !== NONE) {
          if (s === left[sp]) left[sp] = p;
          else right[sp] = p;
        }
        if ((right[s] = pr) !== NONE) parent[pr] = s;
      }
      left[p] = NONE;
      if ((right[p] = sr) !== NONE) parent[sr] = p;
      if ((left[s] = pl) !== NONE) parent[pl] = s;
      if ((parent[s] = pp) === NONE) root = s;
      else if (p === left[pp]) left[pp] = s;
      else right[pp] = s;
      replacement = sr !== NONE ? sr : p;
    } else if (pl !== NONE) replacement = pl;
    else if (pr !== NONE) replacement = pr;
    else replacement = p;
    if (replacement !== p) {
      const pp = (parent[replacement] = parent[p]!);
      if (pp === NONE) {
        root = replacement;
        red[root] = 0;
      } else if (p === left[pp]) left[pp] = replacement;
      else right[pp] = replacement;
      left[p] = right[p] = parent[p] = NONE;
    }
    const r = red[p] ? root : this.balanceDeletion(root, replacement);
    if (replacement === p) {
      const pp = parent[p]!;
      parent[p] = NONE;
      if (pp !== NONE) {
        if (p === left[pp]) left[pp] = NONE;
        else if (p === right[pp]) right[pp] = NONE;
      }
    }
    this.moveRootToFront(r);
  }

  private rootOf(x: number): number {
    for (let p = this.parent[x]!; p !== NONE; p = this.parent[x]!) x = p;
    return x;
  }

  private moveRootToFront(root: number): void {
    if (root === NONE) return;
    const { next, prev } = this;
    const index = this.hashes[root]! & this.mask;
    const first = this.head[index]!;
    if (root === first) return;
    this.head[index] = root;
    const rp = prev[root]!;
    const rn = next[root]!;
    if (rn !== NONE) prev[rn] = rp;
    if (rp !== NONE) next[rp] = rn;
    if (first !== NONE) prev[first] = root;
    next[root] = first;
    prev[root] = NONE;
  }

  private rotateLeft(root: number, p: number): number {
    const { left, right, parent } = this;
    const r = p === NONE ? NONE : right[p]!;
    if (r === NONE) return root;
    const rl = (right[p] = left[r]!);
    if (rl !== NONE) parent[rl] = p;
    const pp = (parent[r] = parent[p]!);
    if (pp === NONE) {
      root = r;
      this.red[r] = 0;
    } else if (left[pp] === p) left[pp] = r;
    else right[pp] = r;
    left[r] = p;
    parent[p] = r;
    return root;
  }

  private rotateRight(root: number, p: number): number {
    const { left, right, parent } = this;
    const l = p === NONE ? NONE : left[p]!;
    if (l === NONE) return root;
    const lr = (left[p] = right[l]!);
    if (lr !== NONE) parent[lr] = p;
    const pp = (parent[l] = parent[p]!);
    if (pp === NONE) {
      root = l;
      this.red[l] = 0;
    } else if (right[pp] === p) right[pp] = l;
    else left[pp] = l;
    right[l] = p;
    parent[p] = l;
    return root;
  }

  private balanceInsertion(root: number, x: number): number {
    const { left, right, parent, red } = this;
    red[x] = 1;
    for (;;) {
      let xp = parent[x]!;
      if (xp === NONE) {
        red[x] = 0;
        return x;
      }
      let xpp: number;
      if (!red[xp] || (xpp = parent[xp]!) === NONE) return root;
      const xppl = left[xpp]!;
      if (xp === xppl) {
        const xppr = right[xpp]!;
        if (xppr !== NONE && red[xppr]) {
          red[xppr] = 0;
          red[xp] = 0;
          red[xpp] = 1;
          x = xpp;
        } else {
          if (x === right[xp]) {
            root = this.rotateLeft(root, (x = xp));
            xp = parent[x]!;
            xpp = xp === NONE ? NONE : parent[xp]!;
          }
          if (xp !== NONE) {
            red[xp] = 0;
            if (xpp !== NONE) {
              red[xpp] = 1;
              root = this.rotateRight(root, xpp);
            }
          }
        }
      } else if (xppl !== NONE && red[xppl]) {
        red[xppl] = 0;
        red[xp] = 0;
        red[xpp] = 1;
        x = xpp;
      } else {
        if (x === left[xp]) {
          root = this.rotateRight(root, (x = xp));
          xp = parent[x]!;
          xpp = xp === NONE ? NONE : parent[xp]!;
        }
        if (xp !== NONE) {
          red[xp] = 0;
          if (xpp !== NONE) {
            red[xpp] = 1;
            root = this.rotateLeft(root, xpp);
          }
        }
      }
    }
  }

  private balanceDeletion(root: number, x: number): number {
    const { left, right, parent, red } = this;
    for (;;) {
      if (x === NONE || x === root) return root;
      let xp = parent[x]!;
      if (xp === NONE) {
        red[x] = 0;
        return x;
      }
      if (red[x]) {
        red[x] = 0;
        return root;
      }
      const xpl = left[xp]!;
      if (xpl === x) {
        let xpr = right[xp]!;
        if (xpr !== NONE && red[xpr]) {
          red[xpr] = 0;
          red[xp] = 1;
          root = this.rotateLeft(root, xp);
          xp = parent[x]!;
          xpr = xp === NONE ? NONE : right[xp]!;
        }
        if (xpr === NONE) x = xp;
        else {
          const sl = left[xpr]!;
          let sr = right[xpr]!;
          if ((sr === NONE || !red[sr]) && (sl === NONE || !red[sl])) {
            red[xpr] = 1;
            x = xp;
          } else {
            if (sr === NONE || !red[sr]) {
              if (sl !== NONE) red[sl] = 0;
              red[xpr] = 1;
              root = this.rotateRight(root, xpr);
              xp = parent[x]!;
              xpr = xp === NONE ? NONE : right[xp]!;
            }
            if (xpr !== NONE) {
              red[xpr] = xp === NONE ? 0 : red[xp]!;
              if ((sr = right[xpr]!) !== NONE) red[sr] = 0;
            }
            if (xp !== NONE) {
              red[xp] = 0;
              root = this.rotateLeft(root, xp);
            }
            x = root;
          }
        }
      } else {
        let l = xpl;
        if (l !== NONE && red[l]) {
          red[l] = 0;
          red[xp] = 1;
          root = this.rotateRight(root, xp);
          xp = parent[x]!;
          l = xp === NONE ? NONE : left[xp]!;
        }
        if (l === NONE) x = xp;
        else {
          let sl = left[l]!;
          const sr = right[l]!;
          if ((sl === NONE || !red[sl]) && (sr === NONE || !red[sr])) {
            red[l] = 1;
            x = xp;
          } else {
            if (sl === NONE || !red[sl]) {
              if (sr !== NONE) red[sr] = 0;
              red[l] = 1;
              root = this.rotateLeft(root, l);
              xp = parent[x]!;
              l = xp === NONE ? NONE : left[xp]!;
            }
            if (l !== NONE) {
              red[l] = xp === NONE ? 0 : red[xp]!;
              if ((sl = left[l]!) !== NONE) red[sl] = 0;
            }
            if (xp !== NONE) {
              red[xp] = 0;
              root = this.rotateRight(root, xp);
            }
            x = root;
          }
        }
      }
    }
  }
}

function grownInt32(a: Int32Array, length: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(length);
  out.set(a);
  return out;
}

/** `HashMap.hash`: the high half folded into the low half. */
function spread(h: number): number {
  return (h ^ (h >>> 16)) | 0;
}

/** The keys of a HashMap filled with `keys` in order, in its iteration order (`compare`: as for `JavaHashMapReplay`). */
export function javaHashMapOrder<K>(keys: Iterable<K>, insertion: JavaInsertion, hashOf: (key: K) => number, compare?: (a: K, b: K) => number): K[] {
  const map = new JavaHashMapReplay(insertion, hashOf, compare);
  for (const k of keys) map.insert(k);
  return map.keysInOrder();
}

/** The keys of a `HashMap<String, String>` filled by `put` in `keys` order (Java's table options), in its iteration order. */
export function javaOptionKeyOrder(keys: Iterable<string>): string[] {
  return javaHashMapOrder(keys, "put", javaStringHash, javaStringCompare);
}
