/**
 * The PDF worker thread (started by pdf.ts): lays out one document at a time, so that a document of
 * many pages never holds the service's event loop. Answers each request with the PDF's bytes
 * (transferred to the main thread), `pageLimit` when the document runs past its page limit, or `error`.
 */
import { parentPort } from 'node:worker_threads';
import { layoutPdf, PageLimitExceeded } from './pdf-layout.js';
import type { LayoutAnswer, LayoutRequest } from './pdf.js';

const port = parentPort!;
port.on('message', (request: LayoutRequest) => {
  layoutPdf(request.content, new Date(request.createdAt), request.maxPages).then(
    (pdf) => {
      // A copy with an ArrayBuffer of its own: a small Buffer may share Node's pool, which must not be transferred.
      const bytes = new Uint8Array(pdf);
      port.postMessage({ pdf: bytes } satisfies LayoutAnswer, [bytes.buffer as ArrayBuffer]);
    },
    (err: unknown) => {
      const answer: LayoutAnswer = err instanceof PageLimitExceeded ? { pageLimit: true } : { error: err instanceof Error ? err.message : String(err) };
      port.postMessage(answer);
    },
  );
});
