// sandnet dashboard: a client of sandnet's public APIs (admin API, ledger
// API v2, Scan, validator) with the operator's token.
//
// Everything read from the ledger (party hints, descriptions, names) is
// user input: the page is built with el() and text nodes only, never
// parsed as HTML, and the server's Content-Security-Policy allows no inline
// script as a second line of defence.
//
// The first render reads heads only (the clock, the network, the last
// FEED_INITIAL updates from the ledger end down), so it costs the same on a
// ledger of a million updates as on a new one; the other panels load
// after it.

const ADMIN = '/api/sandnet/v0';
const SCAN = '/api/scan';
const TOKEN_KEY = 'sandnet.dashboard.token';
const FEED_CAP = 500; // rows the feed keeps
const FEED_INITIAL = 50; // updates read before the live stream starts
const FEED_INTERVAL = 100; // ms: the feed draws at most this often
const LIST_CAP = 200; // rows of the other tables
// The ledger API computes active contracts by replaying the participant's
// history, so a read of them costs in proportion to the ledger: above
// this many offsets the page reads them only when asked.
const LEDGER_ACS_AUTO = 2000;

const TEMPLATES = {
  amulet: '#splice-amulet:Splice.Amulet:Amulet',
  transferOffer: '#splice-wallet:Splice.Wallet.TransferOffer:TransferOffer',
};
// The Scan's names of templates (package_name:module:entity).
const SCAN_TEMPLATES = {
  transferInstruction: 'splice-amulet:Splice.AmuletTransferInstruction:AmuletTransferInstruction',
};

// ---- DOM helpers: text only ----

// el builds an element; string and number children become text nodes, so
// no markup in data is ever parsed.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  append(e, children);
  return e;
}

function append(e, children) {
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

function table(headers, rows) {
  return el('table', {}, el('thead', {}, el('tr', {}, headers.map((h) => el('th', { text: h })))),
    el('tbody', {}, rows));
}

function td(value, cls) {
  return el('td', { class: cls, title: typeof value === 'string' && cls === 'id' ? value : undefined }, value ?? '');
}

function idCell(id, max = 28) {
  const s = String(id ?? '');
  return el('td', { class: 'id', title: s }, s.length > max ? s.slice(0, max) + '…' : s);
}

function partyHint(p) {
  const s = String(p ?? '');
  const i = s.indexOf('::');
  return i < 0 ? s : s.slice(0, i);
}

function partyCell(p) {
  const s = String(p ?? '');
  return el('td', { class: 'id', title: s }, clip(partyHint(s), 40));
}

function shortTemplate(t) {
  const parts = String(t ?? '').split(':');
  return parts[parts.length - 1] || '';
}

function clip(s, n) {
  s = String(s ?? '');
  return s.length > n ? s.slice(0, n) + '…' : s;
}

function setBody(id, ...children) {
  const body = document.querySelector(`#${id} > .body`);
  body.replaceChildren();
  append(body, children);
}

function showError(err) {
  const box = document.getElementById('error');
  if (!err) {
    box.hidden = true;
    return;
  }
  box.textContent = String(err.message || err);
  box.hidden = false;
}

// ---- token and API ----

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

// A token in the URL fragment (#token=…, which browsers never send) is
// moved to sessionStorage and removed from the address bar.
function takeTokenFromFragment() {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (!m) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  history.replaceState(null, '', location.pathname + location.search);
}

class APIError extends Error {
  constructor(status, message, data) {
    super(message);
    this.status = status;
    this.data = data;
  }
}

async function api(method, path, body) {
  const headers = {};
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const msg = (data && (data.error || data.cause || data.message)) || text || res.statusText;
    throw new APIError(res.status, `${method} ${path}: ${res.status} ${msg}`, data);
  }
  return data;
}

// ---- state ----

const state = { network: null, ledgerEnd: 0 };

// ---- clock ----

let clockBase = null; // {ms: ledger time in ms, at: performance.now()}

async function loadClock() {
  const c = await api('GET', ADMIN + '/clock');
  setClock(c);
}

function setClock(c) {
  clockBase = { ms: Date.parse(c.now), at: performance.now(), iso: c.now };
  document.getElementById('clock-now').textContent = c.now;
  const off = Number(c.clock_offset_us || 0);
  document.getElementById('clock-offset').textContent = off ? `(+${formatDuration(off / 1e6)} ahead of wall time)` : '';
}

function tickClock() {
  if (!clockBase) return;
  const ms = clockBase.ms + (performance.now() - clockBase.at);
  document.getElementById('clock-now').textContent = new Date(ms).toISOString().replace('.000Z', 'Z');
}

function formatDuration(sec) {
  const d = Math.floor(sec / 86400), h = Math.floor((sec % 86400) / 3600), m = Math.floor((sec % 3600) / 60);
  return [d && `${d}d`, h && `${h}h`, m && `${m}m`].filter(Boolean).join(' ') || `${Math.round(sec)}s`;
}

async function advanceClock(ev) {
  ev.preventDefault();
  const by = document.getElementById('clock-by').value.trim();
  try {
    const c = await api('POST', ADMIN + '/clock/advance', { duration: by });
    setClock(c);
    showError(null);
  } catch (err) {
    showError(err);
  }
}

// ---- network ----

// loadNetwork draws the network as the admin API gives it at once, and
// the Scan's open rounds when they come: a Scan still catching up on a
// long history must not hold the first render back.
async function loadNetwork() {
  const rounds = api('POST', SCAN + '/v0/open-and-issuing-mining-rounds',
    { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] }).catch(() => null);
  const net = await api('GET', ADMIN + '/network');
  state.network = net;
  renderNetwork(net, null);
  rounds.then((r) => {
    if (r && state.network === net) renderNetwork(net, r);
  });
  return net;
}

function renderNetwork(net, rounds) {
  const svParticipants = new Set(net.svs.map((s) => s.participant_id));
  const byID = new Map(net.participants.map((p) => [p.participant_id, p]));
  const openRounds = rounds ? Object.values(rounds.open_mining_rounds || {})
    .map((r) => Number(r.contract?.payload?.round?.number)).sort((a, b) => a - b).join(', ') : '…';
  const summary = el('table', { class: 'kv' }, el('tbody', {},
    el('tr', {}, el('th', { text: 'DSO party' }), idCell(net.dso_party_id, 80)),
    el('tr', {}, el('th', { text: 'migration' }), td(String(net.migration_id))),
    el('tr', {}, el('th', { text: 'open mining rounds' }), td(openRounds || '–')),
  ));
  const svs = table(['SV', 'party', 'participant', 'ledger end'], net.svs.slice(0, LIST_CAP).map((s) =>
    el('tr', {}, td(s.name), partyCell(s.party_id), idCell(s.participant_id), td(String(byID.get(s.participant_id)?.ledger_end ?? ''), 'num'))));
  const validators = table(['validator', 'participant', 'parties', 'ledger end', 'pruned up to'],
    net.participants.filter((p) => !svParticipants.has(p.participant_id)).slice(0, LIST_CAP).map((p) =>
      el('tr', {}, td(p.name), idCell(p.participant_id), td(String(p.parties.length), 'num'),
        td(String(p.ledger_end), 'num'), td(String(p.pruned_up_to), 'num'))));
  const syncs = table(['synchronizer', 'alias', 'migration'], net.synchronizers.map((s) =>
    el('tr', {}, idCell(s.synchronizer_id, 48), td(s.alias), td(String(s.migration_id), 'num'))));
  const migs = table(['migration', 'start offsets'], net.migrations.map((m) =>
    el('tr', {}, td(String(m.migration_id), 'num'),
      td((m.start_offsets || []).map((o) => typeof o === 'object' ? JSON.stringify(o) : String(o)).join(', ') || '–'))));
  setBody('network', summary, el('h3', { text: `Super validators (${net.svs.length})` }), svs,
    el('h3', { text: 'Validators' }), validators, el('h3', { text: 'Synchronizers' }), syncs,
    el('h3', { text: 'Migrations' }), migs);
}

// ---- parties and balances ----

async function loadParties(withLive) {
  const net = state.network || await loadNetwork();
  const parties = new Map();
  for (const p of net.participants) {
    for (const party of p.parties) {
      if (!parties.has(party)) parties.set(party, { party, hosts: [], users: [] });
      parties.get(party).hosts.push(p.name);
    }
  }
  const validatorIDs = new Set(net.participants.filter((p) => !net.svs.some((s) => s.participant_id === p.participant_id)).map((p) => p.participant_id));
  const wallets = [];
  for (const u of net.users) {
    if (!u.party_id || !parties.has(u.party_id)) continue;
    const entry = parties.get(u.party_id);
    if (!entry.users.includes(u.user_id)) entry.users.push(u.user_id);
    if (validatorIDs.has(u.participant_id) && u.user_id !== 'participant_admin') wallets.push(entry);
  }
  const list = [...parties.values()].slice(0, LIST_CAP);
  // The Scan's summary of every listed party as of its latest ACS
  // snapshot; live balances of the wallet users (their Amulet contracts
  // at the ledger end, read as the party) on a short ledger or when asked.
  const live = new Map();
  const readLive = withLive === true || state.ledgerEnd <= LEDGER_ACS_AUTO;
  if (readLive) {
    // One at a time: each read replays the party's history on the server.
    for (const w of [...new Set(wallets)].slice(0, 20)) {
      try {
        live.set(w.party, await amuletOf(w.party));
      } catch {
        /* shown as – */
      }
    }
  }
  // Party by party: the Scan refuses a summary of more than 1,000
  // holdings, which one busy party must not cost every other its line.
  const scanSummary = new Map();
  let snapshotAt = '';
  try {
    snapshotAt = await latestSnapshot(net.migration_id);
  } catch {
    /* no snapshot yet */
  }
  if (snapshotAt) {
    const queue = list.slice(0, 50);
    await Promise.all([1, 2, 3, 4].map(async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        try {
          const s = await api('POST', SCAN + '/v0/holdings/summary',
            { migration_id: net.migration_id, record_time: snapshotAt, owner_party_ids: [p.party] });
          if (s.summaries[0]) scanSummary.set(p.party, s.summaries[0]);
        } catch (err) {
          scanSummary.set(p.party, { error: err.status === 400 ? 'over 1,000 holdings' : 'unavailable' });
        }
      }
    }));
  }
  const rows = list.map((p) => {
    const l = live.get(p.party), s = scanSummary.get(p.party);
    return el('tr', {}, partyCell(p.party), td(p.hosts.join(', ')), td(p.users.join(', ')),
      td(s ? s.error ?? s.total_available_coin : '', s?.error ? 'muted' : 'num'), td(s ? s.total_locked_coin : '', 'num'),
      td(l ? l.total : '', 'num'), td(l ? String(l.count) : '', 'num'));
  });
  setBody('parties',
    table(['party', 'hosted on', 'users', 'available (Scan)', 'locked (Scan)', 'amulet (live)', 'coins'], rows),
    el('p', { class: 'muted' }, `Scan: holdings summary of the ACS snapshot at ${snapshotAt || '(none yet)'} `,
      snapshotButton(), '. ',
      readLive ? `Live: the wallet users' Amulet contracts at the ledger end (initial amounts, before holding fees).`
        : el('button', { type: 'button', text: 'Read live balances', onclick: () => loadParties(true).catch(showError) }),
      readLive ? '' : ` (the ledger API replays the history of ${state.ledgerEnd} offsets to list them: slow on a long ledger)`));
}

// snapshotButton takes a Scan ACS snapshot now (the admin API), so that
// the Scan's views read the ledger as it is.
function snapshotButton() {
  return el('button', {
    type: 'button', class: 'snapshot', text: 'snapshot now',
    onclick: async () => {
      try {
        await api('POST', ADMIN + '/scan/snapshots');
        await Promise.all([loadParties(), loadContracts()]);
      } catch (err) {
        showError(err);
      }
    },
  });
}

async function latestSnapshot(migration) {
  const far = new Date(Date.now() + 100 * 365 * 86400e3).toISOString();
  const ts = await api('GET', `${SCAN}/v0/state/acs/snapshot-timestamp?migration_id=${migration}&before=${encodeURIComponent(far)}`);
  return ts.record_time;
}

async function amuletOf(party) {
  const page = await api('POST', '/v2/state/active-contracts-page', {
    maxPageSize: 1000,
    eventFormat: { filtersByParty: { [party]: templateFilter(TEMPLATES.amulet) }, verbose: false },
  });
  let total = 0, count = 0;
  for (const c of page.activeContracts || []) {
    const arg = c.contractEntry?.JsActiveContract?.createdEvent?.createArgument;
    if (!arg || arg.owner !== party) continue;
    total += Number(arg.amount?.initialAmount || 0);
    count++;
  }
  return { total: total.toFixed(4) + (page.nextPageToken ? '+' : ''), count };
}

function templateFilter(templateId) {
  return { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId, includeCreatedEventBlob: false } } } }] };
}

async function activeOf(templateId, n) {
  const page = await api('POST', '/v2/state/active-contracts-page', {
    maxPageSize: n,
    eventFormat: { filtersForAnyParty: templateFilter(templateId), verbose: false },
  });
  return (page.activeContracts || []).map((c) => c.contractEntry?.JsActiveContract?.createdEvent).filter(Boolean);
}

// ---- offers, instructions, names ----

async function loadContracts(withOffers) {
  const net = state.network || await loadNetwork();
  const readOffers = withOffers === true || state.ledgerEnd <= LEDGER_ACS_AUTO;
  const [offers, instructions, names] = await Promise.all([
    readOffers ? activeOf(TEMPLATES.transferOffer, LIST_CAP).catch((e) => e) : null,
    scanActiveOf(net.migration_id, SCAN_TEMPLATES.transferInstruction).catch((e) => e),
    api('GET', SCAN + `/v0/ans-entries?page_size=${LIST_CAP}`).catch((e) => e),
  ]);
  const failed = (x) => x instanceof Error ? el('p', { class: 'bad', text: x.message }) : null;
  const offerRows = !offers || offers instanceof Error ? [] : offers.map((c) => {
    const a = c.createArgument || {};
    return el('tr', {}, partyCell(a.sender), partyCell(a.receiver), td(a.amount?.amount, 'num'),
      td(a.description), td(a.expiresAt), idCell(a.trackingId, 16));
  });
  const instrRows = instructions instanceof Error ? [] : instructions.events.map((c) => {
    const t = c.create_arguments?.transfer || {};
    const meta = t.meta?.values || {};
    const reason = meta['splice.lfdecentralizedtrust.org/reason'] ?? Object.values(meta).join(' ');
    return el('tr', {}, partyCell(t.sender), partyCell(t.receiver), td(t.amount, 'num'), td(reason),
      td(t.executeBefore), idCell(c.contract_id, 16));
  });
  const nameRows = names instanceof Error ? [] : (names.entries || []).map((e) =>
    el('tr', {}, td(e.name), partyCell(e.user), td(e.url), td(e.description), td(e.expires_at)));
  setBody('contracts',
    el('h3', { text: offers ? `Transfer offers (${offerRows.length})` : 'Transfer offers' }), failed(offers),
    offers ? table(['sender', 'receiver', 'amount', 'description', 'expires', 'tracking id'], offerRows)
      : el('p', { class: 'muted' }, 'Only their parties and the validator see them (not the Scan), and the ledger API replays ',
        `the history of ${state.ledgerEnd} offsets to list them: `,
        el('button', { type: 'button', text: 'Read them', onclick: () => loadContracts(true).catch(showError) })),
    el('h3', { text: `Token-standard transfer instructions (${instrRows.length})` }), failed(instructions),
    table(['sender', 'receiver', 'amount', 'reason', 'execute before', 'contract'], instrRows),
    instructions instanceof Error ? null : el('p', { class: 'muted' }, `As of the Scan's ACS snapshot at ${instructions.at} `, snapshotButton(), '.'),
    el('h3', { text: `Name entries (${nameRows.length})` }), failed(names),
    table(['name', 'user', 'url', 'description', 'expires'], nameRows));
}

// scanActiveOf reads a template's contracts in the Scan's latest ACS
// snapshot: one indexed page, whatever the ledger's length.
async function scanActiveOf(migration, template) {
  const at = await latestSnapshot(migration);
  const page = await api('POST', SCAN + '/v2/state/acs',
    { migration_id: migration, record_time: at, page_size: LIST_CAP, templates: [template] });
  return { at, events: page.created_events || [] };
}

// ---- live feed ----

const feed = {
  rows: null, stats: null, ws: null, offset: 0, received: 0, pending: [], scheduled: false, paused: false,
  data: new WeakMap(), rateWindow: [], generation: 0, backoff: 1000, lastDraw: 0,
};

const UPDATE_FORMAT = {
  includeTransactions: {
    eventFormat: { filtersForAnyParty: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] }, verbose: false },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  },
  includeReassignments: {
    filtersForAnyParty: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] }, verbose: false,
  },
};

async function startFeed() {
  const gen = ++feed.generation;
  if (feed.ws) feed.ws.close();
  feed.rows.replaceChildren();
  feed.pending = [];
  feed.offset = 0;
  // The newest FEED_INITIAL updates, read from the ledger end down in one
  // request; the stream then starts after the newest of them, so that no
  // update is missed or shown twice.
  const page = await api('POST', '/v2/updates/get-updates-page', {
    maxPageSize: FEED_INITIAL, descendingOrder: true, updateFormat: UPDATE_FORMAT,
  });
  const ups = (page.updates || []).map((u) => u.update).reverse();
  for (const u of ups) enqueue(u, false);
  state.ledgerEnd = feed.offset;
  flushFeed(); // the initial page is drawn at once, not a frame later
  if (gen === feed.generation) connectFeed(gen);
}

function connectFeed(gen) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const protocols = token() ? ['jwt.token.' + token(), 'daml.ws.auth'] : ['daml.ws.auth'];
  const ws = new WebSocket(`${proto}//${location.host}/v2/updates`, protocols);
  feed.ws = ws;
  ws.onopen = () => {
    feed.backoff = 1000;
    ws.send(JSON.stringify({ beginExclusive: feed.offset, verbose: false, updateFormat: UPDATE_FORMAT }));
    document.body.dataset.feed = 'live';
    renderStats();
  };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.update) {
      if (m.update.OffsetCheckpoint) {
        feed.offset = Math.max(feed.offset, m.update.OffsetCheckpoint.value?.offset || 0);
        return;
      }
      enqueue(m.update, true);
    } else if (m.code || m.cause) {
      showError(new Error(`live updates: ${m.code || ''} ${m.cause || ''}`));
    }
  };
  ws.onclose = () => {
    if (feed.ws !== ws) return;
    document.body.dataset.feed = 'reconnecting';
    renderStats();
    // Reconnect from the last offset seen, waiting longer after each
    // failure (a bad token, a stopped server), up to 30 s.
    const wait = feed.backoff || 1000;
    feed.backoff = Math.min(wait * 2, 30000);
    if (gen === feed.generation) setTimeout(() => gen === feed.generation && connectFeed(gen), wait);
  };
}

function updateValue(u) {
  const kind = Object.keys(u)[0];
  return { kind, v: u[kind]?.value || {} };
}

// enqueue keeps at most FEED_CAP updates waiting for the next frame:
// when the tab is hidden (no frames) or paused, older ones are dropped,
// as they would be scrolled off anyway.
function enqueue(u, live) {
  const { v } = updateValue(u);
  if (typeof v.offset === 'number') feed.offset = Math.max(feed.offset, v.offset);
  if (live) {
    feed.received++;
    feed.rateWindow.push(performance.now());
  }
  feed.pending.push(u);
  if (feed.pending.length > FEED_CAP * 2) feed.pending.splice(0, feed.pending.length - FEED_CAP);
  if (!feed.scheduled) {
    feed.scheduled = true;
    // One draw per animation frame, and at most one per FEED_INTERVAL:
    // each draw shifts and repaints the visible rows, whatever their
    // number, so at a high commit rate fewer, larger batches cost less.
    const wait = feed.lastDraw + FEED_INTERVAL - performance.now();
    if (wait <= 0) requestAnimationFrame(flushFeed);
    else setTimeout(() => requestAnimationFrame(flushFeed), wait);
  }
}

// flushFeed draws everything that arrived since the last frame in one DOM
// change, newest on top, and trims the table to FEED_CAP rows.
function flushFeed() {
  feed.scheduled = false;
  feed.lastDraw = performance.now();
  if (feed.paused || feed.pending.length === 0) {
    renderStats();
    return;
  }
  const batch = feed.pending.length > FEED_CAP ? feed.pending.slice(-FEED_CAP) : feed.pending;
  feed.pending = [];
  const frag = document.createDocumentFragment();
  for (let i = batch.length - 1; i >= 0; i--) frag.appendChild(feedRow(batch[i]));
  feed.rows.prepend(frag);
  let extra = feed.rows.childElementCount - FEED_CAP;
  while (extra-- > 0) feed.rows.lastElementChild.remove();
  renderStats();
}

function feedRow(u) {
  const { kind, v } = updateValue(u);
  const events = v.events || [];
  const parts = [];
  let args = '';
  for (const e of events.slice(0, 4)) {
    if (e.CreatedEvent) {
      parts.push('+' + shortTemplate(e.CreatedEvent.templateId));
      if (!args) args = JSON.stringify(e.CreatedEvent.createArgument);
    } else if (e.ArchivedEvent) parts.push('−' + shortTemplate(e.ArchivedEvent.templateId));
    else if (e.ExercisedEvent) parts.push(shortTemplate(e.ExercisedEvent.templateId) + '.' + e.ExercisedEvent.choice);
    else if (e.JsAssignmentEvent || e.JsUnassignedEvent) parts.push(Object.keys(e)[0]);
  }
  if (events.length > 4) parts.push(`… ${events.length} events`);
  const cell = (text, cls, title) => el('span', { class: cls, title }, text);
  const tr = el('div', { class: 'row' }, cell(String(v.offset ?? '')), cell(v.recordTime || v.effectiveAt || ''),
    cell(kind), cell(clip(v.updateId, 24), 'id', v.updateId),
    el('span', { title: args }, parts.join(' '), args ? el('span', { class: 'muted' }, ' ', clip(args, 200)) : null));
  feed.data.set(tr, u);
  return tr;
}

function renderStats() {
  const now = performance.now();
  while (feed.rateWindow.length && feed.rateWindow[0] < now - 5000) feed.rateWindow.shift();
  const rate = feed.rateWindow.length / 5;
  feed.stats.textContent = `${document.body.dataset.feed || 'connecting'} · offset ${feed.offset} · ${feed.received} received · ${rate.toFixed(1)}/s`;
}

function showFeedDetail(ev) {
  const tr = ev.target.closest('.row');
  const u = tr && feed.data.get(tr);
  const pre = document.getElementById('feed-detail');
  if (!u) return;
  pre.textContent = JSON.stringify(u, null, 2);
  pre.hidden = false;
}

// ---- Scan explorer ----

const explorer = { tab: null };

async function showTab(name) {
  explorer.tab = name;
  for (const b of document.querySelectorAll('#explorer-tabs button')) b.setAttribute('aria-pressed', String(b.dataset.tab === name));
  setBody('explorer', el('p', { class: 'muted', text: 'Loading…' }));
  try {
    await ({ history: historyTab, acs: acsTab, votes: votesTab, migrations: migrationsTab })[name]();
  } catch (err) {
    setBody('explorer', el('p', { class: 'bad', text: err.message }));
  }
}

function detailsPre(obj) {
  return el('details', {}, el('summary', { text: 'JSON' }), el('pre', { text: JSON.stringify(obj, null, 2) }));
}

async function historyTab(after) {
  const page = await api('POST', SCAN + '/v2/updates', { page_size: 20, ...(after ? { after } : {}) });
  const txs = page.transactions || [];
  const rows = txs.map((t) => el('tr', {}, td(String(t.migration_id ?? ''), 'num'), td(t.record_time), idCell(t.update_id, 24),
    td(t.workflow_id || ''), td(String(Object.keys(t.events_by_id || {}).length), 'num'), el('td', {}, detailsPre(t))));
  const last = txs[txs.length - 1];
  const next = last ? el('button', {
    type: 'button', text: 'Next page',
    onclick: () => historyTab({ after_migration_id: last.migration_id, after_record_time: last.record_time }).catch(showError),
  }) : null;
  setBody('explorer', el('div', { class: 'pager' }, el('span', { class: 'muted' },
    after ? `after ${after.after_record_time}` : 'from the start of the history'), next,
    el('button', { type: 'button', text: 'First page', onclick: () => historyTab().catch(showError) })),
  table(['migration', 'record time', 'update', 'workflow', 'events', ''], rows));
}

async function acsTab(at, pageToken, recordTime) {
  const migration = state.network?.migration_id ?? 0;
  const form = el('form', { class: 'pager', onsubmit: (ev) => {
    ev.preventDefault();
    acsTab(ev.target.elements.at.value).catch(showError);
  } }, el('label', {}, 'snapshot at or before ', el('input', { name: 'at', value: at || clockBase?.iso || new Date().toISOString(), size: 28 })),
  el('button', { type: 'submit', text: 'Show' }));
  if (!recordTime) {
    const before = at || new Date(Date.now() + 100 * 365 * 86400e3).toISOString();
    recordTime = (await api('GET', `${SCAN}/v0/state/acs/snapshot-timestamp?migration_id=${migration}&before=${encodeURIComponent(before)}`)).record_time;
  }
  const page = await api('POST', SCAN + '/v2/state/acs', {
    migration_id: migration, record_time: recordTime, page_size: 50, ...(pageToken !== undefined ? { after: pageToken } : {}),
  });
  const rows = (page.created_events || []).map((c) => el('tr', {}, idCell(c.contract_id, 20), td(shortTemplate(c.template_id)),
    td(clip(JSON.stringify(c.create_arguments), 300), 'args'), el('td', {}, detailsPre(c))));
  const next = page.next_page_token !== undefined && page.next_page_token !== null
    ? el('button', { type: 'button', text: 'Next page', onclick: () => acsTab(at, page.next_page_token, recordTime).catch(showError) }) : null;
  setBody('explorer', form, el('div', { class: 'pager' }, el('span', { class: 'muted' }, `snapshot ${recordTime}, migration ${migration}`), next),
    table(['contract', 'template', 'arguments', ''], rows));
}

async function votesTab() {
  const r = await api('GET', SCAN + '/v0/admin/sv/voterequests');
  const rows = (r.dso_rules_vote_requests || []).map((v) => {
    const p = v.payload || {};
    return el('tr', {}, td(p.requester), td(p.action?.tag || Object.keys(p.action || {})[0] || ''), td(p.reason?.body), td(p.reason?.url),
      td(p.voteBefore), td(String((Array.isArray(p.votes) ? p.votes : Object.keys(p.votes || {})).length), 'num'), el('td', {}, detailsPre(v)));
  });
  setBody('explorer', table(['requester', 'action', 'reason', 'url', 'vote before', 'votes', ''], rows));
}

async function migrationsTab() {
  const net = state.network || await loadNetwork();
  const status = await api('GET', SCAN + '/v0/backfilling/status').catch((e) => ({ error: e.message }));
  const infos = await Promise.all(net.migrations.map((m) =>
    api('POST', SCAN + '/v0/backfilling/migration-info', { migration_id: m.migration_id }).catch((e) => ({ error: e.message }))));
  const rows = net.migrations.map((m, i) => el('tr', {}, td(String(m.migration_id), 'num'),
    td(m.migration_id === net.migration_id ? 'current' : 'ended'), el('td', {}, detailsPre(infos[i]))));
  setBody('explorer', el('p', {}, 'Backfilling: ', el('span', { class: 'id', text: JSON.stringify(status) })),
    table(['migration', 'state', 'Scan migration info'], rows));
}

// ---- saves ----

async function loadSaves() {
  let r;
  try {
    r = await api('GET', ADMIN + '/saves');
  } catch (err) {
    if (err.status === 404) {
      document.getElementById('save-form').hidden = true;
      setBody('saves', el('p', { class: 'muted', text: 'This sandnet has no saves API (GET /api/sandnet/v0/saves answered 404).' }));
      return;
    }
    throw err;
  }
  document.getElementById('save-form').hidden = false;
  const rows = (r.saves || []).map((s) => el('tr', { 'data-save': s.name }, td(s.name), td(s.created_at), td(s.ledger_time),
    td(String(s.ledger_end), 'num'), td(String(s.size_bytes), 'num'),
    el('td', {}, el('button', { type: 'button', class: 'restore', text: 'Restore', onclick: () => restoreSave(s.name) }), ' ',
      el('button', { type: 'button', class: 'delete', text: 'Delete', onclick: () => deleteSave(s.name) }))));
  setBody('saves', rows.length ? table(['name', 'created', 'ledger time', 'ledger end', 'size (bytes)', ''], rows)
    : el('p', { class: 'muted', text: 'No saves yet.' }));
}

async function createSave(ev) {
  ev.preventDefault();
  const name = document.getElementById('save-name').value.trim();
  try {
    await api('POST', ADMIN + '/saves', { name });
    document.getElementById('save-name').value = '';
    showError(null);
  } catch (err) {
    showError(err);
  }
  await loadSaves().catch(showError);
}

async function restoreSave(name) {
  try {
    await api('POST', `${ADMIN}/saves/${encodeURIComponent(name)}/restore`);
    document.body.dataset.restored = name;
    await loadAll();
  } catch (err) {
    showError(err);
  }
}

async function deleteSave(name) {
  try {
    await api('DELETE', `${ADMIN}/saves/${encodeURIComponent(name)}`);
    showError(null);
  } catch (err) {
    showError(err);
  }
  await loadSaves().catch(showError);
}

// ---- start ----

async function loadAll() {
  showError(null);
  document.body.dataset.loaded = 'false';
  document.getElementById('token-status').textContent = token() ? '' : 'no token: paste one';
  const t0 = performance.now();
  performance.mark('sandnet:reads');
  // First render: heads only.
  const first = await Promise.allSettled([loadClock(), loadNetwork(), startFeed()]);
  const failed = first.find((r) => r.status === 'rejected');
  if (failed) showError(failed.reason);
  performance.mark('sandnet:first-render');
  window.sandnetFirstRender = { sincenavigation: performance.now(), load: performance.now() - t0 };
  document.body.dataset.ready = 'true';
  // Then the rest.
  await Promise.allSettled([
    loadParties().catch((e) => setBody('parties', el('p', { class: 'bad', text: e.message }))),
    loadContracts().catch((e) => setBody('contracts', el('p', { class: 'bad', text: e.message }))),
    loadSaves().catch((e) => setBody('saves', el('p', { class: 'bad', text: e.message }))),
  ]);
  document.body.dataset.loaded = 'true';
  if (explorer.tab) showTab(explorer.tab);
}

function init() {
  performance.mark('sandnet:start');
  // For measures and tests: where the feed is.
  window.sandnetFeed = () => ({ offset: feed.offset, received: feed.received, rows: feed.rows.childElementCount, pending: feed.pending.length });
  takeTokenFromFragment();
  performance.mark('sandnet:token');
  feed.rows = document.getElementById('feed-rows');
  feed.stats = document.getElementById('feed-stats');
  document.getElementById('token').value = token();
  document.getElementById('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, document.getElementById('token').value.trim());
    loadAll();
  });
  document.getElementById('clock-form').addEventListener('submit', advanceClock);
  document.getElementById('save-form').addEventListener('submit', createSave);
  document.getElementById('feed-pause').addEventListener('click', (ev) => {
    feed.paused = !feed.paused;
    ev.target.textContent = feed.paused ? 'Resume' : 'Pause';
    if (!feed.paused) flushFeed();
  });
  feed.rows.addEventListener('click', showFeedDetail);
  for (const b of document.querySelectorAll('#explorer-tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));
  const loaders = { network: loadNetwork, parties: loadParties, contracts: loadContracts, saves: loadSaves };
  for (const b of document.querySelectorAll('button[data-refresh]')) {
    b.addEventListener('click', () => loaders[b.dataset.refresh]().catch(showError));
  }
  setInterval(tickClock, 1000);
  setInterval(() => loadClock().catch(() => {}), 15000); // a clock moved by someone else
  setInterval(renderStats, 1000);
  loadAll();
}

init();
