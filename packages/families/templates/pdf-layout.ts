import PDFDocument from 'pdfkit';

/** What a document's PDF is laid out from: the rendered title and text. */
export interface PdfContent {
  title?: string;
  text: string;
}

/** Thrown when a layout would add a page past its limit; the document is abandoned there. */
export class PageLimitExceeded extends Error {
  constructor(readonly maxPages: number) {
    super(`The PDF would run past ${maxPages} pages`);
  }
}

/**
 * A document as a PDF (pdfkit): A4, the title in bold, then each line of the text. `createdAt`
 * makes it reproducible. Synchronous CPU work: it runs in the PDF worker (pdf-worker.ts), never
 * on the service's event loop. Stops at the page that would pass `maxPages`.
 */
export function layoutPdf(content: PdfContent, createdAt: Date, maxPages: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: content.title ?? '', Producer: 'Sika', Creator: 'Sika template engine', CreationDate: createdAt } });
    const chunks: Buffer[] = [];
    let pages = 1;
    // pdfkit adds pages inside text(): throwing here ends the layout at once, not after the last page.
    doc.on('pageAdded', () => {
      if (++pages > maxPages) throw new PageLimitExceeded(maxPages);
    });
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    try {
      if (content.title) doc.font('Helvetica-Bold').fontSize(18).text(content.title).moveDown();
      doc.font('Helvetica').fontSize(11).text(content.text);
      doc.end();
    } catch (err) {
      reject(err);
    }
  });
}
