"""Student edition of the book: every exercise stays, every solution is left out.

Set ``student_edition: true`` under ``sphinx: config:`` (``make book-student`` does this in a
generated copy of ``_config.yml``). sphinx-exercise's own ``hide_solutions`` switch fails on
solutions written with the gated ``solution-start``/``solution-end`` syntax (the end marker is
left without a translator), so the solutions are removed here instead, after sphinx-exercise has
merged gated content, code cells included, into one solution node.
"""
from sphinx_exercise.nodes import solution_node


def drop_solutions(app, doctree):
    """Remove every solution node from a document read for the student edition."""
    if not app.config.student_edition:
        return
    for node in list(doctree.findall(solution_node)):
        node.parent.remove(node)


def setup(app):
    app.add_config_value("student_edition", False, "env")
    app.connect("doctree-read", drop_solutions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
