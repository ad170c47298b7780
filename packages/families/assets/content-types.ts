import type { AssetPurpose } from './events.js';

/**
 * The content types each purpose takes. Each is one the service recognises from the bytes' magic
 * number, so the declared type is checked against the file itself, not taken on trust. Formats
 * that have none (SVG, plain text) are left out: an SVG logo could carry script.
 */
export const ALLOWED_CONTENT_TYPES: Readonly<Record<AssetPurpose, readonly string[]>> = {
  logo: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  onboarding_document: ['application/pdf', 'image/png', 'image/jpeg'],
  invoice_attachment: ['application/pdf', 'image/png', 'image/jpeg'],
};

/** How many leading bytes `sniffContentType` needs. */
export const SNIFF_BYTES = 16;

const startsWith = (head: Buffer, bytes: readonly number[], offset = 0) => head.length >= offset + bytes.length && bytes.every((b, i) => head[offset + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The content type the first bytes of a file announce (its magic number), or null for none we know. */
export function sniffContentType(head: Buffer): string | null {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(head, ascii('%PDF-'))) return 'application/pdf';
  return null;
}
