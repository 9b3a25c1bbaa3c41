"""The attention explorer in a Jupyter notebook, or as one self-contained HTML file.

    import sys; sys.path.append("path/to/web/notebook")
    from attention_explorer import show
    show("The cat sat on the mat because it was tired.", token="it")

Each output carries the engine (web/dist/attn.wasm), the page's script and the weights as
base64, so nothing is fetched or served: it works offline, in a saved notebook and in its HTML
export. Several outputs on one page define the element once and share one engine. `save()`
writes the same explorers as a single HTML file that opens from disk with no other file
(`node tools/explorer-html.mjs` is its command line). Python's standard library only; IPython
is needed by `show()` alone.
"""

import base64
import functools
import hashlib
import html
import re
from pathlib import Path

__all__ = ["Explorer", "WeightsError", "explorer", "show", "save", "MAX_WEIGHTS_BYTES"]

HERE = Path(__file__).resolve().parent
DIST = HERE.parent / "dist"
DEFAULT_WEIGHTS = DIST / "bert-mini.int8.bin"
ASSET_TYPE = "application/x-attention-asset"  # web/src/loader.mjs EMBEDDED_ASSET_TYPE
MAGIC = b"BERTINT8"  # c/spec.mjs MAGIC: the first bytes of a file made by weights/convert.mjs
CONTROLS = ("full", "compact", "none")

# The largest weights file an output or a one-file page carries. The page holds its base64 text
# (4/3 of the file), the decoded bytes and the engine's copy in its 1 GB of WebAssembly memory;
# BERT-base in int8 (about 110 MB) fits, with room for matrices kept in int16.
MAX_WEIGHTS_BYTES = 192 * 1024 * 1024


class WeightsError(ValueError):
    """A `weights=` file that cannot be carried: missing, too large, or not a converted .bin."""


class Explorer:
    """One <attention-explorer>: a sentence and the attributes web/README.md lists."""

    def __init__(self, sentence, *, layer=None, head=None, token=None, view=None, lang=None,
                 controls=None, weights=None, **attributes):
        if not isinstance(sentence, str) or not sentence.strip():
            raise ValueError("sentence: give the text to explore, e.g. \"The cat sat on the mat.\"")
        self.weights = _weights_path(weights)
        self.attributes = {"sentence": sentence}
        for name, value in (("layer", layer), ("head", head)):
            if value is not None:
                self.attributes[name] = _counted(name, value)
        if token is not None:
            self.attributes["token"] = _token(token)
        for name, value in (("view", view), ("lang", lang)):
            if value is not None:
                self.attributes[name] = _word(name, value)
        if controls is not None:
            if not isinstance(controls, str) or controls.lower() not in CONTROLS:
                raise ValueError(f"controls: one of {', '.join(CONTROLS)}, not {controls!r}")
            self.attributes["controls"] = controls.lower()
        for name, value in attributes.items():
            self.attributes[_attribute_name(name)] = _plain_value(name, value)

    def element(self, engine_base, weights_url):
        """The element's markup, naming the assets the page carries."""
        pairs = [("assets", engine_base), ("weights", weights_url), *self.attributes.items()]
        text = " ".join(f'{name}="{html.escape(value, quote=True)}"' for name, value in pairs)
        return f"<attention-explorer {text}></attention-explorer>"

    def _repr_html_(self):
        return fragment([self])


def explorer(sentence, **options):
    """An Explorer (for `save()`, or to show as a cell's last value)."""
    return Explorer(sentence, **options)


def show(sentence, **options):
    """Puts an explorer of `sentence` in the cell's output; options as `Explorer`."""
    try:
        from IPython.display import HTML, display
    except ImportError as error:
        raise RuntimeError("show() displays in a Jupyter notebook (IPython); elsewhere use save()") from error
    display(HTML(fragment([Explorer(sentence, **options)])))


def save(path, *explorers, title="Attention explorer", lang="en"):
    """Writes one HTML file holding `explorers` (Explorer objects or sentences) and everything
    they need; returns its size in bytes."""
    if not explorers:
        raise ValueError("save: give at least one explorer or sentence")
    items = [e if isinstance(e, Explorer) else Explorer(e) for e in explorers]
    page = document(fragment(items), title=title, lang=lang)
    data = page.encode("utf-8")
    Path(path).write_bytes(data)
    return len(data)


def document(body, *, title, lang):
    """A whole page around `body` (the layout `node tools/explorer-html.mjs` writes too)."""
    return (
        "<!doctype html>\n"
        f'<html lang="{html.escape(_word("lang", lang), quote=True)}">\n'
        '<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        "<body>\n"
        f"{body}\n"
        "</body>\n"
        "</html>\n"
    )


def fragment(explorers):
    """Each asset the explorers use, once, the script defining the element, then the explorers'
    elements (after the assets: an element the parser meets connects at once and reads them)."""
    engine = _engine_assets()
    elements, assets = [], [engine["bundle"], engine["wasm"]]
    for item in explorers:
        weights = _weights_asset(str(item.weights))
        elements.append(item.element(engine["base"], weights["url"]))
        if weights not in assets:
            assets.append(weights)
    holders = [_holder(asset) for asset in assets]
    return "\n".join([*holders, f"<script>\n{_text(HERE / 'bootstrap.js')}</script>", *elements])


def _holder(asset):
    marker = " data-attention-bundle" if asset.get("bundle") else ""
    return f'<script type="{ASSET_TYPE}" data-src="{asset["url"]}"{marker}>{asset["base64"]}</script>'


@functools.lru_cache(maxsize=None)
def _text(path):
    return path.read_text(encoding="utf-8")


def _engine_assets():
    """The page's script (without its source-map line) and the wasm, under a name their bytes decide."""
    bundle = _stamped(DIST / "attention-explorer.js")
    wasm = _stamped(DIST / "attn.wasm")
    bundle_bytes = re.sub(rb"\n//# sourceMappingURL=\S+\s*$", b"\n", bundle["bytes"])
    base = f"embedded:/{hashlib.sha256(bundle_bytes + wasm['bytes']).hexdigest()[:16]}/"
    return {
        "base": base,
        "bundle": {"url": base + "attention-explorer.js", "base64": _base64(bundle_bytes), "bundle": True},
        "wasm": {"url": base + "attn.wasm.js", "base64": _base64(wasm["bytes"])},
    }


def _weights_asset(path):
    data = _stamped(Path(path))["bytes"]
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", Path(path).name.removesuffix(".bin")) or "model"
    url = f"embedded:/{hashlib.sha256(data).hexdigest()[:16]}/{stem}.weights.js"
    return {"url": url, "base64": _base64(data)}


def _stamped(path):
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} is missing: the helper carries the page's built files from web/dist "
                                "(keep web/notebook inside the project, built by ./build.sh)") from None
    return _read(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read(path, size, mtime_ns):  # size and mtime_ns: a changed file is read again
    return {"bytes": Path(path).read_bytes()}


@functools.lru_cache(maxsize=4)
def _base64(data):
    return base64.b64encode(data).decode("ascii")


def _weights_path(weights):
    if weights is None:
        return DEFAULT_WEIGHTS
    path = Path(weights).expanduser()
    if not path.is_file():
        raise WeightsError(f"weights: {path} is not a file (give a .bin made by weights/convert.mjs)")
    size = path.stat().st_size
    if size > MAX_WEIGHTS_BYTES:
        raise WeightsError(f"weights: {path} is {size / 2**20:.1f} MiB; a notebook output or a one-file page "
                           f"carries at most {MAX_WEIGHTS_BYTES // 2**20} MiB of weights")
    with path.open("rb") as file:
        if file.read(len(MAGIC)) != MAGIC:
            raise WeightsError(f"weights: {path} is not a weights file made by weights/convert.mjs "
                               f"(it does not start with {MAGIC.decode()}); convert the checkpoint with "
                               "`node weights/convert.mjs CHECKPOINT_DIR OUT.bin` and give OUT.bin")
    return path.resolve()


def _counted(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}: a number from 1 (the first {name}), not {value!r}")
    return str(value)


def _token(value):
    if isinstance(value, bool) or not isinstance(value, (int, str)) or value == "" or (isinstance(value, int) and value < 0):
        raise ValueError(f"token: an index from 0 ([CLS]), a word, or word#k, not {value!r}")
    return str(value)


def _word(name, value):
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", value):
        raise ValueError(f"{name}: a name such as \"row\" or \"fr\", not {value!r}")
    return value


def _attribute_name(name):
    if not re.fullmatch(r"[a-z][a-z0-9]*", name) or name in ("assets", "weights", "wasm"):
        raise ValueError(f"{name}: not an attribute show() can set (web/README.md lists them)")
    return name


def _plain_value(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{name}: a string or an integer, not {value!r}")
    return str(value)
