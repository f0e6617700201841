"""``python -m kgqa``: the same as the ``kgqa`` script."""

import sys

from kgqa.cli import main

sys.exit(main())
