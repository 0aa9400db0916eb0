// A client of a Sandbench session's control socket (docs/protocol.md, version 3): one connection
// over which processes run, files are read and written and ports exposed, many at a time.
//
// A frame is [u32 length, little-endian][u8 type][payload]; length counts the type byte and the
// payload. exec_output and exec_input carry [u64 seq, little-endian][bytes]; every other message
// one JSON object.
import net from 'node:net';

const TYPES = {
  hello: 1, welcome: 2, approval_request: 9, approval_answer: 10, approval_outcome: 11,
  exit: 14, error: 15, ack: 17, stop: 12,
  exec_start: 19, exec_started: 20, exec_output: 21, exec_input: 22, exec_control: 23,
  exec_event: 24, exec_exit: 25, file_request: 26, file_reply: 27, port_request: 28,
  port_reply: 29,
};
// The requests answered by a reply of their own (or an error naming them), by id.
const REPLIES = new Map([
  [TYPES.file_reply, 'file_request'],
  [TYPES.port_reply, 'port_request'],
]);
const BYTES_TYPES = new Set([TYPES.exec_output, TYPES.exec_input, 5, 6]);
const MAX_FRAME = 16 << 20;

/** The process of an exec: what it printed, and how it ended. */
export class Process {
  constructor(id) {
    this.id = id;
    this.pid = undefined;
    this.stdout = [];
    this.stderr = [];
    this.output = []; // both, in order
    this.exit = undefined; // the exec_exit body
    this.approval = undefined; // the request it waits on, while it waits
    this.listeners = new Set();
  }

  /** Resolves once the process ended, or after `ms`, whichever comes first; true if it ended. */
  wait(ms) {
    if (this.exit) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ended) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(ended);
      };
      const listener = () => { if (this.exit) done(true); };
      const timer = ms === Infinity ? undefined : setTimeout(() => done(Boolean(this.exit)), ms);
      this.listeners.add(listener);
    });
  }

  /** Resolves when anything happens to the process (output, approval, exit). */
  changed() {
    return new Promise((resolve) => {
      const listener = () => { this.listeners.delete(listener); resolve(); };
      this.listeners.add(listener);
    });
  }

  notify() {
    for (const listener of [...this.listeners]) listener();
  }
}

export class ControlConnection {
  /**
   * Connects to a session's socket and completes the handshake (protocol version 3, or the
   * session's older one).
   * @param {string} socketPath
   * @param {string} clientName how the session records who asked
   */
  static async connect(socketPath, clientName) {
    const socket = net.createConnection(socketPath);
    await new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const connection = new ControlConnection(socket);
    const welcome = await connection.#handshake(clientName);
    if (!(welcome.features ?? []).includes('exec'))
      throw new Error(`the session at ${socketPath} runs no processes for programs`);
    connection.welcome = welcome;
    for (const request of welcome.pending ?? []) connection.#pending.set(request.id, request);
    return connection;
  }

  #socket;
  #buffer = Buffer.alloc(0);
  #nextId = 1;
  #processes = new Map();
  #requests = new Map(); // id → {resolve, reject}: file and port requests
  #waiters = [];
  #closedError = undefined;
  #pending = new Map(); // approval id → request, while it waits for an answer
  #answers = new Map(); // approval id → {resolve, reject}: answers this client sent
  #approvalListeners = new Set();

  constructor(socket) {
    this.#socket = socket;
    socket.on('data', (chunk) => this.#onData(chunk));
    socket.on('error', (e) => this.#onClose(e));
    socket.on('close', () => this.#onClose(new Error('the session closed the connection')));
  }

  get closed() {
    return this.#closedError !== undefined;
  }

  close() {
    this.#socket.end();
    this.#socket.destroy();
  }

  /**
   * Starts a process; `request` is exec_start's body without its id (argv or shell, cwd, env,
   * stdin, tty, timeout_ms, origin).
   * @returns {Process}
   */
  exec(request) {
    const process = new Process(this.#nextId++);
    this.#processes.set(process.id, process);
    this.#send(TYPES.exec_start, { ...request, id: process.id });
    return process;
  }

  input(process, bytes) {
    this.#sendBytes(TYPES.exec_input, BigInt(process.id), Buffer.from(bytes));
  }

  control(process, body) {
    this.#send(TYPES.exec_control, { ...body, id: process.id });
  }

  /** A file request (op, path, …) and its reply's body: {ok: true, …} or {ok: false, error}. */
  file(request) {
    return this.#request(TYPES.file_request, request);
  }

  /** Whether the session forwards ports (version 3, "features": ports). */
  get servesPorts() {
    return (this.welcome?.features ?? []).includes('ports');
  }

  /**
   * A port request ({op: 'list' | 'expose' | 'close', port, host_port}) and its reply's body:
   * {ok: true, forward | listening, forwards} or {ok: false, error}.
   */
  ports(request) {
    return this.#request(TYPES.port_request, request);
  }

  /** The session's approval requests waiting for an answer (commands and connections). */
  pendingApprovals() {
    return [...this.#pending.values()];
  }

  /** Calls `listener(request)` for each new approval request; returns the unsubscribe. */
  onApprovalRequest(listener) {
    this.#approvalListeners.add(listener);
    return () => this.#approvalListeners.delete(listener);
  }

  /**
   * Answers an approval request ({allow, scope, duration, answered_by}); resolves once the
   * session took it, rejects when it was answered already, timed out or never asked.
   */
  answerApproval(id, answer) {
    return new Promise((resolve, reject) => {
      if (this.#closedError) return reject(this.#closedError);
      const waiting = this.#answers.get(id) ?? [];
      waiting.push({ resolve, reject });
      this.#answers.set(id, waiting);
      this.#send(TYPES.approval_answer, { ...answer, id });
    });
  }

  #settleAnswer(id, error) {
    const waiting = this.#answers.get(id);
    if (!waiting) return;
    this.#answers.delete(id);
    for (const w of waiting) error ? w.reject(error) : w.resolve();
  }

  #request(type, request) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#closedError) return reject(this.#closedError);
      this.#requests.set(id, { resolve, reject });
      this.#send(type, { ...request, id });
    });
  }

  /**
   * Asks the session to stop (SIGTERM to its sandbox; its changes stay for review) and resolves
   * once it ended, or after `ms`.
   */
  stop(ms = 10_000) {
    if (this.closed) return Promise.resolve();
    const ended = new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#socket.once('close', () => { clearTimeout(timer); resolve(); });
    });
    this.#send(TYPES.stop, {});
    return ended;
  }

  #handshake(clientName) {
    return new Promise((resolve, reject) => {
      this.#waiters.push({ type: TYPES.welcome, resolve, reject });
      this.#send(TYPES.hello, { version: 3, client: clientName, role: 'viewer' });
    });
  }

  #send(type, body) {
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    const header = Buffer.alloc(5);
    header.writeUInt32LE(payload.length + 1, 0);
    header.writeUInt8(type, 4);
    this.#socket.write(Buffer.concat([header, payload]));
  }

  #sendBytes(type, seq, bytes) {
    const header = Buffer.alloc(13);
    header.writeUInt32LE(bytes.length + 9, 0);
    header.writeUInt8(type, 4);
    header.writeBigUInt64LE(seq, 5);
    this.#socket.write(Buffer.concat([header, bytes]));
  }

  #onData(chunk) {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    while (this.#buffer.length >= 5) {
      const length = this.#buffer.readUInt32LE(0);
      if (length < 1 || length > MAX_FRAME) {
        this.#onClose(new Error(`a frame of ${length} bytes from the session`));
        this.close();
        return;
      }
      if (this.#buffer.length < 4 + length) return;
      const type = this.#buffer.readUInt8(4);
      const payload = this.#buffer.subarray(5, 4 + length);
      this.#buffer = this.#buffer.subarray(4 + length);
      if (BYTES_TYPES.has(type)) this.#onBytes(type, payload.readBigUInt64LE(0), payload.subarray(8));
      else this.#onMessage(type, JSON.parse(payload.toString('utf8')));
    }
  }

  #onBytes(type, seq, bytes) {
    if (type !== TYPES.exec_output) return;
    const process = this.#processes.get(Number(seq >> 8n));
    if (!process) return;
    const copy = Buffer.from(bytes);
    (Number(seq & 0xffn) === 2 ? process.stderr : process.stdout).push(copy);
    process.output.push(copy);
    process.approval = undefined; // it runs: whatever it waited on was answered
    process.notify();
  }

  #onMessage(type, body) {
    if (type === TYPES.welcome || (type === TYPES.error && body.ref === 'hello')) {
      const waiter = this.#waiters.shift();
      if (!waiter) return;
      return type === TYPES.welcome ? waiter.resolve(body) : waiter.reject(new Error(body.message));
    }
    if (type === TYPES.exit) return this.#onClose(new Error(`the session ended (status ${body.status})`));
    if (type === TYPES.approval_request) {
      this.#pending.set(body.id, body);
      for (const listener of [...this.#approvalListeners]) listener(body);
      return;
    }
    if (type === TYPES.approval_outcome) {
      this.#pending.delete(body.id);
      return;
    }
    if (type === TYPES.ack && body.ref === 'approval_answer') return this.#settleAnswer(body.id);
    if (type === TYPES.error && body.ref === 'approval_answer') {
      const error = new Error(body.message);
      error.code = body.code;
      return this.#settleAnswer(body.id, error);
    }
    const replied = REPLIES.has(type);
    if (replied || (type === TYPES.error && [...REPLIES.values()].includes(body.ref))) {
      const pending = this.#requests.get(body.id);
      if (!pending) return;
      this.#requests.delete(body.id);
      return pending.resolve(replied ? body
        : { ok: false, error: { code: body.code, message: body.message } });
    }
    const process = this.#processes.get(body.id);
    if (!process) return;
    if (type === TYPES.exec_started) {
      process.pid = body.pid;
    } else if (type === TYPES.exec_event && body.approval) {
      process.approval = body.approval;
    } else if (type === TYPES.exec_exit || (type === TYPES.error && body.ref === 'exec_start')) {
      process.exit = type === TYPES.exec_exit ? body
        : { id: body.id, error: body.message, exit_code: null, signal: null };
      process.approval = undefined;
      this.#processes.delete(process.id);
    } else {
      return;
    }
    process.notify();
  }

  #onClose(error) {
    if (this.#closedError) return;
    this.#closedError = error;
    for (const w of this.#waiters.splice(0)) w.reject(error);
    for (const pending of this.#requests.values()) pending.reject(error);
    this.#requests.clear();
    for (const id of [...this.#answers.keys()]) this.#settleAnswer(id, error);
    this.#pending.clear();
    for (const process of this.#processes.values()) {
      process.exit = { id: process.id, error: error.message, exit_code: null, signal: null };
      process.notify();
    }
    this.#processes.clear();
  }
}
