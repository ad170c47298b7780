/** A webhook receiver on loopback for the bench: answers 200 as soon as the body is read, keeps every request. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

export interface Received {
  atMs: number;
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      received.push({ atMs: performance.now(), headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** How many of `requests` verify with `standardwebhooks` under one of the secrets, and the first failures. */
export function verifyAll(requests: Received[], secrets: string[]): { verified: number; failures: string[] } {
  const webhooks = secrets.map((s) => new Webhook(s));
  const failures: string[] = [];
  let verified = 0;
  for (const r of requests) {
    let error: unknown = null;
    const ok = webhooks.some((w) => {
      try {
        w.verify(r.body, r.headers);
        return true;
      } catch (err) {
        error = err;
        return false;
      }
    });
    if (ok) verified++;
    else if (failures.length < 3) failures.push(error instanceof Error ? error.message : String(error));
  }
  return { verified, failures };
}
