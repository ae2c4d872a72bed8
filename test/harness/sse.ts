/** Reading an event stream's body (the benches' and the soak's SSE consumers). */

/** The text of a response body as it arrives, chunk by chunk (UTF-8 decoded across chunk bounds). */
export async function* textChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield dec.decode(value, { stream: true });
  }
}
