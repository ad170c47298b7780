/**
 * A fault-injecting HTTP proxy in front of a provider's stand-in: the service's connector calls
 * the proxy, which forwards to the stand-in unchanged (headers, body, so request signatures still
 * verify) unless the fault plan says otherwise. The stand-in stays as it is; the faults are the
 * network's and the provider's front end's:
 * - `lose`: forwarded (the provider keeps it), then the connection is destroyed before the answer;
 * - `error`: answered 5xx without forwarding (nothing kept);
 * - `slow`: forwarded, the answer held `delayMs` (past the connector's timeout it is a lost answer);
 * - `stall`: held `delayMs` before forwarding; a caller gone meanwhile (killed) never reaches the
 *   provider: the kill "before the provider call".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyFault = { type: 'pass' } | { type: 'lose' } | { type: 'error'; status: number } | { type: 'slow'; delayMs: number } | { type: 'stall'; delayMs: number };

export interface ProxiedRequest {
  method: string;
  path: string;
  body: string;
}

export class FaultProxy {
  /** Answers held by a `slow` fault right now. */
  holding = 0;
  /** Requests held by a `stall` fault (not yet sent to the provider) right now. */
  stalled = 0;
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** `plan` decides each request's fault; `seen` hears what was done, for the timeline. */
  static async start(target: string, plan: (req: ProxiedRequest) => ProxyFault, seen: (req: ProxiedRequest, fault: ProxyFault, status?: number) => void): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const upstream = new URL(target);
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const request: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', body: body.toString() };
        const fault = plan(request);
        if (fault.type === 'error') {
          seen(request, fault, fault.status);
          res.writeHead(fault.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status: false, message: 'Internal error (injected by the simulator)', failureReason: { failureCode: 'UNKNOWN_ERROR', failureMessage: 'Unable to process request due to an unknown problem.' } }));
          return;
        }
        // The Host header goes on as it came: pawaPay's request signatures cover @authority.
        const forward = () => {
          const upstreamRequest = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', () => {
              seen(request, fault, answer.statusCode);
              const reply = () => {
                if (res.destroyed) return;
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                res.end(Buffer.concat(parts));
              };
              if (fault.type === 'lose') return void res.socket?.destroy();
              if (fault.type !== 'slow') return reply();
              proxy!.holding++;
              setTimeout(() => {
                proxy!.holding--;
                reply();
              }, fault.delayMs).unref();
            });
          });
          upstreamRequest.on('error', () => res.socket?.destroy());
          upstreamRequest.end(body);
        };
        if (fault.type !== 'stall') return forward();
        proxy!.stalled++;
        setTimeout(() => {
          proxy!.stalled--;
          // The caller died meanwhile: its request never reaches the provider.
          if (res.destroyed || req.socket.destroyed) return seen(request, { type: 'stall', delayMs: -1 });
          forward();
        }, fault.delayMs).unref();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new FaultProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
