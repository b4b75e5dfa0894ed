/**
 * The records of a ZIP archive written as a stream (APPNOTE.TXT 6.3.10):
 * each entry's local header with its sizes left to a data descriptor after
 * its data, then the central directory and its end records.
 *
 * Every local header carries a Zip64 extended information field, so that the
 * data descriptor holds 8-byte sizes and an entry may pass 4 GiB: a streamed
 * entry's size is known only once it is written. The central directory uses
 * Zip64 fields only for the values that need them (sizes or offsets from
 * 4 GiB), and the Zip64 end records only when the directory starts or ends
 * past 4 GiB.
 *
 * @module
 */

/** What the central directory records of one entry. */
export interface CentralEntry {
  /** The entry's name, UTF-8. */
  name: Uint8Array;
  /** CRC-32 of the uncompressed data. */
  crc32: number;
  /** Bytes of deflated data. */
  compressedSize: number;
  /** Bytes of uncompressed data. */
  size: number;
  /** Where the entry's local header starts in the archive. */
  offset: number;
}

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const END = 0x06054b50;

/** APPNOTE 4.4.3.2: 4.5, Zip64 format; the version of the format we write. */
const VERSION_ZIP64 = 45;
/** The high byte of "version made by": 3, UNIX (the external attributes). */
const MADE_BY_UNIX = 3 << 8;
/** Bit 3: sizes and CRC-32 follow the data, in a data descriptor. */
const FLAG_DATA_DESCRIPTOR = 0x0008;
/** Bit 11: the name is UTF-8. */
const FLAG_UTF8 = 0x0800;
const METHOD_DEFLATE = 8;
/** A regular file, `rw-r--r--`, in the high half of the external attributes. */
const REGULAR_FILE = 0o100644 * 0x10000;

const ZIP64_FIELD = 0x0001;
/** Info-ZIP's extended timestamp: the modification time in Unix seconds. */
const TIMESTAMP_FIELD = 0x5455;
const TIMESTAMP_HAS_MTIME = 1;

/** Where a field has to move to the Zip64 records (APPNOTE 4.4.8). */
const MAX_32 = 0xffffffff;
const MAX_16 = 0xffff;

/** The modification time as the records write it. */
export interface EntryTime {
  /** MS-DOS date and time, local time, two-second resolution. */
  dosDate: number;
  /** MS-DOS time of day, the same instant. */
  dosTime: number;
  /** Seconds since the Unix epoch, for the extended timestamp field. */
  unixSeconds: number;
}

/**
 * The fields that carry a modification time: MS-DOS date and time in local
 * time (as readers show them), clamped to the years 1980–2107 they can hold,
 * and the exact time in seconds for the extended timestamp field.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { entryTime } from "./_records.ts";
 *
 * const time = entryTime(new Date(2026, 0, 2, 3, 4, 6));
 * assert.equal(time.dosDate, (46 << 9) | (1 << 5) | 2);
 * assert.equal(time.dosTime, (3 << 11) | (4 << 5) | 3);
 * ```
 */
export function entryTime(date: Date): EntryTime {
  const unixSeconds = Math.min(
    Math.max(Math.floor(date.getTime() / 1000), 0),
    MAX_32,
  );
  const year = date.getFullYear();
  if (year < 1980) {
    return { dosDate: (1 << 5) | 1, dosTime: 0, unixSeconds };
  }
  if (year > 2107) {
    return {
      dosDate: (127 << 9) | (12 << 5) | 31,
      dosTime: (23 << 11) | (59 << 5) | 29,
      unixSeconds,
    };
  }
  return {
    dosDate: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) |
      date.getDate(),
    dosTime: (date.getHours() << 11) | (date.getMinutes() << 5) |
      (date.getSeconds() >> 1),
    unixSeconds,
  };
}

/** Whether a name needs the UTF-8 flag (anything outside printable ASCII). */
function isAscii(name: Uint8Array): boolean {
  return name.every((byte) => byte >= 0x20 && byte < 0x7f);
}

function flagsFor(name: Uint8Array): number {
  return FLAG_DATA_DESCRIPTOR | (isAscii(name) ? 0 : FLAG_UTF8);
}

/** A record of `length` bytes and a little-endian view of it. */
function record(length: number): [Uint8Array, DataView] {
  const bytes = new Uint8Array(length);
  return [bytes, new DataView(bytes.buffer)];
}

function setUint64(view: DataView, offset: number, value: number): void {
  view.setUint32(offset, value % 0x1_0000_0000, true);
  view.setUint32(offset + 4, Math.floor(value / 0x1_0000_0000), true);
}

/** The extended timestamp field (9 bytes) at `at`: the modification time. */
function setTimestamp(view: DataView, at: number, time: EntryTime): void {
  view.setUint16(at, TIMESTAMP_FIELD, true);
  view.setUint16(at + 2, 5, true);
  view.setUint8(at + 4, TIMESTAMP_HAS_MTIME);
  view.setUint32(at + 5, time.unixSeconds, true);
}

/**
 * An entry's local file header: deflated, sizes and CRC-32 in the data
 * descriptor that follows the data, a Zip64 field (its sizes zero until the
 * descriptor) and the extended timestamp.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { entryTime, localHeader } from "./_records.ts";
 *
 * const name = new TextEncoder().encode("a.json");
 * const header = localHeader(name, entryTime(new Date()));
 * assert.deepEqual([...header.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]);
 * assert.equal(header.length, 30 + name.length + 20 + 9);
 * ```
 */
export function localHeader(name: Uint8Array, time: EntryTime): Uint8Array {
  const extra = 20 + 9;
  const [bytes, view] = record(30 + name.length + extra);
  view.setUint32(0, LOCAL_HEADER, true);
  view.setUint16(4, VERSION_ZIP64, true);
  view.setUint16(6, flagsFor(name), true);
  view.setUint16(8, METHOD_DEFLATE, true);
  view.setUint16(10, time.dosTime, true);
  view.setUint16(12, time.dosDate, true);
  // CRC-32 (14) zero: in the descriptor. Both sizes in the Zip64 field.
  view.setUint32(18, MAX_32, true);
  view.setUint32(22, MAX_32, true);
  view.setUint16(26, name.length, true);
  view.setUint16(28, extra, true);
  bytes.set(name, 30);
  const at = 30 + name.length;
  view.setUint16(at, ZIP64_FIELD, true);
  view.setUint16(at + 2, 16, true); // two 8-byte sizes, zero
  setTimestamp(view, at + 20, time);
  return bytes;
}

/**
 * The data descriptor after an entry's data: signature, CRC-32 and the two
 * sizes on 8 bytes (the local header has a Zip64 field).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dataDescriptor } from "./_records.ts";
 *
 * const descriptor = dataDescriptor({ crc32: 1, compressedSize: 2, size: 3 });
 * assert.equal(descriptor.length, 24);
 * assert.equal(new DataView(descriptor.buffer).getUint32(16, true), 3);
 * ```
 */
export function dataDescriptor(
  entry: Pick<CentralEntry, "crc32" | "compressedSize" | "size">,
): Uint8Array {
  const [bytes, view] = record(24);
  view.setUint32(0, DATA_DESCRIPTOR, true);
  view.setUint32(4, entry.crc32, true);
  setUint64(view, 8, entry.compressedSize);
  setUint64(view, 16, entry.size);
  return bytes;
}

/** One central directory header. */
function centralHeader(entry: CentralEntry, time: EntryTime): Uint8Array {
  // APPNOTE 4.5.3: the Zip64 field holds, in this order, only the values
  // whose 32-bit field is 0xFFFFFFFF.
  const wide = [entry.size, entry.compressedSize, entry.offset].filter((
    value,
  ) => value >= MAX_32);
  const zip64Length = wide.length === 0 ? 0 : 4 + 8 * wide.length;
  const extra = zip64Length + 9;
  const { name } = entry;
  const [bytes, view] = record(46 + name.length + extra);
  view.setUint32(0, CENTRAL_HEADER, true);
  view.setUint16(4, MADE_BY_UNIX | VERSION_ZIP64, true);
  view.setUint16(6, VERSION_ZIP64, true);
  view.setUint16(8, flagsFor(name), true);
  view.setUint16(10, METHOD_DEFLATE, true);
  view.setUint16(12, time.dosTime, true);
  view.setUint16(14, time.dosDate, true);
  view.setUint32(16, entry.crc32, true);
  view.setUint32(20, Math.min(entry.compressedSize, MAX_32), true);
  view.setUint32(24, Math.min(entry.size, MAX_32), true);
  view.setUint16(28, name.length, true);
  view.setUint16(30, extra, true);
  // Comment length, disk number, internal attributes: zero.
  view.setUint32(38, REGULAR_FILE, true);
  view.setUint32(42, Math.min(entry.offset, MAX_32), true);
  bytes.set(name, 46);
  let at = 46 + name.length;
  if (zip64Length > 0) {
    view.setUint16(at, ZIP64_FIELD, true);
    view.setUint16(at + 2, zip64Length - 4, true);
    for (const [index, value] of wide.entries()) {
      setUint64(view, at + 4 + 8 * index, value);
    }
    at += zip64Length;
  }
  setTimestamp(view, at, time);
  return bytes;
}

/**
 * The end of the archive: the central directory of `entries`, which starts
 * at `offset`, and the end of central directory record, preceded by the
 * Zip64 end record and its locator when a count, size or offset needs them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { centralDirectory, entryTime } from "./_records.ts";
 *
 * const end = centralDirectory([], 0, entryTime(new Date()));
 * assert.deepEqual([...end], [0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);
 * ```
 */
export function centralDirectory(
  entries: readonly CentralEntry[],
  offset: number,
  time: EntryTime,
): Uint8Array {
  const headers = entries.map((entry) => centralHeader(entry, time));
  const size = headers.reduce((total, header) => total + header.length, 0);
  const zip64 = entries.length >= MAX_16 || size >= MAX_32 ||
    offset + size >= MAX_32;
  const [end, view] = record((zip64 ? 56 + 20 : 0) + 22);
  let at = 0;
  if (zip64) {
    view.setUint32(0, ZIP64_END, true);
    setUint64(view, 4, 44); // the size of the rest of this record
    view.setUint16(12, MADE_BY_UNIX | VERSION_ZIP64, true);
    view.setUint16(14, VERSION_ZIP64, true);
    // This disk and the directory's disk (16, 20): zero.
    setUint64(view, 24, entries.length);
    setUint64(view, 32, entries.length);
    setUint64(view, 40, size);
    setUint64(view, 48, offset);
    view.setUint32(56, ZIP64_LOCATOR, true);
    setUint64(view, 64, offset + size); // where the Zip64 end record is
    view.setUint32(72, 1, true); // disks in all
    at = 76;
  }
  view.setUint32(at, END, true);
  view.setUint16(at + 8, Math.min(entries.length, MAX_16), true);
  view.setUint16(at + 10, Math.min(entries.length, MAX_16), true);
  view.setUint32(at + 12, Math.min(size, MAX_32), true);
  view.setUint32(at + 16, Math.min(offset, MAX_32), true);
  const bytes = new Uint8Array(size + end.length);
  let written = 0;
  for (const header of headers) {
    bytes.set(header, written);
    written += header.length;
  }
  bytes.set(end, written);
  return bytes;
}
