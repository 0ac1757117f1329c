"""``python -m companion`` is the ``companion`` command."""
from .cli import main

main()
