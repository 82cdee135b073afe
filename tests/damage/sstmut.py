"""sstmut.py — a stepscope trace (docs/trace-format.md) as chunks and records, and the damage
the hostile-input harness (harness.py) does to it.

The harness works on uncompressed traces written by damage-rechunk (small raw chunks), so a
mutation reaches any record with plain bytes. Every mutation here leaves the file damaged by
construction (what a reader must say): cut, flipped, chunks removed, repeated or moved with
valid checksums, an END chunk that claims what was not written, records with impossible times
whose chunk's checksum was made again, bytes after the END chunk.
"""
import struct

MAGIC = b"\x89SSTRACE"
CHUNK_MAGIC = 0x4B435353
CHUNK_HDR = struct.Struct("<IHHIIII")  # magic type flags stored_len raw_len seq crc
REC_HDR = struct.Struct("<HH")
T_RECORDS, T_END = 1, 2
TIME_LIMIT = 1 << 62

_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data, crc=0):
    """CRC32C (Castagnoli), continued from crc (the format's checksum)."""
    crc ^= 0xFFFFFFFF
    t = _TABLE
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


class Chunk:
    def __init__(self, ctype, flags, seq, payload):
        self.type, self.flags, self.seq, self.payload = ctype, flags, seq, bytes(payload)

    def encode(self):
        """The chunk's bytes with a correct checksum (a forger's chunk: every check passes)."""
        n = len(self.payload)
        h = CHUNK_HDR.pack(CHUNK_MAGIC, self.type, self.flags, n, n, self.seq, 0)
        crc = crc32c(self.payload, crc32c(h))
        return CHUNK_HDR.pack(CHUNK_MAGIC, self.type, self.flags, n, n, self.seq, crc) + self.payload


class Trace:
    """A whole, uncompressed trace: its 64-byte header and its chunks."""

    def __init__(self, data):
        assert data[:8] == MAGIC, "not a trace"
        hsize = struct.unpack_from("<H", data, 12)[0]
        self.header = data[:hsize]
        self.clock = data[15]
        self.start_ns = struct.unpack_from("<Q", data, 24)[0]
        self.chunks = []
        off = hsize
        while off + CHUNK_HDR.size <= len(data):
            magic, ctype, flags, stored, raw, seq, _ = CHUNK_HDR.unpack_from(data, off)
            assert magic == CHUNK_MAGIC and flags == 0 and stored == raw, "not a raw trace"
            body = data[off + CHUNK_HDR.size:off + CHUNK_HDR.size + stored]
            self.chunks.append(Chunk(ctype, flags, seq, body))
            off += CHUNK_HDR.size + stored
        assert off == len(data) and self.chunks[-1].type == T_END, "not a whole trace"

    def encode(self, chunks=None):
        return self.header + b"".join(c.encode() for c in (chunks or self.chunks))

    def records_chunks(self):
        return [i for i, c in enumerate(self.chunks) if c.type == T_RECORDS]

    def end(self):
        """END's fields: end_ns, records, dropped, chunks."""
        return struct.unpack_from("<QQQI", self.chunks[-1].payload, 0)


def records(payload):
    """(offset, type, size) of every record of a RECORDS payload."""
    out, off = [], 0
    while off + 4 <= len(payload):
        rtype, size = REC_HDR.unpack_from(payload, off)
        if size < 8:
            break
        out.append((off, rtype, size))
        off += size
    return out


def load_time_fields(lines):
    """{type: (name, first_offset, last_offset)} from `damage-rechunk --time-fields` (the C
    table, sst_rec_time_fields: the harness does not keep a copy of the layouts)."""
    fields = {}
    for line in lines:
        num, name, first, last = line.split()
        fields[int(num)] = (name, int(first), int(last))
    return fields


# ---- mutations: each returns (bytes, what) or None when the trace has nothing to mutate ----

def cut(data, rng, tr, tf):
    at = rng.randrange(1, len(data))
    return data[:at], "cut at byte %d of %d" % (at, len(data))


def flip(data, rng, tr, tf):
    d = bytearray(data)
    at = rng.randrange(len(d))
    bit = rng.randrange(8)
    d[at] ^= 1 << bit
    return bytes(d), "bit %d of byte %d flipped" % (bit, at)


def chunk_removed(data, rng, tr, tf):
    rc = tr.records_chunks()
    i = rng.choice(rc)
    return tr.encode(tr.chunks[:i] + tr.chunks[i + 1:]), "chunk %d removed" % tr.chunks[i].seq


def chunk_repeated(data, rng, tr, tf):
    rc = tr.records_chunks()
    i = rng.choice(rc)
    j = rng.randrange(i + 1, len(tr.chunks))  # somewhere after it, before the END chunk
    ch = tr.chunks[:j] + [tr.chunks[i]] + tr.chunks[j:]
    return tr.encode(ch), "chunk %d repeated before chunk %d" % (tr.chunks[i].seq, tr.chunks[j].seq)


def chunks_swapped(data, rng, tr, tf):
    rc = tr.records_chunks()
    if len(rc) < 2:
        return None
    i, j = sorted(rng.sample(rc, 2))
    ch = list(tr.chunks)
    ch[i], ch[j] = ch[j], ch[i]
    return tr.encode(ch), "chunks %d and %d swapped" % (tr.chunks[i].seq, tr.chunks[j].seq)


def _end_with(tr, **kw):
    end_ns, recs, dropped, chunks = tr.end()
    vals = dict(end_ns=end_ns, records=recs, dropped=dropped, chunks=chunks)
    vals.update(kw)
    payload = struct.pack("<QQQII", vals["end_ns"], vals["records"], vals["dropped"],
                          vals["chunks"], 0)
    last = tr.chunks[-1]
    return tr.encode(tr.chunks[:-1] + [Chunk(T_END, 0, last.seq, payload)])


def end_dropped(data, rng, tr, tf):
    n = rng.choice([1, 1234, 2 ** 40])
    return _end_with(tr, dropped=n), "the END chunk says %d records were dropped" % n


def end_counts(data, rng, tr, tf):
    _, recs, _, chunks = tr.end()
    if rng.random() < 0.5:
        k = rng.randrange(1, 1000)
        return _end_with(tr, records=recs + k), "the END chunk counts %d records more" % k
    k = rng.randrange(1, min(recs, 1000) + 1)
    return _end_with(tr, records=recs - k), "the END chunk counts %d records fewer" % k


def _timed_record(rng, tr, tf, spans_only):
    """A random record that carries a time: (chunk index, record offset, type)."""
    for _ in range(200):
        i = rng.choice(tr.records_chunks())
        recs = [r for r in records(tr.chunks[i].payload)
                if r[1] in tf and (not spans_only or tf[r[1]][1] != tf[r[1]][2])
                and tf[r[1]][0] != "process"]
        if recs:
            off, rtype, _ = rng.choice(recs)
            return i, off, rtype
    return None


def _set_times(tr, i, off, rtype, tf, first, last):
    p = bytearray(tr.chunks[i].payload)
    _, fo, lo = tf[rtype]
    struct.pack_into("<Q", p, off + fo, first)
    struct.pack_into("<Q", p, off + lo, last)
    ch = list(tr.chunks)
    ch[i] = Chunk(T_RECORDS, 0, tr.chunks[i].seq, p)
    return tr.encode(ch)


def _picked_times(rng, tr, tf, spans_only):
    """A random timed record and its times: (chunk index, offset, type, first, last), or None."""
    pick = _timed_record(rng, tr, tf, spans_only)
    if not pick:
        return None
    i, off, rtype = pick
    _, fo, lo = tf[rtype]
    p = tr.chunks[i].payload
    return i, off, rtype, struct.unpack_from("<Q", p, off + fo)[0], struct.unpack_from("<Q", p, off + lo)[0]


def end_before_start(data, rng, tr, tf):
    """A span record (kernel, copy, API call...) whose end comes before its start."""
    pick = _picked_times(rng, tr, tf, True)
    if not pick:
        return None
    i, off, rtype, start, _ = pick
    back = rng.choice([1, 1000, 5_000_000, start // 2 or 1])
    return (_set_times(tr, i, off, rtype, tf, start, max(start - back, 0)),
            "a %s record (chunk %d) ends %d ns before it starts" % (tf[rtype][0], tr.chunks[i].seq, back))


def absurd_time(data, rng, tr, tf):
    """A record at a time no recording holds: negative as int64, past 2^62 ns, long before the
    recording started or after it ended (on the collector's clock)."""
    pick = _picked_times(rng, tr, tf, False)
    if not pick:
        return None
    i, off, rtype, t0, t1 = pick
    neg = (1 << 64) - 10 ** 9
    choices = [("negative as int64", neg, neg), ("past 2^62 ns", t0, TIME_LIMIT + 5)]
    if tr.clock == 1:  # the collector's clock: the header's start and END's time bound it
        early = max(tr.start_ns - 100 * 10 ** 9, 0)
        choices += [("100 s before the recording", early, early + (t1 - t0)),
                    ("a day after the recording", t0, tr.end()[0] + 86400 * 10 ** 9)]
    what, first, last = rng.choice(choices)
    return (_set_times(tr, i, off, rtype, tf, first, last),
            "a %s record (chunk %d) %s" % (tf[rtype][0], tr.chunks[i].seq, what))


def trailing_data(data, rng, tr, tf):
    n = rng.randrange(1, 4096)
    tail = bytes(rng.randrange(1, 256) for _ in range(n))
    return data + tail, "%d bytes of data after the END chunk" % n


MUTATIONS = {
    "truncated": cut,
    "bit_flip": flip,
    "chunk_removed": chunk_removed,
    "chunk_repeated": chunk_repeated,
    "chunks_swapped": chunks_swapped,
    "end_claims_dropped": end_dropped,
    "end_miscounts": end_counts,
    "end_before_start": end_before_start,
    "absurd_time": absurd_time,
    "trailing_data": trailing_data,
}
