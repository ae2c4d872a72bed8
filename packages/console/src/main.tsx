/**
 * The console's shell: asks for an API key (the embedded devnet's dev key is offered on loopback
 * only), keeps it in this tab's sessionStorage, and routes between the pages.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { forgetKey, keepStreamSession, offeredDevKey, openSession, type Session, savedKey } from './api.js';
import { OpsPage } from './pages/ops.js';
import { PoolPage } from './pages/pool.js';
import { SearchBox, SearchPage } from './pages/search.js';
import { TokenPage } from './pages/token.js';
import { BlockPage, TxPage } from './pages/tx.js';
import { WalletPage } from './pages/wallet.js';
import { href, useRoute } from './ui.js';
import './style.css';

function Login({ onSession }: { onSession(s: Session): void }) {
  const [key, setKey] = useState('');
  const [offered, setOffered] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    offeredDevKey().then((k) => {
      if (k) {
        setKey(k);
        setOffered(true);
      }
    });
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setErr(null);
    try {
      onSession(await openSession(key.trim()));
    } catch (x) {
      setErr((x as Error).message);
    }
  };
  return (
    <form class="login" onSubmit={submit} data-testid="login">
      <h1>Indexer console</h1>
      <label>
        API key
        <input
          type="password"
          name="key"
          autocomplete="off"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          data-testid="key"
        />
      </label>
      {offered && (
        <p class="muted" data-testid="dev-key-offered">
          The embedded devnet's dev key is filled in (offered on loopback only).
        </p>
      )}
      <p class="muted">The key stays in this tab's session storage and is sent only as x-api-key.</p>
      <button type="submit" data-testid="login-submit">
        Open
      </button>
      {err && <div class="refusal">{err}</div>}
    </form>
  );
}

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(!!savedKey());
  const route = useRoute();
  useEffect(() => {
    const k = savedKey();
    if (!k) return;
    openSession(k)
      .then(setSession, () => forgetKey())
      .finally(() => setRestoring(false));
  }, []);
  useEffect(() => (session ? keepStreamSession(session, () => setSession(null)) : undefined), [session]);
  if (restoring) return <div class="muted">opening session…</div>;
  if (!session) return <Login onSession={setSession} />;
  const chain = route.chain && session.chains.includes(route.chain) ? route.chain : session.chains[0];
  // Streams need the `stream` scope: without it the live panels say so instead of retrying.
  const renew = () =>
    session.stream ? openSession(session.key) : Promise.reject(new Error('this key has no stream scope'));
  const page = (() => {
    const [a, b, c] = route.args;
    // A page shown as of a block is a page of its own: nothing of the head's state carries over.
    const at = route.at ?? 'head';
    switch (route.page) {
      case 'token':
        return (
          <TokenPage
            key={`${a}@${at}`}
            session={session}
            chain={chain}
            address={a}
            renew={renew}
            route={route}
          />
        );
      case 'pool':
        return (
          <PoolPage
            key={`${route.args.join('/')}@${at}`}
            session={session}
            chain={chain}
            args={route.args}
            renew={renew}
            route={route}
          />
        );
      case 'wallet':
        return <WalletPage key={`${a}@${at}`} session={session} chain={chain} address={a} route={route} />;
      case 'tx':
        return <TxPage key={a} session={session} chain={chain} hash={a} />;
      case 'block':
        return <BlockPage key={a} session={session} chain={chain} id={a} />;
      case 'search':
        return <SearchPage key={a} session={session} chain={chain} q={a ?? ''} />;
      default:
        void b;
        void c;
        return <OpsPage session={session} renew={renew} />;
    }
  })();
  return (
    <div class="app">
      <nav>
        <a href="#/ops" class="brand">
          indexer
        </a>
        <a href="#/ops">ops</a>
        <select
          value={chain}
          onChange={(e) => (location.hash = href((e.target as HTMLSelectElement).value, 'search', ''))}
          data-testid="chain"
        >
          {session.chains.map((c) => (
            <option value={c}>{c}</option>
          ))}
        </select>
        <SearchBox chain={chain} />
        <span class="spacer" />
        <span class="muted">scopes: {session.scopes.join(', ')}</span>
        <button
          type="button"
          onClick={() => {
            forgetKey();
            setSession(null);
          }}
        >
          forget key
        </button>
      </nav>
      <main>{page}</main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
