// The code interpreter's gateway (CodeInterpreter.h), the Python program `serve` writes into a
// code interpreter sandbox's /tmp and runs there with Debian's python3 and jupyter_client. It is
// Sandbench's own: requests on stdin and answers on stdout, one JSON object a line each.
#include "e2b/CodeInterpreter.h"

#include <string>

namespace sb::e2b {

namespace {

constexpr std::string_view kScript = R"py(
# Sandbench's code interpreter, inside an E2B sandbox (docs/e2b.md, "The Code Interpreter"):
# Jupyter kernels (Debian's ipykernel) run by jupyter_client, driven by requests that
# `sandbench-cli serve` writes on stdin, one JSON object a line, and answered on stdout, one
# JSON object a line naming the request's id. It opens no port: every kernel it starts is a
# process of the sandbox, under its policy and exec approval, and what it prints is recorded.
import json
import os
import shlex
import queue
import signal
import subprocess
import sys
import threading
import uuid

# Sandboxes run as batch work (a process of theirs that wakes up waits for the running one's time
# slice). A kernel answers a request in a chain of a dozen wakeups between its threads and this
# one, so the gateway and its kernels take the normal class back: a runCode('1') comes back
# ~0.5 ms sooner. Not a boundary, as the sandbox's class is not (docs/e2b.md).
try:
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
except OSError:
    pass  # an idle-class sandbox (chrt --idle) stays idle
PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
os.dup2(2, 1)  # a stray print() must not break the protocol
SEND_LOCK = threading.Lock()
HOME = sys.argv[1] if len(sys.argv) > 1 else "/home/user"
STATE = os.environ.get("SANDBENCH_KERNEL_STATE", "/tmp/.sandbench-code-interpreter")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # the debugger's start notes
for key, sub in (("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython"),
                 ("MPLCONFIGDIR", "matplotlib")):
    os.environ.setdefault(key, os.path.join(STATE, sub))
    os.makedirs(os.environ[key], exist_ok=True)
# The sandbox's own variables, which a per-execution variable of the same name returns to.
GLOBAL_ENV = dict(os.environ)

try:
    from jupyter_client import KernelManager  # noqa: E402 (after the folders above)
    MISSING = None
except ImportError as e:  # every context then fails, saying why
    KernelManager = None
    MISSING = ("%s: install Debian's python3-ipykernel and python3-jupyter-client "
               "(scripts/deps.sh)" % e)


def send(obj):
    line = json.dumps(obj, separators=(",", ":"), default=str)
    with SEND_LOCK:
        PROTOCOL.write(line + "\n")
        PROTOCOL.flush()


# Run silently in every new kernel: what an E2B sandbox's kernel has that ipykernel alone has not.
SETUP = r'''
def __sandbench_setup():
    import os
    import sys
    from IPython import get_ipython
    from IPython.core.formatters import BaseFormatter
    from traitlets import ObjectName, Unicode
    shell = get_ipython()

    class DataFormatter(BaseFormatter):
        format_type = Unicode("e2b/data")
        print_method = ObjectName("_repr_e2b_data_")
        _return_type = (dict,)

        def __call__(self, obj):
            pandas = sys.modules.get("pandas")
            if pandas is not None and isinstance(obj, pandas.DataFrame):
                columns = obj.to_dict(orient="list")
                return {str(name): [v.isoformat() if hasattr(v, "isoformat") else v
                                    for v in values] for name, values in columns.items()}
            return super().__call__(obj)

    formatter = shell.display_formatter
    formatter.formatters["e2b/data"] = DataFormatter(parent=formatter)
    try:
        from PIL import Image, ImageShow
    except ImportError:
        return
    from IPython.display import display
    # image.show() and image.save(name) show the image as a result, as E2B's kernels do.
    ImageShow.UnixViewer.show_file = lambda self, path, **options: 0
    ImageShow.register(type("Inline", (ImageShow.Viewer,),
                            {"show": lambda self, image, **options: display(image) or 1}),
                       order=-1)
    save = Image.Image.save

    def save_and_show(image, fp, format=None, **params):
        if isinstance(fp, (str, bytes, os.PathLike)):
            display(image)
        return save(image, fp, format, **params)
    Image.Image.save = save_and_show
__sandbench_setup()
del __sandbench_setup
'''

MIME_FIELDS = {
    "text/plain": "text", "text/html": "html", "text/markdown": "markdown",
    "image/svg+xml": "svg", "image/png": "png", "image/jpeg": "jpeg",
    "application/pdf": "pdf", "text/latex": "latex", "application/json": "json",
    "application/javascript": "javascript", "e2b/data": "data", "e2b/chart": "chart",
}


def result_line(bundle, main):
    line = {"type": "result", "is_main_result": main}
    extra = {}
    for mime, value in bundle.items():
        field = MIME_FIELDS.get(mime)
        if field is None:
            extra[mime] = value
            continue
        if field == "text" and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]  # a string's repr, as E2B gives it
        line[field] = value
    if extra:
        line["extra"] = extra
    return line


class Context:
    def __init__(self, language, cwd):
        self.id = uuid.uuid4().hex
        self.language = language
        self.cwd = cwd
        self.generation = 0  # a restart or removal ends the execution in progress
        self.state = threading.Lock()  # running, waiting, cancelled
        self.running = None  # the request id running now
        self.waiting = set()
        self.cancelled = set()
        self.km = None
        self.client = None
        self.queue = queue.Queue()
        self.failure = None

    def serve(self, started):
        threading.Thread(target=work, args=(self, started), daemon=True).start()

    def describe(self):
        return {"id": self.id, "language": self.language, "cwd": self.cwd}

    def start(self):
        if MISSING:
            raise RuntimeError(MISSING)
        if not os.path.isdir(self.cwd):
            raise ValueError("no such folder in the sandbox: " + self.cwd)
        self.km = KernelManager(kernel_name=self.KERNEL, transport="ipc",
                                ip=os.path.join(STATE, "kernel-" + self.id))
        self.km.start_kernel(cwd=self.cwd, stdout=open(os.devnull, "w"),
                             extra_arguments=self.ARGUMENTS)
        self.client = self.km.blocking_client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        if self.setup():
            self.quiet(self.setup())

    def quiet(self, code):
        """Runs code silently (no count, no history), waiting for it."""
        msg_id = self.client.execute(code, silent=True, store_history=False)
        while True:
            msg = self.client.get_iopub_msg(timeout=60)
            if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                    and msg["content"]["execution_state"] == "idle"):
                return

    def interrupt(self):
        process = getattr(self.km.provisioner, "process", None)
        if process is not None:
            os.kill(process.pid, signal.SIGINT)

    def run(self, rid, code, envs, generation):
        if envs:
            self.quiet(self.set_code(envs))
        msg_id = self.client.execute(code, store_history=True, allow_stdin=False, stop_on_error=True)
        errored = False
        while True:
            if self.generation != generation:
                send({"id": rid, "out": {"type": "error", "name": "ContextRestarting",
                                         "value": "the context was restarted or removed",
                                         "traceback": ""}})
                return
            try:
                msg = self.client.get_iopub_msg(timeout=0.5)
            except Exception:
                continue  # nothing yet (queue.Empty)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            date = msg["header"].get("date")
            if kind == "stream":
                send({"id": rid, "out": {"type": "stdout" if content["name"] == "stdout"
                                         else "stderr", "text": content["text"],
                                         "timestamp": date}})
            elif kind == "execute_input":
                send({"id": rid, "out": {"type": "number_of_executions",
                                         "execution_count": content["execution_count"]}})
            elif kind == "execute_result":
                send({"id": rid, "out": result_line(content["data"], True)})
            elif kind == "display_data":
                send({"id": rid, "out": result_line(content["data"], False)})
            elif kind == "error" and not errored:
                errored = True
                send({"id": rid, "out": {"type": "error", "name": content["ename"],
                                         "value": content["evalue"],
                                         "traceback": "\n".join(content["traceback"])}})
            elif kind == "status" and content["execution_state"] == "idle":
                return

    def after(self, envs):
        """The sandbox's own values of variables an execution set, back."""
        self.quiet(self.unset_code(list(envs)))

    # What a language's kernel is named and runs first, and how it sets variables: Python's here.
    KERNEL = "python3"
    # _execute_sleep: ipykernel sleeps 0.5 ms before each execute_reply, for clients that take
    # the reply as the end; the end here is the idle status after the output, on the same
    # channel, so the sleep only delays it.
    ARGUMENTS = ["--InteractiveShell.colors=NoColor", "--HistoryManager.enabled=False",
                 "--IPythonKernel._execute_sleep=0"]

    def setup(self):
        return SETUP

    def set_code(self, values):
        return env_code(values)

    def unset_code(self, keys):
        return unset_code(keys)

    def restart(self):
        self.km.restart_kernel(now=True)
        self.client.wait_for_ready(timeout=60)
        if self.setup():
            self.quiet(self.setup())

    def shutdown(self):
        if self.client is not None:
            self.client.stop_channels()
        if self.km is not None:
            self.km.shutdown_kernel(now=True)


CONTEXTS = {}
CONTEXTS_LOCK = threading.Lock()
DEFAULT = {}  # language -> its default context
DEFAULT_READY = threading.Event()


def env_code(values):
    return "__import__('os').environ.update(__import__('json').loads(%s))" % json.dumps(
        json.dumps(values))


def unset_code(keys):
    restore = {k: GLOBAL_ENV[k] for k in keys if k in GLOBAL_ENV}
    drop = [k for k in keys if k not in GLOBAL_ENV]
    return env_code(restore) + "\n" + "".join(
        "__import__('os').environ.pop(%s, None)\n" % json.dumps(k) for k in drop)


def execute(rid, request):
    ctx_id = request.get("context")
    language = request.get("language") or "python"
    with CONTEXTS_LOCK:
        ctx = CONTEXTS.get(ctx_id) if ctx_id else DEFAULT.get(language)
        if ctx is None and not ctx_id and language != "python":
            # A language's default context starts when it is first asked for.
            ctx = DEFAULT[language] = new_context(language, HOME)
            CONTEXTS[ctx.id] = ctx
            ctx.serve(False)
    if ctx is None:
        return send({"id": rid, "fail": {"status": 404, "message": "context %s not found"
                                         % (ctx_id or "python (the default one was removed)")}})
    with ctx.state:
        ctx.waiting.add(rid)
    ctx.queue.put((rid, request))


def work(ctx, started):
    """A context's executions, one at a time in the order they came."""
    if not started:
        try:
            ctx.start()
        except Exception as e:
            ctx.failure = str(e)
    DEFAULT_READY.set()
    while True:
        rid, request = ctx.queue.get()
        if rid is None:
            return
        with ctx.state:
            ctx.waiting.discard(rid)
            if rid in ctx.cancelled:
                ctx.cancelled.discard(rid)
                send({"id": rid, "end": True})
                continue
            ctx.running = rid
        if ctx.failure:
            send({"id": rid, "fail": {"status": 500, "message": "the %s context did not "
                                      "start: %s" % (ctx.language, ctx.failure)}})
            continue
        envs = request.get("env") or {}
        generation = ctx.generation
        try:
            ctx.run(rid, request.get("code", ""), envs, generation)
        except Exception as e:  # the kernel went away under it
            send({"id": rid, "out": {"type": "error", "name": type(e).__name__,
                                     "value": str(e), "traceback": ""}})
        finally:
            with ctx.state:
                ctx.running = None
        if envs and ctx.generation == generation:
            try:
                ctx.after(envs)
            except Exception:
                pass
        send({"id": rid, "end": True})


def create(rid, request):
    ctx = new_context(request.get("language") or "python", request.get("cwd") or HOME)
    try:
        ctx.start()
    except Exception as e:
        try:
            ctx.shutdown()
        except Exception:
            pass
        return send({"id": rid, "fail": {"status": 500, "message": "the context did not "
                                         "start: %s" % e}})
    with CONTEXTS_LOCK:
        CONTEXTS[ctx.id] = ctx
    ctx.serve(True)
    send({"id": rid, "reply": ctx.describe()})


def restart(rid, request):
    with CONTEXTS_LOCK:
        ctx = CONTEXTS.get(request.get("context"))
    if ctx is None:
        return send({"id": rid, "fail": {"status": 404, "message": "context %s not found"
                                         % request.get("context")}})
    ctx.generation += 1
    try:
        ctx.restart()
    except Exception as e:
        return send({"id": rid, "fail": {"status": 500, "message": "the restart failed: %s" % e}})
    send({"id": rid, "reply": {}})


def remove(rid, request):
    with CONTEXTS_LOCK:
        ctx = CONTEXTS.pop(request.get("context"), None)
        for language, default in list(DEFAULT.items()):
            if default is ctx:
                del DEFAULT[language]
    if ctx is None:
        return send({"id": rid, "fail": {"status": 404, "message": "context %s not found"
                                         % request.get("context")}})
    ctx.generation += 1
    ctx.queue.put((None, None))
    try:
        ctx.shutdown()
    except Exception:
        pass
    send({"id": rid, "reply": {}})


def cancel(rid):
    """The client of an execution went: drop it if it waits, interrupt it if it runs."""
    with CONTEXTS_LOCK:
        contexts = list(CONTEXTS.values())
    for ctx in contexts:
        with ctx.state:
            if ctx.running == rid:
                ctx.interrupt()
            elif rid in ctx.waiting:
                ctx.cancelled.add(rid)


def list_contexts(rid, request):
    DEFAULT_READY.wait()
    with CONTEXTS_LOCK:
        send({"id": rid, "reply": [c.describe() for c in CONTEXTS.values()]})


HANDLERS = {"list": list_contexts, "create": create, "restart": restart, "remove": remove}


def main():
    default = new_context("python", HOME)
    CONTEXTS[default.id] = default
    DEFAULT["python"] = default
    default.serve(False)
    for line in sys.stdin:
        try:
            request = json.loads(line)
            op, rid = request["op"], request.get("id")
        except (ValueError, KeyError, TypeError):
            continue
        if op == "cancel":
            cancel(rid)
        elif op == "execute":
            execute(rid, request)
        elif op in HANDLERS:
            threading.Thread(target=HANDLERS[op], args=(rid, request), daemon=True).start()
        else:
            send({"id": rid, "fail": {"status": 400, "message": "unknown op " + str(op)}})
    with CONTEXTS_LOCK:
        contexts = list(CONTEXTS.values())
    for ctx in contexts:
        try:
            ctx.shutdown()
        except Exception:
            pass
)py";

} // namespace

const std::string& kernelGatewayScript()
{
    // The gateway, then what it runs in kernels and its other contexts (the extras), then its
    // start: Python runs a module's text in order.
    static const std::string script =
        std::string(kScript.substr(1)) + std::string(kernelGatewayExtras()) + "\nmain()\n";
    return script;
}

} // namespace sb::e2b
