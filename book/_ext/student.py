"""Student edition of the book (``student_edition: true``; ``make book-student``).

The student edition is built from copies of the sources whose notebooks have no solution
(``book/_ext/student_source.py``), so nothing the build writes can hold one.  This extension
sets the tag ``student`` (pages say what differs with ``{only} student`` / ``{only} not student``)
and stops the build if a solution box is still found in a page, a solution the copies missed.
"""
from sphinx.errors import ExtensionError
from sphinx_exercise.nodes import solution_node


def add_tag(app, config):
    if config.student_edition:
        app.tags.add("student")


def refuse_solutions(app, doctree):
    """Fail on a solution read into the student edition (its sources should have none)."""
    if not app.config.student_edition:
        return
    for node in doctree.findall(solution_node):
        raise ExtensionError(f"student edition: {app.env.docname} still has a solution ({node.get('ids')}); "
                             "build it from the sources of book/_ext/student_source.py")


def setup(app):
    app.add_config_value("student_edition", False, "env")
    app.connect("config-inited", add_tag)
    app.connect("doctree-read", refuse_solutions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
