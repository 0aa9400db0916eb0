// The code interpreter gateway's second part (CodeInterpreter.h): the chart data a Python kernel
// reads from a matplotlib figure it shows, and contexts of language bash, which have no Jupyter
// kernel in Debian: a bash of the context's own, fed the code of each execution.
#include "e2b/CodeInterpreter.h"

namespace sb::e2b {

namespace {

constexpr std::string_view kExtras = R"py(
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


class BashContext(Context):
    """A context of language bash: one shell for the context's life, so its variables, functions
    and folder carry from one execution to the next."""

    def start(self):
        if not os.path.isdir(self.cwd):
            raise ValueError("no such folder in the sandbox: " + self.cwd)
        self.count = getattr(self, "count", 0)
        self.marker = "__sandbench_done_%s__" % uuid.uuid4().hex
        self.lines = queue.Queue()
        # Its own session and process group, so that an interrupt reaches what it runs; its
        # handler for SIGINT keeps the shell (children get SIGINT's default back at exec).
        self.shell = subprocess.Popen(["/bin/bash", "--noprofile", "--norc"], cwd=self.cwd,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, start_new_session=True)
        for stream, name in ((self.shell.stdout, "stdout"), (self.shell.stderr, "stderr")):
            threading.Thread(target=self.read, args=(stream, name), daemon=True).start()
        self.tell("trap 'true' INT")

    def read(self, stream, name):
        for raw in iter(stream.readline, b""):
            self.lines.put((name, raw.decode("utf-8", "replace")))
        self.lines.put((name, None))

    def tell(self, command):
        self.shell.stdin.write((command + "\n").encode())
        self.shell.stdin.flush()

    def quiet(self, code):
        self.tell(code)

    def run(self, rid, code, envs, generation):
        if self.shell.poll() is not None:  # `exit` ended the last one
            self.start()
        self.count += 1
        send({"id": rid, "out": {"type": "number_of_executions", "execution_count": self.count}})
        path = os.path.join(STATE, "bash-%s-%d.sh" % (self.id, self.count))
        with open(path, "w", encoding="utf-8") as script:
            script.write(code + "\n")
        exports = "".join("export %s=%s\n" % (k, shlex.quote(v)) for k, v in envs.items())
        self.tell(exports + "source %s </dev/null; printf '%%s %%d\\n' %s $? ; printf '%%s\\n' %s >&2"
                  % (shlex.quote(path), self.marker, self.marker))
        status, open_streams = None, {"stdout", "stderr"}
        while open_streams:
            if self.generation != generation:
                return
            try:
                name, text = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if text is None:
                send({"id": rid, "out": {"type": "error", "name": "ShellEnded",
                                         "value": "the context's shell ended", "traceback": ""}})
                return
            at = text.find(self.marker)
            if at >= 0:
                open_streams.discard(name)
                if name == "stdout":
                    status = int(text[at + len(self.marker):].split()[0] or 0)
                text = text[:at]
            if text:
                send({"id": rid, "out": {"type": name, "text": text}})
        try:
            os.remove(path)
        except OSError:
            pass
        if status:
            send({"id": rid, "out": {"type": "error", "name": "ExitStatus",
                                     "value": "exit status %d" % status, "traceback": ""}})

    def after(self, envs):
        self.tell("".join("export %s=%s\n" % (k, shlex.quote(GLOBAL_ENV[k])) if k in GLOBAL_ENV
                          else "unset %s\n" % k for k in envs))

    def interrupt(self):
        os.killpg(self.shell.pid, signal.SIGINT)

    def restart(self):
        self.shutdown()
        self.count = 0
        self.start()

    def shutdown(self):
        if getattr(self, "shell", None) is not None and self.shell.poll() is None:
            os.killpg(self.shell.pid, signal.SIGKILL)
            self.shell.wait()


class RContext(Context):
    """A context of language r: Debian's IRkernel (r-cran-irkernel)."""
    KERNEL = "ir"
    ARGUMENTS = []

    def setup(self):
        return ""

    def set_code(self, values):
        # JSON strings are R strings too (the same escapes).
        return "".join("do.call(Sys.setenv, setNames(list(%s), %s))\n"
                       % (json.dumps(v), json.dumps(k)) for k, v in values.items())

    def unset_code(self, keys):
        restore = {k: GLOBAL_ENV[k] for k in keys if k in GLOBAL_ENV}
        drop = [k for k in keys if k not in GLOBAL_ENV]
        return self.set_code(restore) + "".join(
            "Sys.unsetenv(%s)\n" % json.dumps(k) for k in drop)


def new_context(language, cwd):
    kinds = {"bash": BashContext, "r": RContext}
    return kinds.get(language, Context)(language, cwd)
)py";

} // namespace

std::string_view kernelGatewayExtras()
{
    return kExtras.substr(1);
}

} // namespace sb::e2b
