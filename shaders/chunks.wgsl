// Bucket-accumulation chunks (smvp.wgsl). Window w's CSR entries lie at [w·n, w·n + E_w),
// grouped by bucket, and are cut into chunks of S = plan.chunk_len entries; chunk c = w·C + k
// holds entries [w·n + k·S, min(w·n + (k+1)·S, w·n + E_w)).
// A bucket that spans chunks is left in pieces (its first in buckets[], the others in the carry
// slots of the later chunks); bucket_reduce.wgsl adds them up. Empty buckets are never written.
// Importing templates import common, field and curve first.

@group(0) @binding(0) var<uniform> plan: Plan;
@group(0) @binding(1) var<storage, read> bucket_starts: array<u32>;
// After stage 2 the cursors hold each bucket's end offset.
@group(0) @binding(2) var<storage, read> bucket_ends: array<u32>;
@group(0) @binding(3) var<storage, read> entries: array<u32>;
// Stored point i: stored_unpack_halves(points_front[i], points_back[i]).
@group(0) @binding(4) var<storage, read> points_front: array<StoredFront>;
@group(0) @binding(8) var<storage, read> points_back: array<StoredBack>;
// buckets[w·h + b − 1]: the sum of bucket b of window w.
@group(0) @binding(5) var<storage, read_write> buckets: array<PointPacked>;
// carries[w·C + k]: chunk k's piece of the bucket that was already open when the chunk began.
@group(0) @binding(6) var<storage, read_write> carries: array<PointPacked>;

// The bucket of window w (global index w·h + b) whose entries contain CSR offset `entry`: the
// last bucket starting at or before it. Empty buckets start where the next one starts, so the
// last one found is never empty.
fn bucket_containing(w: u32, entry: u32) -> u32 {
    var lo = w * plan.num_buckets;
    var hi = lo + plan.num_buckets - 1u;
    while (lo < hi) {
        let mid = hi - (hi - lo) / 2u;
        if (bucket_starts[mid] <= entry) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    return lo;
}

// The next non-empty bucket after bucket j, whose entries start at `entry`.
fn next_bucket(j: u32, entry: u32) -> u32 {
    var next = j + 1u;
    while (bucket_ends[next] == entry) {
        next = next + 1u;
    }
    return next;
}

// Chunk c's entries [start, end); start ≥ end when the chunk lies past its window's last entry.
fn chunk_range(c: u32) -> vec2<u32> {
    let w = c / plan.chunks_per_window;
    let start = w * plan.n + (c % plan.chunks_per_window) * plan.chunk_len;
    let window_end = bucket_ends[(w + 1u) * plan.num_buckets - 1u];
    return vec2<u32>(start, min(start + plan.chunk_len, window_end));
}

// Stores chunk `chunk`'s sum `acc` of bucket j's points, given the chunk's first entry: the piece
// of a bucket that began in an earlier chunk goes to the chunk's carry slot.
fn flush(j: u32, acc: Point, chunk: u32, chunk_start: u32) {
    if (bucket_starts[j] < chunk_start) {
        carries[chunk] = point_pack(acc);
    } else {
        buckets[j] = point_pack(acc);
    }
}

// p plus the stored point of CSR entry e (bucket accumulation's step). Where products run one
// after another and stored points are in Niels form (STORED_READ_AT_USE), each stored
// coordinate is read from storage at the one product that takes it (add_niels_entry);
// elsewhere the point is loaded whole.
fn add_entry(p: Point, e: u32) -> Point {
#if STORED_READ_AT_USE
    let entry = entries[e];
    return add_niels_entry(p, entry & ENTRY_INDEX_MASK, (entry & DIGIT_NEGATIVE) != 0u);
#else
    return point_add_stored(p, load_entry(e));
#endif
}

#if STORED_READ_AT_USE
// HWCD's mixed addition of stored point i (negated where `negative`), the same values as
// point_add_stored's, with each stored coordinate read from storage just before its product:
// loaded whole, the stored point holds registers through every product on a real GPU compiler.
// Negation swaps y − x with y + x and negates 2d·t. Y − X and Y + X are formed first, so that
// X and Y are not live across a product.
fn add_niels_entry(p: Point, i: u32, negative: bool) -> Point {
    let y_minus_x = field_sub_lazy(p.y, p.x);
    let y_plus_x = field_add_lazy(p.y, p.x);
    let a = field_mul(y_minus_x, field_unpack(points_front[i].c[select(0u, 1u, negative)]));
    let b = field_mul(y_plus_x, field_unpack(points_front[i].c[select(1u, 0u, negative)]));
    var t2d = field_unpack(points_back[i].c[0]);
    if (negative) {
        t2d = field_neg(t2d);
    }
    let c = field_mul(p.t, t2d);
#if STORED_NIELS_Z
    let d = field_mul(p.z, field_unpack(points_back[i].c[1]));
#else
    let d = field_double(p.z);
#endif
    return point_combine(a, b, c, d);
}
#endif

// The stored point of CSR entry e, negated when its digit was negative.
fn load_entry(e: u32) -> Stored {
    let entry = entries[e];
    let i = entry & ENTRY_INDEX_MASK;
    let q = stored_unpack_halves(points_front[i], points_back[i]);
    if ((entry & DIGIT_NEGATIVE) != 0u) {
        return stored_negate(q);
    }
    return q;
}
