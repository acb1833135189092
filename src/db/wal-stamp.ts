// A SQLite database's change stamp read from its WAL index, without a read transaction.
//
// The key cache (keys/service.ts) asks on every tool request whether anything was committed since
// it last read a key. `PRAGMA data_version` answers, but it opens and ends a read transaction: file
// and shared-memory locks, several system calls, ~4 µs alone and ~9 µs of a tools/list's CPU in the
// serving process (bun --cpu-prof-md under load, Bun 1.4.5). In WAL mode every commit, by any
// connection of any process, rewrites the WAL-index header at the start of the -shm file
// (https://www.sqlite.org/walformat.html, "The WAL-Index Header"): its commit counter, frame count,
// the running checksum of the frames and the salts, which change when the WAL starts over. Those
// words, read with one pread (~0.7 µs), are a stamp that moves with every commit. (A checkpoint that
// starts the WAL over moves it too: for a cache, one needless re-read.)
//
// The header is kept twice; a writer rewrites the second copy, then the first. Two copies that
// differ are a commit under way: the caller then asks SQLite (`null` here). So is anything
// unexpected: no -shm file (":memory:", or a journal mode other than WAL), a header of another
// version or not initialised, a read that fails.
//
// The -shm file is read through a descriptor of its own, opened once per file and NEVER closed while
// the file may be in use. Closing any descriptor of a file drops every POSIX lock the process holds
// on it, SQLite's included: its shared lock that tells other processes the WAL index is in use (an
// earlier version mapped the file with Bun.mmap, which closes its descriptor: the lock was gone at
// once, checked in /proc/locks, and another process could then have rebuilt the index under ours).
// A descriptor is only closed once its file has been deleted (SQLite deletes the -shm when its last
// connection closes): then no connection of any process uses it any more.
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";

const HEADER_BYTES = 48;
const WAL_INDEX_VERSION = 3_007_000;
/** The header's words a stamp is made of (see read). */
const STAMP_WORDS = [2, 4, 6, 7, 8, 9] as const;

/** Open descriptors of -shm files, by device and inode: one per file for the process's lifetime. */
const descriptors = new Map<string, number>();

function fileKey(stat: { dev: number; ino: number }): string {
  return `${stat.dev}:${stat.ino}`;
}

/** A read-only descriptor of the -shm file now at `path`, shared by every stamp of that file; null when there is none. */
function descriptorOf(path: string): number | null {
  let key: string;
  try {
    key = fileKey(statSync(path));
  } catch {
    return null;
  }
  const known = descriptors.get(key);
  if (known !== undefined) return known;
  // Descriptors of -shm files deleted since (their databases closed for good) are the only ones closed.
  for (const [other, fd] of descriptors) {
    try {
      if (fstatSync(fd).nlink > 0) continue;
    } catch {
      // Not ours any more: forget it.
    }
    descriptors.delete(other);
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
  }
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  // Keyed by what was opened (the file may have been replaced since the stat). Should that file have
  // a descriptor already, this one stays open too: closing it would drop SQLite's locks.
  const opened = fileKey(fstatSync(fd));
  const existing = descriptors.get(opened);
  if (existing !== undefined) return existing;
  descriptors.set(opened, fd);
  return fd;
}

export class WalIndexStamp {
  /** The -shm file's descriptor: null when unavailable or released, undefined until first read. */
  private fd: number | null | undefined;
  private readonly buffer = new Uint8Array(HEADER_BYTES * 2);
  private readonly words = new Uint32Array(this.buffer.buffer, 0, (HEADER_BYTES * 2) / 4);
  /** The last stamp read and its words (STAMP_WORDS of the header). */
  private last: string | null = null;
  private readonly lastWords = new Uint32Array(STAMP_WORDS.length);

  /** The -shm file of the database at the path given, whose connection is open whenever read() is called. */
  private readonly shmPath: string | null;

  constructor(path: string) {
    this.shmPath = path === ":memory:" || path === "" ? null : `${resolve(path)}-shm`;
  }

  /** The stamp, or null when SQLite must be asked (no WAL index, a commit under way, released). */
  read(): string | null {
    if (this.fd === undefined) this.fd = this.shmPath === null ? null : descriptorOf(this.shmPath);
    if (this.fd === null) return null;
    let n: number;
    try {
      n = readSync(this.fd, this.buffer, 0, HEADER_BYTES * 2, 0);
    } catch {
      return null;
    }
    if (n !== HEADER_BYTES * 2) return null;
    const w = this.words;
    const half = HEADER_BYTES / 4;
    for (let i = 0; i < half; i++) if (w[i] !== w[half + i]) return null;
    // The format's version, and whether the header is initialised (its byte 12).
    if (w[0] !== WAL_INDEX_VERSION || this.buffer[12] !== 1) return null;
    // The commit counter, the frame count, the last frame's checksum and the salts (new at each
    // restart of the WAL), in the file's native byte order. Nearly every read finds the words of the
    // last one: its text is given again rather than made anew.
    const last = this.lastWords;
    let same = this.last !== null;
    for (let i = 0; same && i < STAMP_WORDS.length; i++) same = w[STAMP_WORDS[i] as number] === last[i];
    if (same) return this.last as string;
    for (let i = 0; i < STAMP_WORDS.length; i++) last[i] = w[STAMP_WORDS[i] as number] as number;
    this.last = `${w[2]}.${w[4]}.${w[6]}.${w[7]}.${w[8]}.${w[9]}`;
    return this.last;
  }

  /** Stops reading the file (the connection is closing); later reads answer null. The descriptor stays open (see above). */
  release(): void {
    this.fd = null;
  }
}
