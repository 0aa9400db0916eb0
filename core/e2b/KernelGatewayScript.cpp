// The code interpreter's gateway (CodeInterpreter.h), the Python program `serve` writes into a
// code interpreter sandbox's /tmp and runs there with Debian's python3 and jupyter_client. It is
// Sandbench's own: requests on stdin and answers on stdout, one JSON object a line each.
#include "e2b/CodeInterpreter.h"

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
import queue
import signal
import sys
import threading
import uuid

PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
os.dup2(2, 1)  # a stray print() must not break the protocol
SEND_LOCK = threading.Lock()
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

# Chart data of a matplotlib figure shown (e2b/chart), also run in every new kernel.
SETUP += r'''
def __sandbench_charts():
    """Chart data (e2b/chart) of a matplotlib figure shown: what kind of chart each of its axes
    draws and the data it draws, in the shape E2B's SDK reads as `result.chart`."""
    import re
    import sys
    from IPython import get_ipython
    from IPython.core.formatters import BaseFormatter
    from traitlets import ObjectName, Unicode

    def text_or_none(text):
        return text if text else None

    def unit_of(label):
        found = re.search(r"\(([^()]+)\)\s*$", label or "")
        return found.group(1) if found else None

    def scale_of(axis, kind):
        from matplotlib import category, dates
        if isinstance(axis.units, category.UnitData):
            return "categorical"
        if isinstance(axis.converter, (dates.DateConverter, dates._SwitchableDateConverter)):
            return "datetime"
        return kind

    def value_of(value, scale):
        from matplotlib import dates
        if scale == "datetime":
            return dates.num2date(value).isoformat()
        return float(value)

    def planar(ax, kind):
        chart = {"type": kind, "title": text_or_none(ax.get_title()), "elements": []}
        for name, axis, scale in (("x", ax.xaxis, ax.get_xscale()), ("y", ax.yaxis, ax.get_yscale())):
            label = axis.get_label().get_text()
            chart[name + "_label"] = text_or_none(label)
            chart[name + "_unit"] = unit_of(label)
            chart[name + "_scale"] = scale_of(axis, scale)
            chart[name + "_ticks"] = [value_of(t, chart[name + "_scale"]) for t in axis.get_ticklocs()]
            chart[name + "_tick_labels"] = [t.get_text() for t in axis.get_ticklabels()]
        return chart

    def points(xy, chart):
        return [[value_of(x, chart["x_scale"]), value_of(y, chart["y_scale"])] for x, y in xy]

    def tick_label(ax, x):
        ticks = list(ax.get_xticks())
        labels = [t.get_text() for t in ax.get_xticklabels()]
        if not ticks or len(ticks) != len(labels):
            return str(x)
        nearest = min(range(len(ticks)), key=lambda i: abs(ticks[i] - x))
        return labels[nearest]

    def kind_of(ax):
        from matplotlib.collections import PathCollection
        from matplotlib.lines import Line2D
        from matplotlib.patches import PathPatch, Rectangle, Wedge
        from matplotlib.text import Text
        drawn = [a for a in ax.get_children() if a in ax._children and not isinstance(a, Text)]
        if not drawn:
            return "unknown"
        for kind, types in (("line", (Line2D,)), ("box_and_whisker", (PathPatch, Line2D)),
                            ("scatter", (PathCollection,)), ("pie", (Wedge,)),
                            ("bar", (Rectangle,))):
            if all(isinstance(a, types) for a in drawn):
                return kind
        return "unknown"

    def chart_of(ax):
        from matplotlib.lines import Line2D
        from matplotlib.patches import PathPatch
        kind = kind_of(ax)
        if kind in ("line", "scatter"):
            chart = planar(ax, kind)
            if kind == "line":
                for line in ax.lines:
                    chart["elements"].append({"label": line.get_label(),
                                              "points": points(line.get_xydata(), chart)})
            else:
                for collection in ax.collections:
                    chart["elements"].append({"label": collection.get_label(),
                                              "points": points(collection.get_offsets(), chart)})
            return chart
        if kind == "bar":
            chart = planar(ax, kind)
            for key in ("x_ticks", "x_tick_labels", "y_ticks", "y_tick_labels", "x_scale", "y_scale"):
                del chart[key]
            for container in ax.containers:
                for bar in container:
                    chart["elements"].append({
                        "label": tick_label(ax, bar.get_x() + bar.get_width() / 2),
                        "group": container.get_label(), "value": float(bar.get_height())})
            return chart
        if kind == "pie":
            return {"type": "pie", "title": text_or_none(ax.get_title()), "elements": [
                {"label": w.get_label(), "angle": round(abs(w.theta2 - w.theta1), 2),
                 "radius": w.r} for w in ax.patches]}
        if kind == "box_and_whisker":
            chart = planar(ax, kind)
            for key in ("x_ticks", "x_tick_labels", "y_ticks", "y_tick_labels", "x_scale", "y_scale"):
                del chart[key]
            boxes = sorted((p for p in ax.patches if isinstance(p, PathPatch)),
                           key=lambda p: p.get_path().vertices[:, 0].mean())
            for box in boxes:
                xs, ys = box.get_path().vertices[:, 0], box.get_path().vertices[:, 1]
                left, right = float(xs.min()), float(xs.max())
                mine = [line for line in ax.lines
                        if len(line.get_xdata()) and left - 1e-9 <= min(line.get_xdata())
                        and max(line.get_xdata()) <= right + 1e-9]
                fliers = [line for line in mine if line.get_linestyle() in ("None", "", " ")]
                whiskers = [line for line in mine if line not in fliers
                            and len(set(line.get_xdata())) == 1 and len(line.get_ydata()) == 2]
                flat = [line for line in mine if line not in fliers
                        and len(set(line.get_ydata())) == 1]
                median = max(flat, key=lambda line: max(line.get_xdata()) - min(line.get_xdata()))
                ends = [float(y) for line in whiskers for y in line.get_ydata()]
                chart["elements"].append({
                    "label": tick_label(ax, (left + right) / 2),
                    "min": min(ends), "first_quartile": float(ys.min()),
                    "median": float(median.get_ydata()[0]), "third_quartile": float(ys.max()),
                    "max": max(ends),
                    "outliers": [float(y) for line in fliers for y in line.get_ydata()]})
            return chart
        return {"type": "unknown", "title": text_or_none(ax.get_title()), "elements": []}

    class ChartFormatter(BaseFormatter):
        format_type = Unicode("e2b/chart")
        print_method = ObjectName("_repr_e2b_chart_")
        _return_type = (dict,)

        def __call__(self, obj):
            figure_module = sys.modules.get("matplotlib.figure")
            if figure_module is None or not isinstance(obj, figure_module.Figure):
                return super().__call__(obj)
            try:
                axes = obj.axes
                if len(axes) == 1:
                    return chart_of(axes[0])
                if len(axes) > 1:
                    title = obj._suptitle.get_text() if obj._suptitle is not None else ""
                    return {"type": "superchart", "title": text_or_none(title),
                            "elements": [chart_of(ax) for ax in axes]}
            except Exception:  # a figure this cannot read has no chart data, never an error
                return None
            return None

    formatter = get_ipython().display_formatter
    formatter.formatters["e2b/chart"] = ChartFormatter(parent=formatter)
__sandbench_charts()
del __sandbench_charts
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
        self.km = KernelManager(kernel_name="python3", transport="ipc",
                                ip=os.path.join(STATE, "kernel-" + self.id))
        self.km.start_kernel(cwd=self.cwd, stdout=open(os.devnull, "w"),
                             extra_arguments=["--InteractiveShell.colors=NoColor",
                                              "--HistoryManager.enabled=False"])
        self.client = self.km.blocking_client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        self.quiet(SETUP)

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
    with CONTEXTS_LOCK:
        ctx = CONTEXTS.get(ctx_id) if ctx_id else DEFAULT.get("python")
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
            send({"id": rid, "fail": {"status": 500, "message": "the Python kernel did not "
                                      "start: " + ctx.failure}})
            continue
        envs = request.get("env") or {}
        generation = ctx.generation
        try:
            run(ctx, rid, request.get("code", ""), envs, generation)
        except Exception as e:  # the kernel went away under it
            send({"id": rid, "out": {"type": "error", "name": type(e).__name__,
                                     "value": str(e), "traceback": ""}})
        finally:
            with ctx.state:
                ctx.running = None
        if envs and ctx.generation == generation:
            try:
                ctx.quiet(unset_code(list(envs)))
            except Exception:
                pass
        send({"id": rid, "end": True})


def run(ctx, rid, code, envs, generation):
    if envs:
        ctx.quiet(env_code(envs))
    msg_id = ctx.client.execute(code, store_history=True, allow_stdin=False, stop_on_error=True)
    errored = False
    while True:
        if ctx.generation != generation:
            send({"id": rid, "out": {"type": "error", "name": "ContextRestarting",
                                     "value": "the context was restarted or removed",
                                     "traceback": ""}})
            return
        try:
            msg = ctx.client.get_iopub_msg(timeout=0.5)
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


def create(rid, request):
    ctx = Context(request.get("language") or "python", request.get("cwd") or "/home/user")
    try:
        ctx.start()
    except Exception as e:
        if ctx.km is not None:
            try:
                ctx.km.shutdown_kernel(now=True)
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
        ctx.km.restart_kernel(now=True)
        ctx.client.wait_for_ready(timeout=60)
        ctx.quiet(SETUP)
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
        ctx.client.stop_channels()
        ctx.km.shutdown_kernel(now=True)
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
    default = Context("python", sys.argv[1] if len(sys.argv) > 1 else "/home/user")
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
            ctx.km.shutdown_kernel(now=True)
        except Exception:
            pass


main()
)py";

} // namespace

std::string_view kernelGatewayScript()
{
    return kScript.substr(1); // from the line after the literal's opening
}

} // namespace sb::e2b
