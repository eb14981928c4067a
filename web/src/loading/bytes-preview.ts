/**
 * How a message shows the first bytes of something that is not what it should be: their hex, and
 * their text where it is printable (an HTML page where a binary file was expected reads "<!doctyp").
 */

export function latin1(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

/** "it is empty" / "it starts with 3c 21 64 6f 63 74 79 70 ("<!doctyp")". */
export function preview(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'it is empty';
  const head = bytes.subarray(0, 8);
  const hex = Array.from(head, (b) => b.toString(16).padStart(2, '0')).join(' ');
  const printable = head.every((b) => b === 0x09 || b === 0x0a || b === 0x0d || (b >= 0x20 && b < 0x7f));
  return `it starts with ${hex}${printable ? ` (${JSON.stringify(latin1(head))})` : ''}`;
}

/** True when the bytes begin like a text document with markup: the HTML page a server answers for a file it does not have. */
export const looksLikeHtml = (bytes: Uint8Array): boolean => /^\s*</.test(latin1(bytes.subarray(0, 64)));
