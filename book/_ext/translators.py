"""Let the single-page builder (``make pdf``) translate every node the HTML builder can.

Sphinx looks up a node's visitors under the builder's name ("singlehtml") and
falls back to its format ("html") only when no extension registered any
"singlehtml" visitor. sphinx-exercise registers some, so sphinx-proof's theorem
boxes (registered for "html" only) would have no visitor in the single-page
build. This copies the missing "html" visitors over once every extension is loaded.
"""


def share_html_visitors(app):
    handlers = app.registry.translation_handlers
    if "singlehtml" in handlers:
        for node, visitors in handlers.get("html", {}).items():
            handlers["singlehtml"].setdefault(node, visitors)


def setup(app):
    app.connect("builder-inited", share_html_visitors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
