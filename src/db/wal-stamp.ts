// A SQLite database's change stamp read from its WAL index, without a read transaction.
//
// The key cache (keys/service.ts) asks on every tool request whether anything was committed since
// it last read a key. `PRAGMA data_version` answers, but it opens and ends a read transaction: file
// and shared-memory locks, four system calls, ~7 µs of a tools/list's ~48 µs in process (measured:
// tmp harness, Bun 1.4.5). In WAL mode every commit, by any connection of any process, rewrites
// the WAL-index header at the start of the -shm file (https://www.sqlite.org/walformat.html, "The
// WAL-Index Header"): its frame count, the running checksum of the frames and the salts, which
// change when the WAL starts over. Those words, read from a shared mapping of the file, are a
// stamp that moves with every commit, for ~0.1 µs. (A checkpoint that starts the WAL over moves it
// too: for a cache, one needless re-read.)
//
// The header is kept twice; a writer rewrites the second copy, then the first. Two copies that
// differ are a commit under way: the caller then asks SQLite (`null` here). So is anything
// unexpected: no -shm file (":memory:", or a journal mode other than WAL), a header of another
// version or not initialised. The mapping is only read while the connection is open, which holds
// SQLite's shared lock on the -shm file: no other connection truncates or recreates it meanwhile.

const HEADER_WORDS = 12; // 48 bytes
const WAL_INDEX_VERSION = 3_007_000;
const MAP_BYTES = 4_096;

export class WalIndexStamp {
  /** The -shm file's first page, as bytes and as 32-bit words; null when unavailable, undefined until tried. */
  private page: { bytes: Uint8Array; words: Uint32Array } | null | undefined;

  constructor(private readonly path: string) {}

  /** The stamp, or null when SQLite must be asked (no WAL index, or a commit under way). */
  read(): string | null {
    if (this.page === undefined) this.page = this.map();
    if (this.page === null) return null;
    const { bytes, words: w } = this.page;
    for (let i = 0; i < HEADER_WORDS; i++) if (w[i] !== w[HEADER_WORDS + i]) return null;
    // The format's version, and whether the header is initialised (its byte 12).
    if (w[0] !== WAL_INDEX_VERSION || bytes[12] !== 1) return null;
    // The transaction counter, the frame count, the last frame's checksum, and the salts (new at
    // each restart of the WAL), all in the file's native byte order.
    return `${w[2]}.${w[4]}.${w[6]}.${w[7]}.${w[8]}.${w[9]}`;
  }

  /** Stops reading the file (the connection is closing); later reads answer null. */
  release(): void {
    this.page = null;
  }

  private map(): { bytes: Uint8Array; words: Uint32Array } | null {
    if (this.path === ":memory:" || this.path === "") return null;
    try {
      const bytes = Bun.mmap(`${this.path}-shm`, { shared: true, size: MAP_BYTES });
      if (bytes.byteLength < HEADER_WORDS * 8 || bytes.byteOffset % 4 !== 0) return null;
      return { bytes, words: new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS * 2) };
    } catch {
      return null;
    }
  }
}
