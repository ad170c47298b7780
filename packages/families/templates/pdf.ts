import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PdfContent } from './pdf-layout.js';
import { Refusal } from '#packages/core/refusal.js';

/** The most pages a document's PDF may have (docs/templates.md); one more is IKW-TPL-006. */
export const MAX_PDF_PAGES = 50;

/** What the PDF worker is asked (pdf-worker.ts). */
export interface LayoutRequest {
  content: PdfContent;
  createdAt: number;
  maxPages: number;
}

/** What it answers: the PDF, or that the document runs past its page limit, or why it failed. */
export type LayoutAnswer = { pdf: Uint8Array } | { pageLimit: true } | { error: string };

interface Job {
  request: LayoutRequest;
  resolve: (answer: LayoutAnswer) => void;
  reject: (err: unknown) => void;
}

/**
 * Worker threads that lay out PDFs, so that the event loop goes on answering requests while a
 * document of many pages is laid out (pdfkit's layout is synchronous: about 5 ms a page). Each
 * worker takes one document at a time; documents wait their turn in order. Workers start when first
 * needed and do not keep the process alive while idle; a worker that dies (its heap is capped)
 * fails its document and is replaced by the next one needed.
 */
class PdfWorkers {
  private readonly idle: Worker[] = [];
  private readonly queue: Job[] = [];
  /** The job each busy worker is laying out. */
  private readonly busy = new Map<Worker, Job>();
  private live = 0;

  constructor(private readonly size: number) {}

  layout(request: LayoutRequest): Promise<LayoutAnswer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.queue.length === 0) return;
    const worker = this.idle.pop() ?? (this.live < this.size ? this.start() : undefined);
    if (!worker) return;
    const job = this.queue.shift()!;
    this.busy.set(worker, job);
    worker.ref();
    worker.postMessage(job.request);
  }

  private start(): Worker {
    const worker = new Worker(new URL('./pdf-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 256 } });
    this.live++;
    let gone = false;
    // 'error' (an uncaught exception, a heap over its cap) is followed by 'exit': handled once.
    const lost = (err: Error) => {
      if (gone) return;
      gone = true;
      this.live--;
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      const job = this.busy.get(worker);
      this.busy.delete(worker);
      void worker.terminate();
      job?.reject(err);
      this.next();
    };
    worker.on('error', lost);
    worker.on('exit', (code: number) => lost(new Error(`The PDF worker stopped (exit code ${code})`)));
    worker.on('message', (answer: LayoutAnswer) => {
      const job = this.busy.get(worker);
      this.busy.delete(worker);
      worker.unref();
      this.idle.push(worker);
      job?.resolve(answer);
      this.next();
    });
    return worker;
  }
}

const workers = new PdfWorkers(Math.max(1, Math.min(2, availableParallelism() - 1)));

/**
 * A rendered document as a PDF, laid out in a worker thread (see PdfWorkers). A document that runs
 * past MAX_PDF_PAGES is IKW-TPL-006, `param` the locale's text.
 */
export async function renderPdf(rendered: PdfContent & { locale: string }, createdAt: Date): Promise<Buffer> {
  const content: PdfContent = { text: rendered.text, ...(rendered.title !== undefined ? { title: rendered.title } : {}) };
  const answer = await workers.layout({ content, createdAt: createdAt.getTime(), maxPages: MAX_PDF_PAGES });
  if ('pdf' in answer) return Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength);
  if ('pageLimit' in answer) throw new Refusal('IKW-TPL-006', `The document's PDF runs past ${MAX_PDF_PAGES} pages, the most a document may have`, `locales.${rendered.locale}.text`);
  throw new Error(`The PDF could not be laid out: ${answer.error}`);
}
