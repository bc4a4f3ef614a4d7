"""Write the student edition's configuration: ``_config.yml`` with ``student_edition`` on.

Usage: ``python book/_ext/student_config.py OUT.yml`` (run from the project root; ``make
book-student`` does this). Jupyter Book resolves local extension folders against the folder of
the configuration file, so they are written as absolute paths.
"""
import sys
from pathlib import Path

import yaml


def student_config(source: Path) -> dict:
    """The book's configuration read from ``source`` with the solutions switched off."""
    config = yaml.safe_load(source.read_text())
    sphinx = config["sphinx"]
    sphinx["config"]["student_edition"] = True
    root = source.resolve().parent
    sphinx["local_extensions"] = {name: str(root / folder) for name, folder in sphinx["local_extensions"].items()}
    return config


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(student_config(Path("_config.yml")), sort_keys=False))
