/**
 * Stops the page's engine worker with the DevTools debugger, so a test can look at the page while
 * work is still under way, however fast or slow the machine is: whatever the page shows and does
 * while the engine stands still, it shows and does without waiting for that work.
 */
import type { CDPSession, Page } from '@playwright/test';

/** The name the page gives its engine worker (web/page/src/engine/client.ts). */
const ENGINE = 'layernorm-engine';

export interface EngineDebugger {
  /** Asks the engine to stop at the next statement it runs: now, or when its next message arrives. */
  pause(): Promise<void>;
  /** Settles once the engine has stopped since the last `pause()`. */
  stopped(): Promise<void>;
  /** Lets the engine run on. */
  resume(): Promise<void>;
}

interface TargetMessage {
  id?: number;
  method?: string;
  error?: { message: string };
}

/** A promise and the function that fulfils it (Promise.withResolvers, which Node 20 lacks). */
function signal(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Attaches to the page's engine worker (call after the page has started it, e.g. after `ready`). */
export async function engineDebugger(page: Page): Promise<EngineDebugger> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  let sessionId: string | null = null;
  let nextId = 1;
  const replies = new Map<number, (m: TargetMessage) => void>();
  let paused = signal();
  const attached = new Promise<void>((resolve) => {
    cdp.on('Target.attachedToTarget', (e) => {
      if (e.targetInfo.type === 'worker' && e.targetInfo.title === ENGINE) {
        sessionId = e.sessionId;
        resolve();
      }
    });
  });
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    if (e.sessionId !== sessionId) return;
    const m = JSON.parse(e.message) as TargetMessage;
    if (m.id !== undefined) replies.get(m.id)?.(m);
    if (m.method === 'Debugger.paused') paused.resolve();
  });
  // Not flattened: Playwright's CDP session speaks to one target, the worker's messages are relayed.
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  await attached;

  async function send(method: string): Promise<void> {
    const id = nextId++;
    const reply = new Promise<TargetMessage>((resolve) => replies.set(id, resolve));
    await cdp.send('Target.sendMessageToTarget', {
      sessionId: sessionId!,
      message: JSON.stringify({ id, method, params: {} }),
    });
    const m = await reply;
    replies.delete(id);
    if (m.error) throw new Error(`${method} in the engine worker: ${m.error.message}`);
  }

  await send('Debugger.enable');
  return {
    async pause() {
      paused = signal();
      await send('Debugger.pause');
    },
    stopped: () => paused.promise,
    resume: () => send('Debugger.resume'),
  };
}
