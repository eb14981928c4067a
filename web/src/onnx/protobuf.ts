/**
 * The protobuf wire format, as far as an ONNX model needs it: a reader that walks a message's
 * fields as byte ranges (a length-delimited field is never copied, so a 300 MB initializer costs
 * nothing to step over), and a writer of the few messages the exposer adds. Every read is bounded
 * by the message that holds it; what runs past its end or is not protobuf is a `ProtoProblem`,
 * which the model reader (model.ts) turns into the package's FormatError.
 */

export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

/** One field of a message: its number and wire type, where it starts, and where its value lies. */
export interface Field {
  readonly number: number;
  readonly wire: number;
  /** The byte of its tag. */
  readonly start: number;
  /** Its value's bytes: the payload of a length-delimited field, the 4 or 8 bytes of a fixed one. */
  readonly from: number;
  readonly to: number;
  /** A varint field's value as a signed int64 (exact up to 2⁵³; onnx.proto's ints are int64). */
  readonly int: number;
}

/**
 * Bytes that are not the protobuf they should be: a message that runs past the end of what holds
 * it (`truncated`: past the end of the file, when that is what holds it), or that is not protobuf
 * at all (`malformed`). Internal: model.ts words it as a FormatError.
 */
export class ProtoProblem extends Error {
  constructor(
    readonly kind: 'truncated' | 'malformed',
    /** The message being read, e.g. "the graph". */
    readonly what: string,
    /** The byte where the field or value that failed starts. */
    readonly at: number,
    /** For `truncated`, the byte its message ends at; for `malformed`, what is wrong. */
    readonly detail: string,
    /** The number of the field that runs past the end, when it is a length-delimited one. */
    readonly field: number | null = null,
  ) {
    super(`${kind} ${what} at byte ${at}: ${detail}`);
  }
}

const UTF8 = new TextDecoder();

export class ProtoReader {
  constructor(readonly bytes: Uint8Array) {}

  private fail(detail: string, at: number, what: string): ProtoProblem {
    return new ProtoProblem('malformed', what, at, detail);
  }

  /** The byte after the varint `varint` read last. */
  private after = 0;

  /**
   * The varint at `at` (at most 10 bytes, inside [at, end)) as a signed int64, exact up to 2⁵³;
   * `this.after` is the byte after it. Up to 7 bytes (49 bits) in a double, longer ones (an int64
   * such as axis −1 takes 10) through a bigint, so that the common case allocates nothing.
   */
  varint(at: number, end: number, what: string): number {
    let value = 0;
    let scale = 1;
    let i = at;
    for (let n = 0; n < 7; n++) {
      if (i >= end) throw this.truncated(what, at, end);
      const b = this.bytes[i++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.after = i;
        return value;
      }
      scale *= 128;
    }
    let big = BigInt(value);
    for (let shift = 49n; ; shift += 7n) {
      if (i >= end) throw this.truncated(what, at, end);
      if (shift > 63n) throw this.fail('a varint of more than 10 bytes', at, what);
      const b = this.bytes[i++]!;
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        this.after = i;
        return Number(BigInt.asIntN(64, big));
      }
    }
  }

  /** A length or count: a varint that must be a safe integer >= 0. */
  private size(at: number, end: number, what: string): number {
    const v = this.varint(at, end, what);
    if (v < 0 || v > Number.MAX_SAFE_INTEGER) throw this.fail(`a length of ${v} bytes`, at, what);
    return v;
  }

  /** Every field of the message in [from, to), in order. */
  *fields(from: number, to: number, what: string): Generator<Field> {
    let at = from;
    while (at < to) {
      const start = at;
      const tag = this.varint(at, to, what);
      const afterTag = this.after;
      const number = Math.floor(tag / 8);
      const wire = tag - number * 8;
      if (number <= 0 || number > 0x1fffffff) throw this.fail(`field number ${number}`, start, what);
      let int = 0;
      let valueFrom = afterTag;
      if (wire === VARINT) {
        int = this.varint(afterTag, to, what);
        at = this.after;
      } else if (wire === FIXED64 || wire === FIXED32) {
        at = afterTag + (wire === FIXED64 ? 8 : 4);
        if (at > to) throw this.truncated(what, start, to);
      } else if (wire === LENGTH_DELIMITED) {
        const length = this.size(afterTag, to, what);
        valueFrom = this.after;
        at = valueFrom + length;
        if (at > to) throw this.truncated(what, start, to, number);
      } else {
        throw this.fail(`wire type ${wire} (field ${number})`, start, what);
      }
      yield { number, wire, start, from: valueFrom, to: at, int };
    }
  }

  /** A length-delimited field's bytes as UTF-8 text. */
  text(field: Field): string {
    return UTF8.decode(this.bytes.subarray(field.from, field.to));
  }

  /** A fixed32 field as a float. */
  float(field: Field): number {
    return new DataView(this.bytes.buffer, this.bytes.byteOffset + field.from, 4).getFloat32(0, true);
  }

  /**
   * The values of a repeated varint field, packed (one length-delimited field) or not (one each),
   * appended to `out` (one at a time: a spread of a field's many values would exceed the engine's
   * argument limit).
   */
  packedVarints(field: Field, what: string, out: number[] = []): number[] {
    if (field.wire === VARINT) {
      out.push(field.int);
      return out;
    }
    for (let at = field.from; at < field.to; at = this.after) out.push(this.varint(at, field.to, what));
    return out;
  }

  /** The values of a repeated float field, packed or not, appended to `out`. */
  packedFloats(field: Field, out: number[] = []): number[] {
    if (field.wire === FIXED32) {
      out.push(this.float(field));
      return out;
    }
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + field.from, field.to - field.from);
    for (let i = 0; i + 4 <= view.byteLength; i += 4) out.push(view.getFloat32(i, true));
    return out;
  }

  private truncated(what: string, start: number, end: number, field: number | null = null): ProtoProblem {
    return new ProtoProblem('truncated', what, start, String(end), field);
  }
}

/** The bytes of a varint. */
export function encodeVarint(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** A message being written: fields appended as bytes, in order. */
export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  raw(bytes: Uint8Array): this {
    this.parts.push(bytes);
    this.size += bytes.length;
    return this;
  }
  tag(number: number, wire: number): this {
    return this.raw(encodeVarint(number * 8 + wire));
  }
  int(number: number, value: number): this {
    return this.tag(number, VARINT).raw(encodeVarint(value));
  }
  bytes(number: number, payload: Uint8Array): this {
    return this.tag(number, LENGTH_DELIMITED).raw(encodeVarint(payload.length)).raw(payload);
  }
  string(number: number, text: string): this {
    return this.bytes(number, new TextEncoder().encode(text));
  }
  message(number: number, inner: ProtoWriter): this {
    return this.bytes(number, inner.finish());
  }
  get length(): number {
    return this.size;
  }
  finish(): Uint8Array {
    return concatBytes(this.parts, this.size);
  }
}

/** The parts, one after another, in one new array. */
export function concatBytes(parts: readonly Uint8Array[], total = parts.reduce((n, p) => n + p.length, 0)): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
