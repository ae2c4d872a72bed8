/**
 * A live stream kept open: an `EventSource` on `url` whose refusals (session expired, no stream
 * scope) renew the session and reconnect with backoff (2 s, doubling to 30 s). `attach` adds the
 * event listeners to each new connection; `setState` hears `live`, `reconnecting` and why a stream
 * is not live. Returns the function that closes it for good (a `useEffect` cleanup).
 */
export function liveStream(
  url: string,
  o: { attach(es: EventSource): void; setState(state: string): void; renew(): Promise<unknown> },
): () => void {
  let stopped = false;
  let es: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let backoff = 2000;
  const connect = () => {
    es = new EventSource(url);
    es.onopen = () => {
      backoff = 2000;
      o.setState('live');
    };
    o.attach(es);
    es.onerror = () => {
      if (es?.readyState !== EventSource.CLOSED) return o.setState('reconnecting');
      o.setState('stream refused; renewing session');
      retry = setTimeout(() => {
        if (stopped) return;
        o.renew().then(
          () => !stopped && connect(),
          (e: Error) => o.setState(`no live stream: ${e.message}`),
        );
      }, backoff);
      backoff = Math.min(backoff * 2, 30_000);
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    es?.close();
  };
}
